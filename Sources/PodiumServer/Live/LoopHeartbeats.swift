import NIOCore
import Synchronization

/// The keep-alive of every socket on one event loop: one timer for the loop, not one per socket.
///
/// A timer of its own cost each idle socket about 800 bytes (NIO's repeated task, its promise
/// and its place in the loop's schedule); here a socket costs its place in an array. Every
/// ``Outbox/Heartbeat/interval`` the loop visits its sockets, and each one pings a quiet client or
/// closes a silent one (``Outbox/heartbeatOnLoop()``), as its own timer did: a client is pinged
/// between one and two intervals after it last spoke (a proxy's idle timeout must not be cut
/// into), and let go once the silence limit has passed, within an interval. Sockets that leave
/// during a visit (the silent ones it closes, above all) do not make it miss any that stay.
///
/// A visit gives the loop back every ``socketsPerTurn`` sockets, so 10,000 pings at once do not
/// hold up the loop's reads and fan-out.
final class LoopHeartbeats: Sendable {
    /// Loop-confined: the sockets, each knowing its place (``Outbox/heartbeatSlot``).
    private final class Members {
        var outboxes: [Outbox] = []
        var timer: RepeatedTask?
        /// The next socket of a visit still running; nil between visits.
        var cursor: Int?
    }

    static let socketsPerTurn = 256

    let loop: any EventLoop
    let heartbeat: Outbox.Heartbeat
    private let members: NIOLoopBoundBox<Members>

    private init(loop: any EventLoop, heartbeat: Outbox.Heartbeat) {
        self.loop = loop
        self.heartbeat = heartbeat
        self.members = .makeBoxSendingValue(Members(), eventLoop: loop)
    }

    /// One keeper per event loop and heartbeat (the live and storyboard sockets share theirs).
    /// Like ``LoopBatch/of(_:)``, kept for the life of the process, as the loops are.
    static func of(_ loop: any EventLoop, _ heartbeat: Outbox.Heartbeat) -> LoopHeartbeats {
        let key = Key(loop: ObjectIdentifier(loop), heartbeat: heartbeat)
        return registry.withLock { keepers in
            if let keeper = keepers[key] { return keeper }
            let keeper = LoopHeartbeats(loop: loop, heartbeat: heartbeat)
            keepers[key] = keeper
            return keeper
        }
    }
    private struct Key: Hashable {
        let loop: ObjectIdentifier
        let heartbeat: Outbox.Heartbeat
    }
    private static let registry = Mutex<[Key: LoopHeartbeats]>([:])

    /// On the loop: the socket is kept alive from now on. Returns its place, for ``remove(_:)``.
    func add(_ outbox: Outbox) -> Int {
        let members = members.value
        members.outboxes.append(outbox)
        if members.timer == nil {
            members.timer = loop.scheduleRepeatedTask(initialDelay: heartbeat.interval, delay: heartbeat.interval) {
                [self] _ in startVisit()
            }
        }
        return members.outboxes.count - 1
    }

    /// On the loop: the socket at `slot` is gone, and its place is filled so that a visit under
    /// way still reaches every socket it has not reached yet: those after the cursor stay after
    /// it. The timer stops with the loop's last socket.
    func remove(_ slot: Int) {
        let members = members.value
        if let cursor = members.cursor, slot < cursor {
            // A visited socket left: the last visited one takes its place, and the hole moves
            // to just behind the cursor, which steps back onto it.
            move(members, from: cursor - 1, to: slot)
            members.cursor = cursor - 1
            removeFilling(members, cursor - 1)
        } else {
            removeFilling(members, slot)
        }
        if members.outboxes.isEmpty {
            members.timer?.cancel()
            members.timer = nil
            members.cursor = nil
        }
    }

    /// Removes the socket at `slot`, the last one taking its place (and told).
    private func removeFilling(_ members: Members, _ slot: Int) {
        let last = members.outboxes.removeLast()
        if slot < members.outboxes.count {
            members.outboxes[slot] = last
            last.heartbeatSlot = slot
        }
    }

    private func move(_ members: Members, from: Int, to: Int) {
        guard from != to else { return }
        let outbox = members.outboxes[from]
        members.outboxes[to] = outbox
        outbox.heartbeatSlot = to
    }

    private func startVisit() {
        let members = members.value
        // A visit that has not finished in a whole interval (a loop far behind) goes on from
        // where it is rather than starting again.
        guard members.cursor == nil else { return }
        members.cursor = 0
        continueVisit()
    }

    private func continueVisit() {
        let members = members.value
        var visited = 0
        while let cursor = members.cursor, cursor < members.outboxes.count, visited < Self.socketsPerTurn {
            // Past the cursor before its turn: a silent client is closed there, and if its socket
            // leaves at once, it leaves as one already visited (see ``remove(_:)``).
            members.cursor = cursor + 1
            members.outboxes[cursor].heartbeatOnLoop()
            visited += 1
        }
        guard let cursor = members.cursor, cursor < members.outboxes.count else {
            members.cursor = nil
            return
        }
        // As in ``LoopBatch``: a task due a moment later lets the loop read its sockets first.
        loop.scheduleTask(in: LoopBatch.readBreak) { [self] in continueVisit() }
    }
}
