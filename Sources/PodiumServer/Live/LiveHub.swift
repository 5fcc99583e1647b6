import Foundation
import Logging
import NIOCore
import PodiumCore
import PodiumStore
import PodiumWire
import ServiceLifecycle
import Synchronization

/// All live sessions of this node and the lobby that lists them.
///
/// Sessions are loaded from the store on first use (and all live ones at start, so a restarted
/// server serves them again at once). It is this node's end of the ``SessionBus``: hints of
/// events other nodes stored reach the session here, and every node's presence makes the lobby.
/// It is a `Service`: on graceful shutdown it tells every socket to reconnect, so clients resume
/// on the next server with `lastSeq`.
actor LiveHub: Service, SessionBusNode {
    /// A live session of the lobby: as it is listed (PodiumWire's `LobbySession`), and whether it
    /// is left out of the published list (joined by code or link only).
    struct LobbyEntry: Sendable, Equatable {
        var session: LobbySession
        var unlisted = false
    }

    /// Who may find and join a session, as changed since its record was loaded: a hello checks
    /// the passcode hash here (``LiveConnection``), the lobby leaves unlisted sessions out.
    /// A change on another node arrives as a ``SessionNote`` (`access`): this node re-reads the record.
    final class AccessBook: Sendable {
        struct Access: Sendable, Equatable {
            var passcodeHash: String?
            var unlisted: Bool
        }
        private let changed = Mutex<[String: Access]>([:])

        /// The session's current access: as changed, else as its record says.
        func access(of record: SessionRecord) -> Access {
            changed.withLock { $0[record.id] } ?? Access(passcodeHash: record.passcodeHash, unlisted: record.unlisted)
        }

        func set(_ access: Access, for sessionId: String) {
            changed.withLock { $0[sessionId] = access }
        }
    }

    private let stores: LiveStores
    private let now: @Sendable () -> Date
    private let logger: Logger
    /// The sessions this node serves, by code: changed only here, on the hub, and read by a hello
    /// without a hop to the hub (``servedSession(code:)``).
    private let served = Mutex<[String: LiveSession]>([:])
    private var sessions: [String: LiveSession] {
        get { served.withLock { $0 } }
        set { served.withLock { $0 = newValue } }
    }
    private var loading: [String: Task<LiveSession?, any Error>] = [:]
    private var lobby: [String: LobbyEntry] = [:]
    /// Viewers of each listed session by node, as the bus last told.
    private var viewersByNode: [String: [String: Int]] = [:]
    private var lobbyOutboxes: [ObjectIdentifier: Outbox] = [:]
    private let bus: any SessionBus
    public nonisolated let nodeName: String
    /// Passcodes and listing changed while sessions are live.
    nonisolated let access = AccessBook()
    /// Who may host a session besides its presenter (co-hosts).
    nonisolated var hosts: SessionHosts { SessionHosts(store: stores.sessions) }

    init(
        stores: LiveStores, bus: any SessionBus, node: String = IDs.make("n"), now: @escaping @Sendable () -> Date,
        logger: Logger
    ) {
        self.stores = stores
        self.bus = bus
        self.nodeName = node
        self.now = now
        self.logger = logger
    }

    func run() async throws {
        await bus.subscribe(self)
        _ = await cancelWhenGracefulShutdown {
            await retryingUntilItAnswers("load the live sessions", logger: self.logger) { try await self.loadLiveSessions() }
        }
        try? await gracefulShutdown()
        await drain()
    }

    /// Set by ``drain()``: a server shutting down sends newcomers away too. Read without a hop to
    /// the hub, as ``servedSession(code:)``.
    private let draining = Atomic<Bool>(false)
    nonisolated var isDraining: Bool { draining.load(ordering: .acquiring) }

    /// Tells every socket to reconnect and gives the writers a moment to send that.
    func drain() async {
        draining.store(true, ordering: .releasing)
        logger.info("telling live clients to reconnect")
        for session in sessions.values { await session.closeAll(.shutdown) }
        for outbox in lobbyOutboxes.values { outbox.close(.shutdown) }
        // Bounded: shutdown must not wait on a client that stopped reading.
        try? await Task.sleep(for: .milliseconds(300))
    }

    /// Loads every live session, so clients of a restarted server resume at once.
    func loadLiveSessions() async throws {
        for record in try await stores.sessions.liveSessions() {
            do {
                _ = try await session(code: record.code)
            } catch {
                logger.error("could not restore session \(record.code): \(error)")
            }
        }
    }

    /// The session with this code when this node serves it already (what ``session(code:)``
    /// returns without loading), read without a hop to the hub. Every hello looks its session up,
    /// and a hall arriving at once took its turns at the hub for it, one hello after another (#42).
    nonisolated func servedSession(code: String) -> LiveSession? {
        served.withLock { $0[code] }
    }

    /// The session with this code (live, or the last ended one), loading it if needed.
    func session(code: String) async throws -> LiveSession? {
        if let session = sessions[code] { return session }
        if let task = loading[code] { return try await task.value }
        let task = Task { try await self.load(code: code) }
        loading[code] = task
        defer { loading[code] = nil }
        let session = try await task.value
        if let session { sessions[code] = session }
        return session
    }

    /// A session was just created: serve it and list it.
    func started(_ record: SessionRecord) async throws {
        if let cached = sessions[record.code], cached.record.id != record.id {
            // The code belonged to an ended session; it now names the new one.
            sessions[record.code] = nil
        }
        if let session = try await session(code: record.code) { await session.announcePresence() }
    }

    private func load(code: String) async throws -> LiveSession? {
        guard let record = try await stores.sessions.session(code: code) else { return nil }
        let presenter = try await stores.users.user(id: record.presenterId)
        let info: SessionInfo
        if record.isRoom {
            // A room's decks arrive with its presenters; they are in its events.
            info = SessionInfo(
                id: record.id, code: record.code, title: record.title ?? "Room", presenter: presenter?.name ?? "Moderator",
                pageCount: 0, allowDownload: record.allowDownload, hasPasscode: record.passcodeHash != nil, pages: [],
                kind: .room, startedAt: record.createdAt.timeIntervalSince1970)
        } else if record.deckId == nil {
            // A session needs no deck to exist: polls and questions work, the stage is empty.
            info = SessionInfo(
                id: record.id, code: record.code, title: record.title ?? "Session", presenter: presenter?.name ?? "Presenter",
                pageCount: 0, allowDownload: record.allowDownload, hasPasscode: record.passcodeHash != nil, pages: [],
                startedAt: record.createdAt.timeIntervalSince1970)
        } else {
            guard let deckId = record.deckId, let deck = try await stores.decks.deck(id: deckId) else { return nil }
            let pages = try await stores.decks.pages(deckId: deck.id)
            info = SessionInfo(
                id: record.id, code: record.code, title: deck.title, presenter: presenter?.name ?? "Presenter",
                pageCount: pages.count, allowDownload: record.allowDownload, hasPasscode: record.passcodeHash != nil,
                pages: pages.map(DeckResponse.pageInfo), startedAt: record.createdAt.timeIntervalSince1970)
        }
        // The audience's records before the events (see `Restored.load`).
        let restored = try await LiveSession.Restored.load(from: stores, sessionId: record.id)
        let history = try await stores.sessions.events(sessionId: record.id, afterSeq: 0)
        let session = try LiveSession(
            record: record, info: info, history: history, stores: stores, restored: restored, bus: bus, node: nodeName,
            now: now, logger: logger)
        if await session.isEnded, record.endedAt == nil {
            // Crashed between storing `ended` and flagging the row: finish the job.
            try await stores.sessions.markSessionEnded(id: record.id, at: now())
        } else if record.endedAt == nil {
            let current = access.access(of: record)
            lobby[code] = LobbyEntry(
                session: LobbySession(
                    code: code, title: info.title, presenter: info.presenter, viewers: 0,
                    hasPasscode: current.passcodeHash != nil, passcode: current.passcodeHash != nil,
                    startedAt: record.createdAt, kind: info.kind),
                unlisted: current.unlisted)
            publishLobby()
        }
        return session
    }

    /// Another node stored events of a session this node may be serving.
    public func appended(_ hint: AppendedHint) async {
        // A storyboard's hint is the StoryboardHub's (subscribed beside this hub).
        guard hint.kind == .session, let session = sessions[hint.code], session.record.id == hint.sessionId else { return }
        await session.catchUp(to: hint.seq)
        PodiumMetrics.shared.hintLag.recordDuration(since: hint.sentAt, now: Date())
    }

    /// Another node's note about a session this node may be serving.
    public func note(_ note: SessionNote) async {
        guard note.document == .session, let session = sessions[note.code], session.record.id == note.sessionId else {
            return
        }
        switch note.kind {
        case .records:
            await session.reloadRecords()
        case .access:
            do {
                guard let record = try await stores.sessions.session(id: note.sessionId) else { return }
                applyAccess(record)
                await session.recheckHosts(hosts)
            } catch {
                logger.error("could not read the access of session \(note.code): \(error)")
            }
        case .ephemeral(let key, let frame):
            await session.relayed(key: key, frame: frame)
        }
    }

    /// Every live session this node serves catches up with the store: after the bus reconnected
    /// (hints may have been lost meanwhile), and periodically.
    public func resynchronize(records: Bool) async {
        // Side by side: a session whose catch-up waits (its command gate held by a slow append)
        // must not hold back the others.
        await withTaskGroup(of: Void.self) { group in
            for session in sessions.values {
                group.addTask {
                    guard await !session.isEnded else { return }
                    // The events first (a lost hint), then the audience's records after this
                    // node's record seq (a lost note): both one cheap read when nothing is new.
                    await session.catchUp()
                    if records { await session.reloadRecords() }
                }
            }
        }
    }

    /// This node's open sockets (live and lobby) and the live sessions it serves, for the metrics.
    func gauges() async -> (sockets: Int, liveSessions: Int) {
        var sockets = lobbyOutboxes.count
        var live = 0
        for session in sessions.values {
            sockets += await session.fanOut.members.count
            if await !session.isEnded { live += 1 }
        }
        return (sockets, live)
    }

    /// A node's viewers of a session changed, or the session ended: the lobby counts every node's.
    public func presence(_ update: PresenceUpdate) async {
        guard update.live else {
            lobby[update.code] = nil
            viewersByNode[update.code] = nil
            publishLobby()
            return
        }
        if lobby[update.code] == nil {
            // A session started on another node: load it to list it (and serve it here too).
            if let cached = sessions[update.code], cached.record.id != update.sessionId { sessions[update.code] = nil }
            _ = try? await session(code: update.code)
        }
        guard lobby[update.code] != nil else { return }
        viewersByNode[update.code, default: [:]][update.node] = update.viewers
        lobby[update.code]?.session.viewers = viewersByNode[update.code]?.values.reduce(0, +) ?? 0
        publishLobby()
    }

    /// The number of connected viewers of a live session.
    func viewerCount(code: String) -> Int? { lobby[code]?.session.viewers }

    /// The listed live sessions, newest first: what the lobby publishes.
    func lobbyEntries() -> [LobbySession] {
        lobby.values.filter { !$0.unlisted }.map(\.session).sorted { $0.startedAt > $1.startedAt }
    }

    /// A session's passcode or listing changed (see ``AccessBook``): hellos check the new
    /// passcode at once, and the lobby shows the lock, or the session, or not.
    func accessChanged(_ record: SessionRecord) async {
        applyAccess(record)
        await bus.note(SessionNote(node: nodeName, sessionId: record.id, code: record.code, kind: .access))
    }

    /// A session's co-hosts changed: the sockets of a host taken off it close here and on every
    /// node (the same note as an access change), and their hellos are refused from now on.
    func hostsChanged(_ record: SessionRecord) async {
        await sessions[record.code]?.recheckHosts(hosts)
        await bus.note(SessionNote(node: nodeName, sessionId: record.id, code: record.code, kind: .access))
    }

    private func applyAccess(_ record: SessionRecord) {
        let access = AccessBook.Access(passcodeHash: record.passcodeHash, unlisted: record.unlisted)
        self.access.set(access, for: record.id)
        guard lobby[record.code] != nil else { return }
        lobby[record.code]?.session.hasPasscode = access.passcodeHash != nil
        lobby[record.code]?.session.passcode = access.passcodeHash != nil
        lobby[record.code]?.unlisted = access.unlisted
        publishLobby()
    }

    func subscribeLobby(_ outbox: Outbox) {
        lobbyOutboxes[ObjectIdentifier(outbox)] = outbox
        outbox.replace(.lobby, with: Frames.encode(LobbyMessage(sessions: lobbyEntries())))
    }

    func unsubscribeLobby(_ outbox: Outbox) {
        lobbyOutboxes[ObjectIdentifier(outbox)] = nil
    }

    private func publishLobby() {
        guard !lobbyOutboxes.isEmpty else { return }
        // Encoded once; each lobby socket keeps only the newest list.
        let frame = Frames.encode(LobbyMessage(sessions: lobbyEntries()))
        for outbox in lobbyOutboxes.values { outbox.replace(.lobby, with: frame) }
    }
}

extension EphemeralKey {
    /// The lobby's list of live sessions.
    static let lobby = EphemeralKey("lobby")
}
