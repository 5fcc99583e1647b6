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
/// newcomer's hello) during a long fan-out, and between turns it takes up what was queued since
/// it began (``takeUp(into:)``): a page event does not wait for a pointer pass to end.
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
        /// The seq whose frame this is, while a ``CommandPathTrace`` runs.
        var traceSeq: Int? = nil

        func isLatest(_ kind: Outbox.Ephemeral) -> Bool {
            if case .latest(kind) = delivery { return true }
            return false
        }

        var isLatestAny: Bool {
            if case .latest = delivery { return true }
            return false
        }

        /// A group's ephemeral lookup: the next pass takes it, whatever is queued after it.
        var isGroupLookup: Bool { group != nil && isLatestAny }
    }
    private struct Pending {
        var entries: [Entry] = []
        /// A pass is queued or running: it takes up new entries when it ends.
        var scheduled = false
        /// Passes that took entries so far: the next one to take them is `passes + 1`.
        var passes = 0
    }

    /// How many sockets a pass writes before letting the loop do other work.
    static let socketsPerTurn = 256

    let loop: any EventLoop
    /// Which batch this is, in the order they were made: the loop's number in a trace.
    let number: Int
    private let pending = Mutex(Pending())
    private let current: NIOLoopBoundBox<Pass?>

    private init(loop: any EventLoop, number: Int) {
        self.loop = loop
        self.number = number
        self.current = .makeEmptyBox(valueType: Pass.self, eventLoop: loop)
    }

    /// One batch per event loop, made the first time a socket on that loop needs it. Event loops
    /// live as long as the process (the server runs on NIO's shared group), and so do these.
    static func of(_ loop: any EventLoop) -> LoopBatch {
        registry.withLock { batches in
            if let batch = batches[ObjectIdentifier(loop)] { return batch }
            let batch = LoopBatch(loop: loop, number: batches.count)
            batches[ObjectIdentifier(loop)] = batch
            return batch
        }
    }
    private static let registry = Mutex<[ObjectIdentifier: LoopBatch]>([:])

    /// Queues a delivery for sockets of this loop, and a pass unless one is queued or running.
    func enqueue(_ delivery: Outbox.Delivery, to outboxes: [Outbox], group: OutboxGroups.Token? = nil) {
        var entry = Entry(delivery: delivery, outboxes: outboxes, group: group)
        if CommandPathTrace.enabled, group != nil, let seq = CommandPathTrace.seq {
            entry.traceSeq = seq
            CommandPathTrace.note("enqueue", seq, number, CommandPathTrace.now)
        }
        let schedule = pending.withLock { pending -> Bool in
            // The group's newest frame is looked up when written: one waiting lookup is enough.
            if let group, case .latest(let kind) = delivery,
                pending.entries.contains(where: { $0.group === group && $0.isLatest(kind) })
            {
                return false
            }
            pending.entries.append(entry)
            defer { pending.scheduled = true }
            return !pending.scheduled
        }
        if schedule { loop.execute { [self] in startPass() } }
    }

    private func startPass() {
        let (entries, number) = pending.withLock { pending -> ([Entry], Int) in
            if pending.entries.isEmpty { pending.scheduled = false } else { pending.passes += 1 }
            defer { pending.entries = [] }
            return (pending.entries, pending.passes)
        }
        guard !entries.isEmpty else { return }
        let pass = Pass(entries)
        if CommandPathTrace.enabled {
            pass.trace = Pass.Trace(number: number, entries: entries)
            noteTaken(entries, by: number)
        }
        current.value = pass
        continuePass()
    }

    /// A trace's line for each traced entry a pass took: which pass, when.
    private func noteTaken(_ entries: [Entry], by pass: Int) {
        let now = CommandPathTrace.now
        for entry in entries { if let seq = entry.traceSeq { CommandPathTrace.note("taken", seq, number, pass, now) } }
    }

    private func continuePass() {
        guard let pass = current.value else { return }
        takeUp(into: pass)
        let turnStart = CommandPathTrace.enabled ? CommandPathTrace.now : 0
        let done = pass.run(sockets: Self.socketsPerTurn)
        if CommandPathTrace.enabled { pass.trace?.turn(from: turnStart, done: done, loop: self.number) }
        if done {
            current.value = nil
            // A pass is queued or running while anything waits (`scheduled`): the next takes these.
            requeue(pass.carried)
        }
        // Either way the loop reads its sockets first (the presenter's next pointer move, a
        // newcomer's hello). NIO runs the tasks that tasks queue in the same tick, before it
        // looks at the sockets again, so a task queued with `execute` would run the whole pass,
        // and the next, without a read. A task due a moment later lets the tick end.
        loop.scheduleTask(in: Self.readBreak) { [self] in done ? startPass() : continuePass() }
    }

    /// How long a pass pauses between turns (at most, when the loop has nothing to read: other
    /// threads get the core meanwhile).
    static let readBreak = TimeAmount.microseconds(20)

    /// Between two turns, a running pass takes up what was queued since it began, all but the
    /// groups' ephemeral lookups (the next pass looks the newest up anyway): a page event queued
    /// while a pointer pass is halfway through its 5,000 sockets goes to the half not written yet
    /// in this pass, in the same write as the pointer, and to the half written already first
    /// thing in the next pass (``Pass/takeUp(_:)``), instead of to everyone in the next pass, a
    /// whole pass later. No socket is written more often for it.
    private func takeUp(into pass: Pass) {
        let taken = pending.withLock { pending -> [Entry] in
            guard pending.entries.contains(where: { !$0.isGroupLookup }) else { return [] }
            let taken = pending.entries.filter { !$0.isGroupLookup }
            pending.entries.removeAll { !$0.isGroupLookup }
            return taken
        }
        guard !taken.isEmpty else { return }
        if CommandPathTrace.enabled, let number = pass.trace?.number { noteTaken(taken, by: number) }
        pass.takeUp(taken)
    }

    /// What a pass that ended left for the next: ahead of whatever was queued since.
    private func requeue(_ carried: [Entry]) {
        guard !carried.isEmpty else { return }
        pending.withLock { $0.entries.insert(contentsOf: carried, at: 0) }
    }

    /// One pass over what was queued: loop-confined.
    private final class Pass {
        /// What a trace says of a pass (``CommandPathTrace``): when it started and ended, its
        /// turns, the sockets it wrote and what it carried.
        struct Trace {
            let number: Int
            let start = CommandPathTrace.now
            let durable: Int
            let latest: Int
            let single: Int
            var turns = 0
            var longestTurn: UInt64 = 0
            var busy: UInt64 = 0

            init(number: Int, entries: [Entry]) {
                self.number = number
                durable = entries.count(where: { $0.group != nil && !$0.isLatestAny })
                latest = entries.count(where: { $0.isLatestAny })
                single = entries.count(where: { $0.group == nil })
            }

            mutating func turn(from turnStart: UInt64, done: Bool, loop: Int) {
                let end = CommandPathTrace.now
                turns += 1
                longestTurn = max(longestTurn, end - turnStart)
                busy += end - turnStart
                guard done else { return }
                // pass <loop> <number> <start> <end> <turns> <longest turn> <busy> <durable> <latest> <single>
                CommandPathTrace.note("pass", loop, number, start, end, turns, longestTurn, busy, durable, latest, single)
            }
        }
        var trace: Trace?

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
        /// The place in the queue's order the next entry taken up gets.
        private var nextIndex: Int
        /// Entries taken up that are for the next pass (all of them, or the sockets this pass had
        /// written already), in the order they were queued.
        private(set) var carried: [Entry] = []

        /// Sorts the entries into groups. The order between groups may change, and that is safe:
        /// the groups of one build (hosts, others) share no socket, sockets of different sessions
        /// are different sockets, and a session's groups are rebuilt (new tokens) only after
        /// members left, so an older group is never used after a newer one. A frame for one
        /// socket keeps its place: it goes out at once if no broadcast came before it, else it
        /// waits in the socket's stash for the broadcasts queued before it. That is how a
        /// newcomer's welcome, queued when it joined the group, stays ahead of the broadcasts
        /// that follow it and behind none it should not see.
        init(_ entries: [Entry]) {
            nextIndex = entries.count
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

        /// Takes up entries queued while the pass runs (between turns), keeping each socket's
        /// order. A broadcast goes to the sockets of its group this pass has not written yet; the
        /// sockets it has written get it in the next pass, carried there ahead of anything queued
        /// later. A frame for one socket waits in its stash for the broadcasts queued before it,
        /// as in ``init(_:)``, unless something for that socket was carried: then it is carried
        /// too. No later broadcast of this pass can reach such a socket (it was written already
        /// for its group, and a socket is in one group of its session). A group the pass does not
        /// hold (a session's groups rebuilt) is written after everything it does, or carried if
        /// anything was.
        func takeUp(_ entries: [Entry]) {
            for entry in entries {
                let index = nextIndex
                nextIndex += 1
                guard let token = entry.group else {
                    if carriedReaches(entry.outboxes) {
                        carried.append(entry)
                    } else {
                        for outbox in entry.outboxes where outbox.stashOnLoop(index, entry.delivery) { stashed.append(outbox) }
                    }
                    continue
                }
                guard let known = groups.firstIndex(where: { $0.token === token }) else {
                    if carried.isEmpty {
                        // A group the pass does not hold: written after everything it does.
                        groups.append(
                            GroupWork(
                                token: token, outboxes: entry.outboxes,
                                deliveries: [(index, entry.delivery, entry.outboxes.count)]))
                    } else {
                        carried.append(entry)
                    }
                    continue
                }
                // A socket of the group this pass has written already (all of them, for a group it
                // is done with) gets the broadcast in the next pass.
                let written = known < groupIndex ? entry.outboxes.count : known == groupIndex ? socketIndex : 0
                if written > 0 {
                    carried.append(
                        Entry(
                            delivery: entry.delivery, outboxes: Array(entry.outboxes.prefix(written)), group: token,
                            traceSeq: entry.traceSeq))
                }
                if known >= groupIndex, written < entry.outboxes.count {
                    groups[known].deliveries.append((index, entry.delivery, entry.outboxes.count))
                    if entry.outboxes.count > groups[known].outboxes.count { groups[known].outboxes = entry.outboxes }
                }
            }
        }

        /// Whether anything carried to the next pass is for one of these sockets (a frame for
        /// one socket is for one; the search is over the carried sockets, rare and few passes).
        private func carriedReaches(_ outboxes: [Outbox]) -> Bool {
            guard !carried.isEmpty else { return false }
            return outboxes.contains { outbox in
                carried.contains { entry in entry.outboxes.contains { $0 === outbox } }
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
                // A delivery is for the group's first `sockets` sockets (those that joined later,
                // or that a pass written already carried it for, are past them), so the group's
                // sockets fall in runs that get the same deliveries: each run's list and joined
                // frames are built once. Typed with the parameter's labels: an unlabeled array
                // would be converted, by a dynamic cast of each element, at every socket's call.
                var forRun: [(index: Int, delivery: Outbox.Delivery)] = []
                var joined: Outbox.JoinedFrames?
                var runEnd = -1
                while socketIndex < group.outboxes.count {
                    guard budget > 0 else { return false }
                    budget -= 1
                    if socketIndex >= runEnd {
                        let position = socketIndex
                        let mine = deliveries.filter { $0.sockets > position }
                        forRun = mine.map { ($0.index, $0.delivery) }
                        joined = Outbox.JoinedFrames(forRun)
                        runEnd = mine.lazy.map(\.sockets).min() ?? group.outboxes.count
                    }
                    let outbox = group.outboxes[socketIndex]
                    if outbox.deliverOnLoop(forRun, joined: joined) { outbox.flushOnLoop() }
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
