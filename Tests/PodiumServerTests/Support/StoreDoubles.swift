import Foundation
import PodiumCore
import PodiumStore
import Synchronization

// Test doubles of the store, one protocol each: a test puts one into ``Stores`` in place of the
// real store's part (`stores.sessions = HeldAppends(stores.sessions, gate: gate)`) and every other
// part stays the real store. Each implements what it intercepts; the rest of its protocol goes to
// `base` (StoreForwarding.swift).

/// A failure of the database, as one that has gone away fails.
struct StoreDoubleFailure: Error {}

/// Holds a call to the store until the test lets it go (``release()``): a viewer's join, a
/// command's append or a storyboard's edits caught halfway, while the rest of the server goes on.
final class StoreGate: Sendable {
    /// Told when a held call reaches the store.
    let arrived: AsyncStream<Void>.Continuation
    private let waiting = Mutex<CheckedContinuation<Void, Never>?>(nil)
    /// While set, the next append (a session's command, a storyboard's edits) waits until ``release()``.
    let holdNextAppend = Atomic<Bool>(false)

    init(arrived: AsyncStream<Void>.Continuation) {
        self.arrived = arrived
    }

    /// Waits here until ``release()``.
    func hold() async {
        await withCheckedContinuation { continuation in
            waiting.withLock { $0 = continuation }
            arrived.yield()
        }
    }

    /// Waits here until ``release()`` when ``holdNextAppend`` is set.
    func holdIfAsked() async {
        guard holdNextAppend.exchange(false, ordering: .relaxed) else { return }
        await hold()
    }

    /// Lets the held call go on.
    func release() {
        waiting.withLock { continuation in
            continuation?.resume()
            continuation = nil
        }
    }
}

/// Sessions whose next command's append waits at the gate when the test asks
/// (``StoreGate/holdNextAppend``).
struct HeldAppends: ForwardingSessionStore {
    let base: any SessionStore
    let gate: StoreGate

    init(_ base: any SessionStore, gate: StoreGate) {
        self.base = base
        self.gate = gate
    }

    func append(sessionId: String, _ write: CommandWrite, at: Date) async throws {
        await gate.holdIfAsked()
        try await base.append(sessionId: sessionId, write, at: at)
    }
}

/// Recording the arrival of one viewer identity waits at the gate: that viewer's join is caught
/// halfway.
struct HeldVisits: ForwardingNotesAndAttendanceStore {
    let base: any NotesAndAttendanceStore
    let heldViewer: String
    let gate: StoreGate

    init(_ base: any NotesAndAttendanceStore, holding viewerId: String, gate: StoreGate) {
        self.base = base
        self.heldViewer = viewerId
        self.gate = gate
    }

    func visitStarted(id: String, sessionId: String, viewerId: String, saving viewer: ViewerEntry?, at: Date)
        async throws -> ViewerEntry?
    {
        if viewerId == heldViewer { await gate.hold() }
        return try await base.visitStarted(id: id, sessionId: sessionId, viewerId: viewerId, saving: viewer, at: at)
    }
}

/// The audience's records, with their whole reads counted; and reads of the viewers that find
/// none while the test asks.
final class CountedAudienceReads: ForwardingInteractionStore {
    let base: any InteractionStore
    /// How many times a session's whole answers, questions, votes or viewers were read.
    let wholeRecordReads = Atomic<Int>(0)
    /// While set, reading a session's viewers finds none, as a read just before another node
    /// stored one.
    let staleViewerReads = Atomic<Bool>(false)

    init(_ base: any InteractionStore) {
        self.base = base
    }

    func answers(sessionId: String) async throws -> [(pollId: Int, viewerId: String, answer: PollAnswer, at: Date)] {
        wholeRecordReads.add(1, ordering: .relaxed)
        return try await base.answers(sessionId: sessionId)
    }

    func questions(sessionId: String) async throws -> [AudienceQuestion] {
        wholeRecordReads.add(1, ordering: .relaxed)
        return try await base.questions(sessionId: sessionId)
    }

    func votes(sessionId: String) async throws -> [(questionId: String, viewerId: String)] {
        wholeRecordReads.add(1, ordering: .relaxed)
        return try await base.votes(sessionId: sessionId)
    }

    func viewers(sessionId: String) async throws -> [ViewerEntry] {
        wholeRecordReads.add(1, ordering: .relaxed)
        if staleViewerReads.load(ordering: .relaxed) { return [] }
        return try await base.viewers(sessionId: sessionId)
    }
}

/// Accounts whose token lookups fail while the test asks, as a broken database fails them.
final class FailingTokenLookups: ForwardingUserStore {
    let base: any UserStore
    let failing = Atomic<Bool>(false)

    init(_ base: any UserStore) {
        self.base = base
    }

    func user(tokenHash: String, now: Date) async throws -> UserRecord? {
        if failing.load(ordering: .relaxed) { throw StoreDoubleFailure() }
        return try await base.user(tokenHash: tokenHash, now: now)
    }
}

/// The library, whose next reads of a deck fail, as a database that has gone away fails them,
/// before reads work again.
final class FailingDeckReads: ForwardingDeckStore {
    let base: any DeckStore
    /// How many reads of a deck fail from now.
    let failures = Atomic<Int>(0)

    init(_ base: any DeckStore) {
        self.base = base
    }

    func deck(id: String) async throws -> DeckRecord? {
        if failures.wrappingSubtract(1, ordering: .relaxed).oldValue > 0 { throw StoreDoubleFailure() }
        return try await base.deck(id: id)
    }
}

/// The store's health check, failing while the test asks, as a database that has gone away fails it.
final class FailingPings: StoreHealth {
    let base: any StoreHealth
    let failing = Atomic<Bool>(false)

    init(_ base: any StoreHealth) {
        self.base = base
    }

    func ping() async throws {
        if failing.load(ordering: .relaxed) { throw StoreDoubleFailure() }
        try await base.ping()
    }
}

/// Storyboards whose next edits' append waits at the gate when the test asks
/// (``StoreGate/holdNextAppend``).
struct HeldStoryboardEdits: ForwardingStoryboardStore {
    let base: any StoryboardStore
    let gate: StoreGate

    init(_ base: any StoryboardStore, gate: StoreGate) {
        self.base = base
        self.gate = gate
    }

    func appendStoryboardEdits(_ edits: [StoryboardEditRecord], summary: StoryboardSummaryChange) async throws {
        await gate.holdIfAsked()
        try await base.appendStoryboardEdits(edits, summary: summary)
    }
}

/// Storyboards whose edits lose to rival nodes: while ``rivalAppends(_:)``'s count is above 0,
/// each append finds another node's edit stored first at its seq (a `renumberShots`, which always
/// applies), as when other nodes keep winning.
final class RivalStoryboards: ForwardingStoryboardStore {
    let base: any StoryboardStore
    private let rivals = Mutex<Int>(0)

    init(_ base: any StoryboardStore) {
        self.base = base
    }

    /// The next `count` appends each lose to a rival's edit.
    func rivalAppends(_ count: Int) {
        rivals.withLock { $0 = count }
    }

    func appendStoryboardEdits(_ edits: [StoryboardEditRecord], summary: StoryboardSummaryChange) async throws {
        let rival = rivals.withLock { left in
            guard left > 0 else { return false }
            left -= 1
            return true
        }
        if rival, let first = edits.first {
            try await base.appendStoryboardEdits(
                [
                    StoryboardEditRecord(
                        storyboardId: first.storyboardId, seq: first.seq, authorId: first.authorId, commandKey: nil,
                        shotId: nil, edit: #"{"op":"renumberShots"}"#, createdAt: first.createdAt)
                ], summary: summary)
        }
        try await base.appendStoryboardEdits(edits, summary: summary)
    }
}
