import Foundation
import Logging
import PostgresKit
import ServiceLifecycle
import Synchronization

/// The ``SessionBus`` of several nodes on one PostgreSQL: `LISTEN` and `pg_notify` on one
/// channel every node listens on, over a connection of its own (not the store's pool).
///
/// - Every message is small JSON (kind, node, session, code, and the seq, the viewer count or
///   the ephemeral frame). A node ignores its own.
/// - Hints (`seq`) go out as they come; presence, "records changed" and ephemeral frames are
///   coalesced per session and kind, newest wins (``Settings``), so a pointer costs at most 30
///   notifications a second and a busy poll a few.
/// - Nothing is lost for good when a notification is: when the listening connection drops, the
///   bus reconnects with backoff and then has every node catch its live sessions up from the
///   table; and every ``Settings/checkInterval`` each node checks its live sessions against the
///   store anyway. Ephemeral frames may be lost; events never.
///
/// It is a `Service`: `buildApplication` runs it with the application.
public final class PostgresSessionBus: SessionBus, Service {
    public struct Settings: Sendable {
        /// The notification channel every node listens on.
        public var channel = "podium_bus"
        /// How often each live session is checked against the store, however hints fare.
        public var checkInterval: Duration = .seconds(5)
        /// The wait before the first reconnection; it doubles up to ``maxReconnectDelay``.
        public var reconnectDelay: Duration = .milliseconds(100)
        public var maxReconnectDelay: Duration = .seconds(5)
        /// At most one pointer (or ink in progress) per session per interval: 30 a second.
        public var ephemeralInterval: Duration = .milliseconds(33)
        /// At most one "records changed" (answers, questions, votes, viewers) per session per interval.
        public var recordsInterval: Duration = .milliseconds(250)
        /// At most one viewer count per session and node per interval.
        public var presenceInterval: Duration = .milliseconds(250)

        public init() {}
    }

    /// The largest payload sent: PostgreSQL refuses notifications of 8000 bytes or more. A bigger
    /// one (a long stroke in progress) is dropped; the stroke itself arrives as an event.
    static let maxPayloadBytes = 7900

    let configuration: PostgresConnection.Configuration
    let settings: Settings
    private let logger: Logger
    private let nodes = Mutex<[any SessionBusNode]>([])
    private let current = Mutex<PostgresConnection?>(nil)
    private let outgoing: AsyncStream<String>
    private let outgoingContinuation: AsyncStream<String>.Continuation
    private let coalescer: Coalescer<String>
    /// How often `LISTEN` was established (1 after the first connection): for tests and logs.
    private let listens = Atomic<Int>(0)
    private let backendPID = Mutex<Int?>(nil)

    /// - Parameter url: `postgres://user:password@host:port/database` (`?sslmode=` as libpq).
    public convenience init(url: String, settings: Settings = Settings(), logger: Logger) throws {
        try self.init(configuration: SQLPostgresConfiguration(url: url).coreConfiguration, settings: settings, logger: logger)
    }

    public init(configuration: PostgresConnection.Configuration, settings: Settings = Settings(), logger: Logger) {
        self.configuration = configuration
        self.settings = settings
        self.logger = logger
        (outgoing, outgoingContinuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(10_000))
        let continuation = outgoingContinuation
        coalescer = Coalescer { continuation.yield($0) }
    }

    /// How many times the bus has started listening (reconnections count).
    public var listenCount: Int { listens.load(ordering: .relaxed) }
    /// Whether the listening connection is up now.
    public var isListening: Bool { current.withLock { $0 != nil } }
    /// The server process of the listening connection (`pg_terminate_backend` in tests).
    public var listenerBackendPID: Int? { backendPID.withLock { $0 } }

    // MARK: SessionBus

    public func subscribe(_ node: any SessionBusNode) async {
        nodes.withLock { $0.append(node) }
    }

    public func appended(_ hint: AppendedHint) async {
        send(
            Wire(
                k: .appended, n: hint.node, s: hint.sessionId, c: hint.code, q: hint.seq, t: hint.sentAt.timeIntervalSince1970,
                d: Wire.document(hint.kind)))
    }

    public func presence(_ update: PresenceUpdate) async {
        // This process's nodes hear it at once; the others coalesced.
        for node in nodes.withLock({ $0 }) { await node.presence(update) }
        coalesce(
            Wire(k: .presence, n: update.node, s: update.sessionId, c: update.code, v: update.viewers, l: update.live),
            key: "p|\(update.sessionId)|\(update.node)", interval: update.live ? settings.presenceInterval : .zero)
    }

    public func note(_ note: SessionNote) async {
        switch note.kind {
        case .records:
            coalesce(
                Wire(k: .records, n: note.node, s: note.sessionId, c: note.code, d: Wire.document(note.document)),
                key: note.coalescingKey, interval: settings.recordsInterval)
        case .access:
            send(Wire(k: .access, n: note.node, s: note.sessionId, c: note.code, d: Wire.document(note.document)))
        case .ephemeral(let key, let frame):
            coalesce(
                Wire(
                    k: .ephemeral, n: note.node, s: note.sessionId, c: note.code, e: key, f: String(buffer: frame),
                    d: Wire.document(note.document)),
                key: note.coalescingKey,
                interval: settings.ephemeralInterval)
        }
    }

    // MARK: Service

    public func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.listen() }
            group.addTask { await self.sendOutgoing() }
            group.addTask { await self.checkPeriodically() }
            try? await gracefulShutdown()
            outgoingContinuation.finish()
            group.cancelAll()
            // A connection blocked in a read does not see the cancellation: close it.
            try? await current.withLock({ $0 })?.close()
        }
    }

    /// Listens, reconnecting with backoff when the connection drops; after every (re)connection
    /// every node catches up, since hints sent meanwhile were lost.
    private func listen() async {
        var delay = settings.reconnectDelay
        var connectionID = 0
        while !Task.isCancelled {
            connectionID += 1
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: configuration, id: connectionID, logger: logger)
                defer {
                    current.withLock { $0 = nil }
                    Task { try? await connection.close() }
                }
                let pid = try await connection.query("SELECT pg_backend_pid()", logger: logger).collect().first?
                    .decode(Int.self)
                try await connection.listen(on: settings.channel) { notifications in
                    backendPID.withLock { $0 = pid }
                    current.withLock { $0 = connection }
                    let count = listens.add(1, ordering: .relaxed).newValue
                    if count > 1 { logger.notice("session bus: listening again; catching up") }
                    delay = settings.reconnectDelay
                    // Beside the notifications, not before them: catching up reads the store, which
                    // may be slow to answer just after PostgreSQL restarted, and hints must keep
                    // flowing meanwhile.
                    let catchUp = Task { await resynchronize(records: true) }
                    defer { catchUp.cancel() }
                    for try await notification in notifications {
                        await receive(notification.payload)
                    }
                }
                if !Task.isCancelled { logger.warning("session bus: the listening connection ended") }
            } catch {
                if Task.isCancelled { break }
                logger.warning("session bus: the listening connection failed: \(String(reflecting: error))")
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, settings.maxReconnectDelay)
        }
    }

    private func sendOutgoing() async {
        for await payload in outgoing {
            guard let connection = current.withLock({ $0 }) else {
                // Not connected: the hint is lost, which only delays (catch-up after the reconnection).
                continue
            }
            do {
                try await connection.query("SELECT pg_notify(\(settings.channel), \(payload))", logger: logger).collect()
            } catch {
                logger.debug("session bus: a notification was not sent: \(error)")
            }
        }
    }

    private func checkPeriodically() async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: settings.checkInterval)
            } catch {
                return
            }
            // Records too: a lost note costs one read of the record log after the node's
            // record seq (#39), no longer a reload of the whole audience.
            await resynchronize(records: true)
        }
    }

    private func resynchronize(records: Bool) async {
        for node in nodes.withLock({ $0 }) { await node.resynchronize(records: records) }
    }

    // MARK: The wire

    /// One notification's payload (short keys: it goes to every node).
    struct Wire: Codable, Equatable {
        enum Kind: String, Codable {
            case appended = "a"
            case presence = "p"
            case records = "r"
            case access = "x"
            case ephemeral = "e"
        }
        var k: Kind
        /// The sending node, the session's id and code.
        var n: String
        var s: String
        var c: String
        /// Appended: the seq, and when the hint was sent (seconds since 1970).
        var q: Int? = nil
        var t: Double? = nil
        /// Presence: viewers on that node, and whether the session is live.
        var v: Int? = nil
        var l: Bool? = nil
        /// Ephemeral: the frame's key and its JSON.
        var e: String? = nil
        var f: String? = nil
        /// The kind of document (``BusDocumentKind``); left out for a session, so a node of an
        /// older version reads a session's messages as before, and one without it means a session.
        var d: String? = nil

        static func document(_ kind: BusDocumentKind) -> String? { kind == .session ? nil : kind.rawValue }

        /// The document kind this message is about; nil: one this node does not know (ignored).
        var document: BusDocumentKind? { d.map { BusDocumentKind(rawValue: $0) } ?? .session }
    }

    private static let encoder = JSONEncoder()

    private func encode(_ wire: Wire) -> String? {
        guard let data = try? Self.encoder.encode(wire), data.count <= Self.maxPayloadBytes else {
            logger.debug("session bus: a \(wire.k) notification of session \(wire.c) is too large to send")
            return nil
        }
        return String(decoding: data, as: UTF8.self)
    }

    private func send(_ wire: Wire) {
        if let payload = encode(wire) { outgoingContinuation.yield(payload) }
    }

    private func coalesce(_ wire: Wire, key: String, interval: Duration) {
        if let payload = encode(wire) { coalescer.submit(payload, key: key, interval: interval) }
    }

    private func receive(_ payload: String) async {
        guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(payload.utf8)) else {
            logger.warning("session bus: ignored a notification that is not ours: \(payload.prefix(200))")
            return
        }
        let nodes = nodes.withLock { $0 }
        guard !nodes.contains(where: { $0.nodeName == wire.n }), let document = wire.document else { return }
        for node in nodes {
            switch wire.k {
            case .appended:
                guard let seq = wire.q else { continue }
                let hint = AppendedHint(
                    node: wire.n, sessionId: wire.s, code: wire.c, seq: seq,
                    sentAt: wire.t.map(Date.init(timeIntervalSince1970:)) ?? Date(), kind: document)
                // On a task of its own: catching up waits for the session's command gate, and
                // other sessions' notifications must not wait behind it.
                Task { await node.appended(hint) }
            case .presence:
                guard let viewers = wire.v, let live = wire.l else { continue }
                let update = PresenceUpdate(node: wire.n, sessionId: wire.s, code: wire.c, viewers: viewers, live: live)
                Task { await node.presence(update) }
            case .records:
                let note = SessionNote(node: wire.n, sessionId: wire.s, code: wire.c, kind: .records, document: document)
                Task { await node.note(note) }
            case .access:
                let note = SessionNote(node: wire.n, sessionId: wire.s, code: wire.c, kind: .access, document: document)
                Task { await node.note(note) }
            case .ephemeral:
                guard let key = wire.e, let frame = wire.f else { continue }
                // In order: a newer pointer must not be overtaken by an older one.
                await node.note(
                    SessionNote(
                        node: wire.n, sessionId: wire.s, code: wire.c,
                        kind: .ephemeral(key: key, frame: ByteBuffer(string: frame)), document: document))
            }
        }
    }
}
