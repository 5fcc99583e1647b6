import NIOCore
import Synchronization

/// The deliveries waiting for one event loop, in the order they were queued, and the passes on
/// the loop that write them.
///
/// A pass takes everything queued so far and writes it socket by socket: each socket gets every
/// frame of the pass meant for it and one flush, so one `writev` carries several frames when
/// events came faster than a pass takes, and each socket's state is visited once, which matters
/// when 10,000 sockets do not fit in the cache. A pass gives the loop back every
/// ``socketsPerTurn`` sockets, so the loop keeps reading (the presenter's next command, a
/// newcomer's hello) during a long fan-out.
///
/// Ephemeral frames for a group (the pointer above all) are not queued as frames: the group
/// keeps the newest of each kind (``OutboxGroups/Token``), and a socket gets whatever is newest
/// when its turn comes. Under overload the pointer skips positions instead of falling behind.
final class LoopBatch: Sendable {
    private struct Entry: Sendable {
        let delivery: Outbox.Delivery
        let outboxes: [Outbox]
        /// The group the outboxes came from: nil for a frame to one socket alone.
        let group: OutboxGroups.Token?

        func isLatest(_ kind: Outbox.Ephemeral) -> Bool {
            if case .latest(kind) = delivery { return true }
            return false
        }
    }
    private struct Pending {
        var entries: [Entry] = []
        /// A pass is queued or running: it takes up new entries when it ends.
        var scheduled = false
    }

    /// How many sockets a pass writes before letting the loop do other work.
    static let socketsPerTurn = 256

    let loop: any EventLoop
    private let pending = Mutex(Pending())
    private let current: NIOLoopBoundBox<Pass?>

    private init(loop: any EventLoop) {
        self.loop = loop
        self.current = .makeEmptyBox(valueType: Pass.self, eventLoop: loop)
    }

    /// One batch per event loop, made the first time a socket on that loop needs it. Event loops
    /// live as long as the process (the server runs on NIO's shared group), and so do these.
    static func of(_ loop: any EventLoop) -> LoopBatch {
        registry.withLock { batches in
            if let batch = batches[ObjectIdentifier(loop)] { return batch }
            let batch = LoopBatch(loop: loop)
            batches[ObjectIdentifier(loop)] = batch
            return batch
        }
    }
    private static let registry = Mutex<[ObjectIdentifier: LoopBatch]>([:])

    /// Queues a delivery for sockets of this loop, and a pass unless one is queued or running.
    func enqueue(_ delivery: Outbox.Delivery, to outboxes: [Outbox], group: OutboxGroups.Token? = nil) {
        let schedule = pending.withLock { pending -> Bool in
            // The group's newest frame is looked up when written: one waiting lookup is enough.
            if let group, case .latest(let kind) = delivery,
                pending.entries.contains(where: { $0.group === group && $0.isLatest(kind) })
            {
                return false
            }
            pending.entries.append(Entry(delivery: delivery, outboxes: outboxes, group: group))
            defer { pending.scheduled = true }
            return !pending.scheduled
        }
        if schedule { loop.execute { [self] in startPass() } }
    }

    private func startPass() {
        let entries = pending.withLock { pending -> [Entry] in
            if pending.entries.isEmpty { pending.scheduled = false }
            defer { pending.entries = [] }
            return pending.entries
        }
        guard !entries.isEmpty else { return }
        current.value = Pass(entries)
        continuePass()
    }

    private func continuePass() {
        guard let pass = current.value else { return }
        let done = pass.run(sockets: Self.socketsPerTurn)
        if done { current.value = nil }
        // Either way the loop reads its sockets first (the presenter's next pointer move, a
        // newcomer's hello). NIO runs the tasks that tasks queue in the same tick, before it
        // looks at the sockets again, so a task queued with `execute` would run the whole pass,
        // and the next, without a read. A task due a moment later lets the tick end.
        loop.scheduleTask(in: Self.readBreak) { [self] in done ? startPass() : continuePass() }
    }

    /// How long a pass pauses between turns (at most, when the loop has nothing to read: other
    /// threads get the core meanwhile).
    static let readBreak = TimeAmount.microseconds(20)

    /// One pass over what was queued: loop-confined.
    private final class Pass {
        struct GroupWork {
            let token: OutboxGroups.Token
            /// The group's sockets as its newest entry of the pass saw them.
            var outboxes: [Outbox]
            /// Each with how many of the group's sockets it is for: a group only grows at its
            /// end while it keeps its token (see ``OutboxGroups/append(_:)``), so an entry
            /// queued before a socket joined is for the sockets before it.
            var deliveries: [(index: Int, delivery: Outbox.Delivery, sockets: Int)]
        }
        private var groups: [GroupWork] = []
        /// Sockets with frames of their own waiting for broadcasts queued before them.
        private var stashed: [Outbox] = []
        private var groupIndex = 0
        private var socketIndex = 0

        /// Sorts the entries into groups. The order between groups may change, and that is safe:
        /// the groups of one build (hosts, others) share no socket, sockets of different sessions
        /// are different sockets, and a session's groups are rebuilt (new tokens) only after
        /// members left, so an older group is never used after a newer one. A frame for one
        /// socket keeps its place: it goes out at once if no broadcast came before it, else it
        /// waits in the socket's stash for the broadcasts queued before it. That is how a
        /// newcomer's welcome, queued when it joined the group, stays ahead of the broadcasts
        /// that follow it and behind none it should not see.
        init(_ entries: [Entry]) {
            var broadcastSeen = false
            for (index, entry) in entries.enumerated() {
                if let token = entry.group {
                    broadcastSeen = true
                    let delivery = (index, entry.delivery, entry.outboxes.count)
                    if let known = groups.firstIndex(where: { $0.token === token }) {
                        groups[known].deliveries.append(delivery)
                        if entry.outboxes.count > groups[known].outboxes.count { groups[known].outboxes = entry.outboxes }
                    } else {
                        groups.append(GroupWork(token: token, outboxes: entry.outboxes, deliveries: [delivery]))
                    }
                } else if !broadcastSeen {
                    for outbox in entry.outboxes where outbox.deliverOnLoop(entry.delivery) { outbox.flushOnLoop() }
                } else {
                    for outbox in entry.outboxes where outbox.stashOnLoop(index, entry.delivery) { stashed.append(outbox) }
                }
            }
        }

        /// Writes up to `sockets` sockets' share; true when the pass is done.
        func run(sockets budget: Int) -> Bool {
            var budget = budget
            while groupIndex < groups.count {
                let group = groups[groupIndex]
                // Looked up once a turn: sockets later in a long pass get a newer pointer.
                let deliveries = group.deliveries.map { entry -> (index: Int, delivery: Outbox.Delivery, sockets: Int) in
                    guard case .latest(let kind) = entry.delivery, let newest = group.token.newest(kind) else { return entry }
                    return (entry.index, .versioned(kind, newest), entry.sockets)
                }
                // Every socket of the group gets all of them, but those that joined during the pass.
                // Typed with the parameter's labels: an unlabeled array would be converted, by a
                // dynamic cast of each element, at every socket's call.
                let forAll: [(index: Int, delivery: Outbox.Delivery)] = deliveries.map { ($0.index, $0.delivery) }
                let everyone = deliveries.lazy.map(\.sockets).min() ?? 0
                let joined = Outbox.JoinedFrames(forAll)
                while socketIndex < group.outboxes.count {
                    guard budget > 0 else { return false }
                    budget -= 1
                    let outbox = group.outboxes[socketIndex]
                    let written: Bool
                    if socketIndex < everyone {
                        written = outbox.deliverOnLoop(forAll, joined: joined)
                    } else {
                        let position = socketIndex
                        written = outbox.deliverOnLoop(
                            deliveries.filter { $0.sockets > position }.map { ($0.index, $0.delivery) })
                    }
                    if written { outbox.flushOnLoop() }
                    socketIndex += 1
                }
                groupIndex += 1
                socketIndex = 0
            }
            for outbox in stashed where outbox.deliverStashOnLoop() { outbox.flushOnLoop() }
            stashed = []
            return true
        }
    }
}

/// Sockets grouped by event loop, so a broadcast to thousands of sockets costs one queue entry
/// per loop. A newcomer is appended to its loop's group, which keeps its token (and its newest
/// pointer); after members leave the session builds new groups, with new tokens.
struct OutboxGroups: Sendable {
    /// Identifies one group, and keeps its newest ephemeral frame of each kind. A new one per
    /// build, so a frame is never taken by sockets it was not meant for.
    final class Token: Sendable {
        private let newest = Mutex<[Outbox.Versioned?]>(Array(repeating: nil, count: EphemeralKey.count))

        func set(_ kind: Outbox.Ephemeral, _ frame: Outbox.Versioned) {
            newest.withLock {
                $0.growing(toInclude: kind.index, with: nil)
                $0[kind.index] = frame
            }
        }

        func newest(_ kind: Outbox.Ephemeral) -> Outbox.Versioned? {
            newest.withLock { kind.index < $0.count ? $0[kind.index] : nil }
        }
    }

    private var groups: [(batch: LoopBatch, outboxes: [Outbox], token: Token)] = []

    init(_ outboxes: some Sequence<Outbox>) {
        for outbox in outboxes { append(outbox) }
    }

    /// Adds a socket at the end of its loop's group: broadcasts queued before reach the
    /// sockets before it (see ``LoopBatch``).
    mutating func append(_ outbox: Outbox) {
        if let index = groups.firstIndex(where: { $0.batch === outbox.batch }) {
            groups[index].outboxes.append(outbox)
        } else {
            groups.append((outbox.batch, [outbox], Token()))
        }
    }

    func send(_ delivery: Outbox.Delivery) {
        if case .replace(let kind, let frame) = delivery {
            let newest = Outbox.Versioned(frame)
            for group in groups {
                group.token.set(kind, newest)
                group.batch.enqueue(.latest(kind), to: group.outboxes, group: group.token)
            }
        } else {
            for group in groups { group.batch.enqueue(delivery, to: group.outboxes, group: group.token) }
        }
    }
}
