import Foundation
import PodiumCore
import PodiumStore

// The store protocols a test double wraps (see StoreDoubles.swift): a double conforms to one of
// these, implements only what it intercepts, and every other call of that protocol goes straight
// to `base` (the real store), by the extensions below. The store's other protocols are not its
// business: they stay the real store's in ``Stores``.

protocol ForwardingUserStore: UserStore {
    var base: any UserStore { get }
}

protocol ForwardingDeckStore: DeckStore {
    var base: any DeckStore { get }
}

protocol ForwardingStoryboardStore: StoryboardStore {
    var base: any StoryboardStore { get }
}

protocol ForwardingSessionStore: SessionStore {
    var base: any SessionStore { get }
}

protocol ForwardingInteractionStore: InteractionStore {
    var base: any InteractionStore { get }
}

protocol ForwardingNotesAndAttendanceStore: NotesAndAttendanceStore {
    var base: any NotesAndAttendanceStore { get }
}

extension ForwardingUserStore {
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
        try await base.user(tokenHash: tokenHash, now: now)
    }

    func deleteToken(hash: String) async throws {
        try await base.deleteToken(hash: hash)
    }

    func setMember(userId: String, _ isMember: Bool) async throws {
        try await base.setMember(userId: userId, isMember)
    }

    func setPasswordHash(userId: String, _ hash: String) async throws {
        try await base.setPasswordHash(userId: userId, hash)
    }
}

extension ForwardingDeckStore {
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

    func moveFolder(id: String, parentId: String?) async throws {
        try await base.moveFolder(id: id, parentId: parentId)
    }

    func deleteFolder(id: String) async throws {
        try await base.deleteFolder(id: id)
    }

    func insertDeck(_ deck: DeckRecord) async throws {
        try await base.insertDeck(deck)
    }

    func deck(id: String) async throws -> DeckRecord? {
        try await base.deck(id: id)
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

    func decksUsing(sourceHash: String) async throws -> Int {
        try await base.decksUsing(sourceHash: sourceHash)
    }

    func processingDecks() async throws -> [DeckRecord] {
        try await base.processingDecks()
    }
}

extension ForwardingStoryboardStore {
    func insertStoryboard(_ storyboard: StoryboardRecord, content: String) async throws {
        try await base.insertStoryboard(storyboard, content: content)
    }

    func storyboard(id: String) async throws -> StoryboardRecord? {
        try await base.storyboard(id: id)
    }

    func storyboards(userId: String, folderId: String?) async throws -> [StoryboardRecord] {
        try await base.storyboards(userId: userId, folderId: folderId)
    }

    func updateStoryboard(_ storyboard: StoryboardRecord) async throws {
        try await base.updateStoryboard(storyboard)
    }

    func deleteStoryboard(id: String) async throws {
        try await base.deleteStoryboard(id: id)
    }

    func storyboardEditors(storyboardId: String) async throws -> [UserRecord] {
        try await base.storyboardEditors(storyboardId: storyboardId)
    }

    func addStoryboardEditor(storyboardId: String, userId: String) async throws {
        try await base.addStoryboardEditor(storyboardId: storyboardId, userId: userId)
    }

    func removeStoryboardEditor(storyboardId: String, userId: String) async throws {
        try await base.removeStoryboardEditor(storyboardId: storyboardId, userId: userId)
    }

    func appendStoryboardEdits(_ edits: [StoryboardEditRecord], summary: StoryboardSummaryChange) async throws {
        try await base.appendStoryboardEdits(edits, summary: summary)
    }

    func storyboardEdits(storyboardId: String, afterSeq: Int, throughSeq: Int?) async throws -> [StoryboardEditRecord] {
        try await base.storyboardEdits(storyboardId: storyboardId, afterSeq: afterSeq, throughSeq: throughSeq)
    }

    func storyboardShotEdits(storyboardId: String, shotId: String, limit: Int) async throws -> [StoryboardEditRecord] {
        try await base.storyboardShotEdits(storyboardId: storyboardId, shotId: shotId, limit: limit)
    }

    func storyboardEditKeys(storyboardId: String, afterSeq: Int) async throws -> [(key: String, seq: Int)] {
        try await base.storyboardEditKeys(storyboardId: storyboardId, afterSeq: afterSeq)
    }

    func saveStoryboardSnapshot(storyboardId: String, _ snapshot: StoryboardSnapshot, at: Date) async throws {
        try await base.saveStoryboardSnapshot(storyboardId: storyboardId, snapshot, at: at)
    }

    func storyboardSnapshot(storyboardId: String, atOrBefore seq: Int?) async throws -> StoryboardSnapshot? {
        try await base.storyboardSnapshot(storyboardId: storyboardId, atOrBefore: seq)
    }

    func insertStoryboardExport(_ export: StoryboardExportRecord) async throws {
        try await base.insertStoryboardExport(export)
    }

    func storyboardExport(id: String) async throws -> StoryboardExportRecord? {
        try await base.storyboardExport(id: id)
    }

    func storyboardExports(storyboardId: String) async throws -> [StoryboardExportRecord] {
        try await base.storyboardExports(storyboardId: storyboardId)
    }

    func updateStoryboardExport(_ export: StoryboardExportRecord) async throws {
        try await base.updateStoryboardExport(export)
    }
}

extension ForwardingSessionStore {
    func insertSession(_ session: SessionRecord) async throws {
        try await base.insertSession(session)
    }

    func addSessionHost(_ host: SessionHostRecord) async throws -> Bool {
        try await base.addSessionHost(host)
    }

    func isSessionHost(sessionId: String, userId: String) async throws -> Bool {
        try await base.isSessionHost(sessionId: sessionId, userId: userId)
    }

    func isHostOfLiveSession(deckId: String, userId: String) async throws -> Bool {
        try await base.isHostOfLiveSession(deckId: deckId, userId: userId)
    }

    func sessionHosts(sessionId: String) async throws -> [SessionHostRecord] {
        try await base.sessionHosts(sessionId: sessionId)
    }

    func removeSessionHost(sessionId: String, userId: String) async throws -> Bool {
        try await base.removeSessionHost(sessionId: sessionId, userId: userId)
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
    func updateSessionReplay(id: String, replay: ReplayAccess) async throws {
        try await base.updateSessionReplay(id: id, replay: replay)
    }

    func sessions(presenterId: String, before: Date?, limit: Int) async throws -> [SessionRecord] {
        try await base.sessions(presenterId: presenterId, before: before, limit: limit)
    }

    func hasEvent(sessionId: String, ofTypes types: [String]) async throws -> Bool {
        try await base.hasEvent(sessionId: sessionId, ofTypes: types)
    }

    func append(sessionId: String, _ write: CommandWrite, at: Date) async throws {
        try await base.append(sessionId: sessionId, write, at: at)
    }

    func recordedCommands(sessionId: String, limit: Int) async throws -> [(key: String, seq: Int)] {
        try await base.recordedCommands(sessionId: sessionId, limit: limit)
    }

    func events(sessionId: String, afterSeq: Int) async throws -> [StoredEvent] {
        try await base.events(sessionId: sessionId, afterSeq: afterSeq)
    }
}

extension ForwardingInteractionStore {
    func answers(sessionId: String) async throws -> [(pollId: Int, viewerId: String, answer: PollAnswer, at: Date)] {
        try await base.answers(sessionId: sessionId)
    }

    func questions(sessionId: String) async throws -> [AudienceQuestion] {
        try await base.questions(sessionId: sessionId)
    }

    func votes(sessionId: String) async throws -> [(questionId: String, viewerId: String)] {
        try await base.votes(sessionId: sessionId)
    }

    func saveViewer(sessionId: String, _ viewer: ViewerEntry, at: Date) async throws -> ViewerEntry {
        try await base.saveViewer(sessionId: sessionId, viewer, at: at)
    }

    func viewers(sessionId: String) async throws -> [ViewerEntry] {
        try await base.viewers(sessionId: sessionId)
    }

    func audienceRecordSeq(sessionId: String) async throws -> Int {
        try await base.audienceRecordSeq(sessionId: sessionId)
    }

    func audienceRecords(sessionId: String, afterRecordSeq: Int, limit: Int) async throws -> [StoredAudienceRecord] {
        try await base.audienceRecords(sessionId: sessionId, afterRecordSeq: afterRecordSeq, limit: limit)
    }
}

extension ForwardingNotesAndAttendanceStore {
    func saveNote(sessionId: String, viewerId: String, page: Int, text: String, at: Date) async throws {
        try await base.saveNote(sessionId: sessionId, viewerId: viewerId, page: page, text: text, at: at)
    }

    func notes(sessionId: String, viewerId: String) async throws -> [Int: String] {
        try await base.notes(sessionId: sessionId, viewerId: viewerId)
    }

    @discardableResult
    func visitStarted(id: String, sessionId: String, viewerId: String, saving viewer: ViewerEntry?, at: Date)
        async throws -> ViewerEntry?
    {
        try await base.visitStarted(id: id, sessionId: sessionId, viewerId: viewerId, saving: viewer, at: at)
    }

    func attendanceEnded(id: String, at: Date) async throws {
        try await base.attendanceEnded(id: id, at: at)
    }

    func attendance(sessionId: String) async throws -> [(viewerId: String, joinedAt: Date, leftAt: Date?)] {
        try await base.attendance(sessionId: sessionId)
    }
}
