import Foundation
import Logging
import PodiumCore
import PodiumStore
import Synchronization
import Testing

@testable import PodiumServer

/// The live engine (``LiveLog``) driving a document of its own: a toy tally that conforms to
/// ``LiveDocument`` in a few lines, with a toy store and a toy owner. Whatever a session does
/// through the engine, any realtime document gets: one decision stored once, sent after it is
/// stored, repeated ids answered as before, conflicts caught up and decided again, catch-up from
/// the store, and refusals that change nothing.
@Suite("Live log engine", .timeLimit(.minutes(1)))
struct LiveLogTests {
    /// A running total people add to.
    struct Tally: LiveDocument {
        enum Command: Sendable {
            case add(Int)
            /// Decided, but its event cannot be encoded.
            case unsendable
            /// Refused by a rule.
            case negative
        }

        /// An event, as decided and as stored: the last of a command's carries its key.
        struct Event: Sendable, Equatable {
            var seq: Int
            var amount: Int
            var key: String?
            var sendable = true
        }

        struct Decision: LiveDecision {
            var events: [Event] = []
            var ackSeq: Int
            var actions: [String] = []
            var changesSomething: Bool { !events.isEmpty }
            func storedEvents(at time: Date) -> [Event] { events }
        }

        enum Failure: LiveFailure, Equatable {
            case unencodable, unavailable, contended, negative
        }

        var seq = 0
        var total = 0
        /// Changed outside the log (like a session's arrivals).
        var arrivals = 0
        var recentCommands = RecentCommands(capacity: 16)

        func commandKey(_ id: String, from sender: String) -> String { "\(sender)/\(id)" }

        mutating func rememberCommand(_ key: String, seq: Int) { recentCommands.remember(key, seq: seq) }

        mutating func take(_ command: Command, id: String, from sender: String, at time: Double) throws(Failure) -> Decision {
            switch command {
            case .negative: throw .negative
            case .add(0): return Decision(ackSeq: seq)
            case .add(let amount): return apply(Event(seq: seq + 1, amount: amount, key: commandKey(id, from: sender)))
            case .unsendable: return apply(Event(seq: seq + 1, amount: 1, key: commandKey(id, from: sender), sendable: false))
            }
        }

        private mutating func apply(_ event: Event) -> Decision {
            seq = event.seq
            total += event.amount
            return Decision(events: [event], ackSeq: seq, actions: ["total \(total)"])
        }

        mutating func catchUp(with stored: Event) throws(Failure) -> [String] {
            guard stored.seq == seq + 1 else { throw .unavailable }
            if let key = stored.key { recentCommands.remember(key, seq: stored.seq) }
            return apply(stored).actions
        }

        mutating func carryOver(from current: Tally) { arrivals = current.arrivals }
    }

    /// One table of rows shared by every "node", as a store would be.
    final class TallyStore: LiveLogStore, Sendable {
        typealias Document = Tally
        struct Rows {
            var events: [Tally.Event] = []
            var appends = 0
            var failing = false
        }
        let rows = Mutex(Rows())
        /// Runs while an append is in flight, before it is written (another node, an arrival).
        let during = Mutex<(@Sendable () async -> Void)?>(nil)

        func append(_ decision: Tally.Decision, after seq: Int, at time: Date) async throws {
            if let during = during.withLock({ $0 }) { await during() }
            try rows.withLock { rows in
                rows.appends += 1
                if rows.failing { throw CancellationError() }
                guard rows.events.count == seq else { throw SeqConflict(sessionId: "tally", seq: seq + 1) }
                rows.events += decision.events
            }
        }

        func events(after seq: Int) async throws -> [Tally.Event] {
            try rows.withLock { rows in
                if rows.failing { throw CancellationError() }
                return Array(rows.events.dropFirst(seq))
            }
        }

        /// Another node's append, straight into the table.
        func appendElsewhere(_ amount: Int, key: String? = nil) {
            rows.withLock { $0.events.append(Tally.Event(seq: $0.events.count + 1, amount: amount, key: key)) }
        }
    }

    /// The owner: what it sends, in order, as text.
    actor Node: LiveLogOwner {
        typealias Document = Tally
        typealias EncodedEvent = String

        let log: LiveLog<Tally>
        private(set) var sent: [String] = []

        init(store: TallyStore, historyLimit: Int? = nil, appendAttempts: Int = 12) {
            log = LiveLog(
                document: Tally(), historyLimit: historyLimit, store: store, name: "tally", appendAttempts: appendAttempts,
                now: { Date(timeIntervalSince1970: 0) }, logger: Logger(label: "test.livelog"))
        }

        struct Unsendable: Error {}

        func frames(for event: Tally.Event) throws -> String {
            guard event.sendable else { throw Unsendable() }
            return "event \(event.seq) +\(event.amount)"
        }

        func frames(forStored stored: Tally.Event) throws -> String { try frames(for: stored) }

        func deliver(_ decision: Tally.Decision, frames: [String]) async {
            sent += frames + decision.actions
        }

        func deliver(caughtUp stored: Tally.Event, frames: String?, actions: [String]) async {
            sent += ["caught up: " + (frames ?? "-")] + actions
        }

        func announce(_ decision: Tally.Decision) async { sent.append("hint \(decision.ackSeq)") }

        func perform(_ command: Tally.Command, id: String, from sender: String = "ann") async throws(Tally.Failure) -> Int {
            try await log.perform(command, id: id, from: sender, for: self)
        }

        func catchUp(to seq: Int?) async { await log.catchUp(to: seq, for: self) }

        func arrive() { log.document.arrivals += 1 }

        var document: Tally { log.document }
        func stored(after seq: Int) -> [Int]? { log.stored(after: seq, limit: 100).map { $0.map(\.seq) } }
    }

    @Test func aCommandIsStoredThenSentThenHintedAndARepeatedIdCountsOnce() async throws {
        let store = TallyStore()
        let node = Node(store: store)
        #expect(try await node.perform(.add(5), id: "a") == 1)
        #expect(try await node.perform(.add(2), id: "b") == 2)
        // The same id again, from the same sender: answered as then, nothing stored or sent.
        #expect(try await node.perform(.add(5), id: "a") == 1)
        // Another sender may choose the same id.
        #expect(try await node.perform(.add(1), id: "a", from: "bob") == 3)
        // Nothing to store: acknowledged with the current seq, nothing sent.
        #expect(try await node.perform(.add(0), id: "c") == 3)
        #expect(
            await node.sent == [
                "event 1 +5", "total 5", "hint 1", "event 2 +2", "total 7", "hint 2", "event 3 +1", "total 8", "hint 3",
            ])
        #expect(store.rows.withLock { $0.events.map(\.amount) } == [5, 2, 1])
        #expect(store.rows.withLock { $0.appends } == 3)
        #expect(await node.document.total == 8)
        #expect(await node.stored(after: 1) == [2, 3])
    }

    @Test func anotherNodeFirstMeansCatchUpThenDecideAgain() async throws {
        let store = TallyStore()
        let node = Node(store: store)
        _ = try await node.perform(.add(1), id: "a")
        // Another node stores seq 2 (and the command id "ann/b") meanwhile; this node has no hint.
        store.appendElsewhere(10)
        store.appendElsewhere(100, key: "ann/b")
        #expect(try await node.perform(.add(3), id: "c") == 4)
        #expect(
            await node.sent == [
                "event 1 +1", "total 1", "hint 1",
                "caught up: event 2 +10", "total 11", "caught up: event 3 +100", "total 111",
                "event 4 +3", "total 114", "hint 4",
            ])
        // The other node's command id came with its event: a retry here counts once.
        #expect(try await node.perform(.add(100), id: "b") == 3)
        #expect(await node.document.total == 114)
    }

    @Test func aNodeThatKeepsLosingGivesUpWithContended() async throws {
        let store = TallyStore()
        let node = Node(store: store, appendAttempts: 3)
        store.during.withLock { $0 = { store.appendElsewhere(1) } }
        await #expect(throws: Tally.Failure.contended) { try await node.perform(.add(7), id: "a") }
        #expect(store.rows.withLock { $0.appends } == 3)
        // It caught up each time, and never stored its own.
        #expect(await node.document.total == 3)
        #expect(store.rows.withLock { $0.events.map(\.amount) } == [1, 1, 1])
    }

    @Test func refusalsChangeNothing() async throws {
        let store = TallyStore()
        let node = Node(store: store)
        _ = try await node.perform(.add(1), id: "a")
        await #expect(throws: Tally.Failure.negative) { try await node.perform(.negative, id: "b") }
        // An event that could not be sent is refused before it is stored.
        await #expect(throws: Tally.Failure.unencodable) { try await node.perform(.unsendable, id: "c") }
        store.rows.withLock { $0.failing = true }
        await #expect(throws: Tally.Failure.unavailable) { try await node.perform(.add(2), id: "d") }
        store.rows.withLock { $0.failing = false }
        #expect(store.rows.withLock { $0.events.count } == 1)
        #expect(await node.document.seq == 1)
        #expect(await node.document.total == 1)
        #expect(await node.sent == ["event 1 +1", "total 1", "hint 1"])
        // Refused ids are not remembered: sent again, they are decided again.
        #expect(try await node.perform(.add(2), id: "d") == 2)
    }

    @Test func whatChangesOutsideTheLogDuringAnAppendIsKept() async throws {
        let store = TallyStore()
        let node = Node(store: store)
        // Someone arrives while the command is being stored: the decision was taken on a copy
        // from before, and the arrival is kept when it is adopted.
        store.during.withLock { $0 = { await node.arrive() } }
        _ = try await node.perform(.add(1), id: "a")
        #expect(await node.document.arrivals == 1)
        #expect(await node.document.total == 1)
    }

    @Test func catchUpReadsTheStoreAndSendsEachEventOnce() async throws {
        let store = TallyStore()
        let node = Node(store: store, historyLimit: 4)
        for amount in 1...7 { store.appendElsewhere(amount) }
        await node.catchUp(to: 7)
        // A hint for what it has is nothing to read.
        await node.catchUp(to: 3)
        #expect(await node.document.seq == 7)
        #expect(await node.sent.filter { $0.hasPrefix("caught up") }.count == 7)
        // The history keeps the newest events (trimmed back to 4 once it held 6).
        #expect(await node.stored(after: 1) == nil)
        #expect(await node.stored(after: 4) == [5, 6, 7])
        #expect(await node.stored(after: 7) == [])
    }
}
