import Foundation
import PodiumCore
import PodiumStore
import Synchronization

/// The real store, except that recording the arrival of one viewer identity waits until the test
/// lets it go: a viewer's join can be caught halfway, while the rest of the server goes on.
final class GatedStore: PodiumStore {
    let base: SQLStore
    let heldViewer: String
    /// Told when the held join reaches the store.
    let arrived: AsyncStream<Void>.Continuation
    private let waiting = Mutex<CheckedContinuation<Void, Never>?>(nil)
    /// While set, looking up a token fails as a broken database would.
    let failingTokenLookups = Atomic<Bool>(false)

    /// Reads of a deck that fail, as a database that has gone away fails, before reads work again.
    let failingDeckReads = Atomic<Int>(0)

    /// While set, reading a session's viewers finds none, as a read just before another node
    /// stored one.
    let staleViewerReads = Atomic<Bool>(false)

    /// While set, the store's health check fails as a database that has gone away fails.
    let failingPings = Atomic<Bool>(false)

    /// While set, the next command's append waits (like the held join) until ``release()``.
    let holdNextAppend = Atomic<Bool>(false)

    struct Unavailable: Error {}

    func ping() async throws {
        if failingPings.load(ordering: .relaxed) { throw Unavailable() }
        try await base.ping()
    }

    init(base: SQLStore, holding viewerId: String, arrived: AsyncStream<Void>.Continuation) {
        self.base = base
        self.heldViewer = viewerId
        self.arrived = arrived
    }

    /// Waits here until ``release()`` when ``holdNextAppend`` is set (a storyboard's edits are held so).
    func holdIfAsked() async {
        guard holdNextAppend.exchange(false, ordering: .relaxed) else { return }
        await withCheckedContinuation { continuation in
            waiting.withLock { $0 = continuation }
            arrived.yield()
        }
    }

    /// Lets the held call go on.
    func release() {
        waiting.withLock { continuation in
            continuation?.resume()
            continuation = nil
        }
    }

    func visitStarted(id: String, sessionId: String, viewerId: String, saving viewer: ViewerEntry?, at: Date)
        async throws -> ViewerEntry?
    {
        if viewerId == heldViewer {
            await withCheckedContinuation { continuation in
                waiting.withLock { $0 = continuation }
                arrived.yield()
            }
        }
        return try await base.visitStarted(id: id, sessionId: sessionId, viewerId: viewerId, saving: viewer, at: at)
    }

    // Everything else goes straight to the real store.

    func userCount() async throws -> Int {
        try await base.userCount()
    }

    func insertUser(_ user: UserRecord) async throws {
        try await base.insertUser(user)
    }

    func user(email: String) async throws -> UserRecord? {
        try await base.user(email: email)
    }

    func users() async throws -> [UserRecord] {
        try await base.users()
    }

    func user(id: String) async throws -> UserRecord? {
        try await base.user(id: id)
    }

    func insertToken(hash: String, userId: String, expiresAt: Date) async throws {
        try await base.insertToken(hash: hash, userId: userId, expiresAt: expiresAt)
    }

    func user(tokenHash: String, now: Date) async throws -> UserRecord? {
        if failingTokenLookups.load(ordering: .relaxed) { throw Unavailable() }
        return try await base.user(tokenHash: tokenHash, now: now)
    }

    func deleteToken(hash: String) async throws {
        try await base.deleteToken(hash: hash)
    }

    func folders(ownerId: String) async throws -> [FolderRecord] {
        try await base.folders(ownerId: ownerId)
    }

    func folder(id: String) async throws -> FolderRecord? {
        try await base.folder(id: id)
    }

    func insertFolder(_ folder: FolderRecord) async throws {
        try await base.insertFolder(folder)
    }

    func renameFolder(id: String, name: String) async throws {
        try await base.renameFolder(id: id, name: name)
    }

    func deleteFolder(id: String) async throws {
        try await base.deleteFolder(id: id)
    }

    func insertDeck(_ deck: DeckRecord) async throws {
        try await base.insertDeck(deck)
    }

    func deck(id: String) async throws -> DeckRecord? {
        if failingDeckReads.wrappingSubtract(1, ordering: .relaxed).oldValue > 0 { throw Unavailable() }
        return try await base.deck(id: id)
    }

    func decks(ownerId: String, folderId: String?) async throws -> [DeckRecord] {
        try await base.decks(ownerId: ownerId, folderId: folderId)
    }

    func updateDeck(_ deck: DeckRecord) async throws {
        try await base.updateDeck(deck)
    }

    func completeDeck(_ deck: DeckRecord, pages: [PageRecord]) async throws {
        try await base.completeDeck(deck, pages: pages)
    }

    func pages(deckId: String) async throws -> [PageRecord] {
        try await base.pages(deckId: deckId)
    }

    func deleteDeck(id: String) async throws {
        try await base.deleteDeck(id: id)
    }

    func processingDecks() async throws -> [DeckRecord] {
        try await base.processingDecks()
    }

    func decksUsing(sourceHash: String) async throws -> Int {
        try await base.decksUsing(sourceHash: sourceHash)
    }

    func insertSession(_ session: SessionRecord) async throws {
        try await base.insertSession(session)
    }

    func session(code: String) async throws -> SessionRecord? {
        try await base.session(code: code)
    }

    func session(id: String) async throws -> SessionRecord? {
        try await base.session(id: id)
    }

    func liveSessions() async throws -> [SessionRecord] {
        try await base.liveSessions()
    }

    func markSessionEnded(id: String, at: Date) async throws {
        try await base.markSessionEnded(id: id, at: at)
    }

    func updateSessionAccess(id: String, passcode: String?, passcodeHash: String?, unlisted: Bool) async throws {
        try await base.updateSessionAccess(id: id, passcode: passcode, passcodeHash: passcodeHash, unlisted: unlisted)
    }

    func sessions(presenterId: String, before: Date?, limit: Int) async throws -> [SessionRecord] {
        try await base.sessions(presenterId: presenterId, before: before, limit: limit)
    }

    func hasEvent(sessionId: String, ofTypes types: [String]) async throws -> Bool {
        try await base.hasEvent(sessionId: sessionId, ofTypes: types)
    }

    func append(sessionId: String, _ write: CommandWrite, at: Date) async throws {
        if holdNextAppend.exchange(false, ordering: .relaxed) {
            await withCheckedContinuation { continuation in
                waiting.withLock { $0 = continuation }
                arrived.yield()
            }
        }
        try await base.append(sessionId: sessionId, write, at: at)
    }

    func recordedCommands(sessionId: String, limit: Int) async throws -> [(key: String, seq: Int)] {
        try await base.recordedCommands(sessionId: sessionId, limit: limit)
    }

    func events(sessionId: String, afterSeq: Int) async throws -> [StoredEvent] {
        try await base.events(sessionId: sessionId, afterSeq: afterSeq)
    }

    /// How many times a session's whole answers, questions, votes or viewers were read.
    let wholeRecordReads = Atomic<Int>(0)

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

    func audienceRecordSeq(sessionId: String) async throws -> Int {
        try await base.audienceRecordSeq(sessionId: sessionId)
    }

    func audienceRecords(sessionId: String, afterRecordSeq: Int, limit: Int) async throws -> [StoredAudienceRecord] {
        try await base.audienceRecords(sessionId: sessionId, afterRecordSeq: afterRecordSeq, limit: limit)
    }

    func saveViewer(sessionId: String, _ viewer: ViewerEntry, at: Date) async throws -> ViewerEntry {
        try await base.saveViewer(sessionId: sessionId, viewer, at: at)
    }

    func viewers(sessionId: String) async throws -> [ViewerEntry] {
        wholeRecordReads.add(1, ordering: .relaxed)
        if staleViewerReads.load(ordering: .relaxed) { return [] }
        return try await base.viewers(sessionId: sessionId)
    }

    func saveNote(sessionId: String, viewerId: String, page: Int, text: String, at: Date) async throws {
        try await base.saveNote(sessionId: sessionId, viewerId: viewerId, page: page, text: text, at: at)
    }

    func notes(sessionId: String, viewerId: String) async throws -> [Int: String] {
        try await base.notes(sessionId: sessionId, viewerId: viewerId)
    }

    func attendanceEnded(id: String, at: Date) async throws {
        try await base.attendanceEnded(id: id, at: at)
    }

    func attendance(sessionId: String) async throws -> [(viewerId: String, joinedAt: Date, leftAt: Date?)] {
        try await base.attendance(sessionId: sessionId)
    }

    func bankQuestions(deckId: String) async throws -> [BankQuestion] {
        try await base.bankQuestions(deckId: deckId)
    }

    func saveBankQuestion(_ question: BankQuestion) async throws {
        try await base.saveBankQuestion(question)
    }

    func deleteBankQuestion(id: String) async throws {
        try await base.deleteBankQuestion(id: id)
    }
}
