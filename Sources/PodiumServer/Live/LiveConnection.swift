import Crypto
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOWebSocket
import PodiumCore
import PodiumStore
import PodiumWire
import Synchronization

/// What every live socket shares: the hub, the limits, and what a socket does with a message
/// (hello, then commands). Each socket is a ``LiveSocket``.
///
/// Every outgoing frame goes through the socket's ``Outbox`` and leaves from the event loop, so
/// welcome, events, acks and errors leave in the order they were queued.
///
/// A class, made once: every socket refers to it (as a struct, each kept a 200-byte copy).
final class LiveConnection: Sendable {
    static let maxMessageBytes = 64 * 1024

    let hub: LiveHub
    let accounts: Accounts
    /// The library's videos, for a presenter who puts one on the stage.
    let videos: any StageVideos
    /// Waits after wrong passcodes per client identity and session (refused while it runs), and
    /// per session from everyone (every hello waits before its check, and still gets in).
    let passcodesPerClient: Backoff
    let passcodesPerSession: Backoff
    let outboxLimit: Int
    let heartbeat: Outbox.Heartbeat
    /// Messages per second a socket may send on average (pointer moves included).
    let messageRate: Double
    /// How long a new socket has to send its hello.
    let helloTimeout: TimeAmount
    /// How many durable commands of one socket may wait for the store (see ``CommandQueue``).
    let commandBacklog: Int
    /// How many hellos run at once; the others wait their turn.
    let hellos: Admission
    let now: @Sendable () -> Date
    /// The server's logger, which every socket shares (see ``SocketLog``).
    let logger: Logger

    init(
        hub: LiveHub, accounts: Accounts, videos: any StageVideos, passcodesPerClient: Backoff, passcodesPerSession: Backoff,
        outboxLimit: Int, heartbeat: Outbox.Heartbeat, messageRate: Double, helloTimeout: TimeAmount, hellos: Admission,
        now: @escaping @Sendable () -> Date, logger: Logger, commandBacklog: Int = CommandQueue<ClientMessage>.defaultLimit
    ) {
        self.commandBacklog = commandBacklog
        self.hub = hub
        self.accounts = accounts
        self.videos = videos
        self.passcodesPerClient = passcodesPerClient
        self.passcodesPerSession = passcodesPerSession
        self.outboxLimit = outboxLimit
        self.heartbeat = heartbeat
        self.messageRate = messageRate
        self.helloTimeout = helloTimeout
        self.hellos = hellos
        self.now = now
        self.logger = logger
    }

    struct Joined {
        let session: LiveSession
        let memberID: Int
        let role: Role
        /// The viewer's stable identity: answers and questions are theirs.
        let viewerId: String
        /// In a room, a presenter's public id.
        let presenterId: String?
        /// The big screen of the session's presenter or the room's moderator (a viewer socket of
        /// their browser): the screen a video waits for while it buffers.
        var isProjector = false
        /// A big screen (`projector` in the hello), anyone's: nobody in the audience, so it
        /// answers, asks and votes nothing.
        var isScreen = false

        /// Who sends this socket's commands.
        var actor: Actor { Actor(role, presenterId: presenterId, viewerId: isScreen ? nil : viewerId) }
    }

    /// A room presenter's public id: derived from their private identity, so it is stable across
    /// reconnects and says nothing that would let anyone act as them.
    static func presenterId(viewerId: String, sessionId: String) -> String {
        let digest = SHA256.hash(data: Data("\(sessionId)|\(viewerId)".utf8))
        return "p" + digest.prefix(6).map { String(format: "%02x", $0) }.joined()
    }

    /// Who opened a socket, as the upgrade request's middleware found them. A class: a socket
    /// keeps a reference, not the user record's room, which a viewer does not use.
    final class Requester: Sendable {
        let user: UserRecord?
        /// From the `podium_viewer` cookie, when the browser sent one.
        let viewerId: String?
        /// The client's address (or the one a trusted proxy forwarded).
        let clientKey: String

        init(user: UserRecord?, viewerId: String?, clientKey: String) {
            self.user = user
            self.viewerId = viewerId
            self.clientKey = clientKey
        }

        /// Whose wrong passcodes these are: the anonymous viewer identity (so a hall behind one
        /// address is many people); a client without one counts by its address, all such
        /// clients of that address together.
        var identity: String { viewerId.map { "viewer:\($0)" } ?? "address:\(clientKey)" }
    }

    /// Accepts the upgrade of `/sessions/:code/live`: once the handshake is answered, the
    /// socket's handlers go on the channel and the client has ``helloTimeout`` to say hello.
    func accept(code: String, context: AppRequestContext) -> SocketUpgrade.Install {
        accept(
            code: code, requester: Requester(user: context.user, viewerId: context.viewerId, clientKey: context.clientKey),
            requestLogger: context.logger)
    }

    /// The same, for an upgrade decided without the router (``LiveUpgrade``).
    func accept(code: String, requester: Requester, requestLogger: Logger) -> SocketUpgrade.Install {
        let log = SocketLog(shared: logger, request: requestLogger)
        return { channel in
            let socket = LiveSocket(connection: self, code: code, requester: requester, channel: channel, log: log)
            try SocketHandler.install(on: channel, endpoint: socket, maxMessageBytes: Self.maxMessageBytes)
        }
    }

    /// Authenticates and joins, or queues the error and closes.
    func hello(
        _ message: ClientMessage, code: String, requester: Requester, outbox: Outbox, log: SocketLog
    ) async -> Joined? {
        func refuse(_ error: SessionError, retryAfter wait: TimeInterval = 0) -> Joined? {
            outbox.push(Frames.encode(ErrorMessage(error, retryAfter: wait > 0 ? Int(wait.rounded(.up)) : nil)))
            outbox.close(.finished)
            return nil
        }
        guard case .hello(let hello) = message else { return refuse(.helloRequired) }
        if hub.isDraining {
            // The server is stopping: a client that came back too soon tries again later.
            outbox.push(Frames.encode(ReconnectMessage(reason: "shutdown")))
            outbox.close(.finished)
            return nil
        }
        let session: LiveSession
        do {
            guard let normalized = JoinCode.normalize(code) else { return refuse(.notFound) }
            // A session this node serves is found without a hop to the hub (one hop per hello,
            // the session's own join); any other is loaded, or not found, by the hub as before.
            if let served = hub.servedSession(code: normalized) {
                session = served
            } else if let found = try await hub.session(code: normalized) {
                session = found
            } else {
                return refuse(.notFound)
            }
        } catch {
            log.logger.error("could not load session \(code): \(error)")
            return refuse(.unavailable)
        }
        let record = session.record
        var user = requester.user
        if let token = hello.token {
            do {
                user = try await accounts.user(token: token)
            } catch {
                // The store failed, not the client: say so instead of "not signed in".
                log.logger.error("could not check a token for session \(code): \(error)")
                return refuse(.unavailable)
            }
        }
        // Its presenter, an admin, or a co-host (a course's other teacher). Asked only where the
        // answer decides something below (the host roles, a passcode, a big screen): a co-host is
        // a store read, and a signed-in viewer of an open session needs none.
        let isScreenHello = hello.projector && hello.role == .viewer
        let asksHost =
            hello.role == .moderator || (hello.role == .presenter && !record.isRoom) || isScreenHello
            || hub.access.access(of: record).passcodeHash != nil
        let isOwner: Bool
        do {
            isOwner = asksHost ? try await hub.hosts.isHost(user, of: record) : false
        } catch {
            log.logger.error("could not check the hosts of session \(code): \(error)")
            return refuse(.unavailable)
        }
        let viewerId = requester.viewerId ?? IDs.make("v", length: 24)
        var presenterId: String?
        switch hello.role {
        case .moderator:
            guard record.isRoom else { return refuse(.notARoom) }
            guard user != nil else { return refuse(.unauthorized) }
            guard isOwner else { return refuse(.notModerator) }
        case .presenter where !record.isRoom:
            guard user != nil else { return refuse(.unauthorized) }
            guard isOwner else { return refuse(.notPresenter) }
        case .presenter, .viewer:
            // The moderator's own screens (the projector) need no passcode.
            if let hash = hub.access.access(of: record).passcodeHash, !isOwner {
                guard let passcode = hello.passcode, !passcode.isEmpty else { return refuse(.passcodeRequired) }
                let guesser = "\(record.id)|\(requester.identity)"
                let wait = passcodesPerClient.wait(guesser, now: now())
                // Not checked while this client waits: an answer would tell a guesser too much.
                guard wait <= 0 else { return refuse(.rateLimited, retryAfter: wait) }
                let sessionWait = passcodesPerSession.wait(record.id, now: now())
                if sessionWait > 0 {
                    // Many wrong guesses for this session lately: everyone's hello waits, so a
                    // guesser with ever new identities is slowed, and a right passcode gets in.
                    try? await Task.sleep(for: .seconds(sessionWait))
                }
                let matches: Bool
                do {
                    matches = try await accounts.verify(passcode, against: hash)
                } catch {
                    // The hash check itself failed: not a wrong guess, so not counted as one.
                    log.logger.error("could not check a passcode for session \(code): \(error)")
                    return refuse(.unavailable)
                }
                guard matches else {
                    let delay = passcodesPerClient.recordFailure(guesser, now: now())
                    passcodesPerSession.recordFailure(record.id, now: now())
                    return refuse(.passcodeWrong, retryAfter: delay)
                }
                passcodesPerClient.reset(guesser)
            }
            if hello.role == .presenter {
                // A room presenter joins under a name; their id stays theirs across visits.
                guard let name = hello.name, !name.trimmingCharacters(in: .whitespaces).isEmpty else {
                    return refuse(.nameRequired)
                }
                let id = Self.presenterId(viewerId: viewerId, sessionId: record.id)
                do {
                    _ = try await session.perform(
                        .room(.join(name: name)), id: IDs.make("join"), actor: Actor(.presenter, presenterId: id))
                } catch {
                    return refuse(error)
                }
                presenterId = id
            }
        }
        // A big screen (a session's screen, a room's projector) is not counted as a viewer.
        let isScreen = isScreenHello
        // The roles a host takes keep their user, so taking a co-host off the session closes them.
        let hostRole = hello.role == .moderator || (hello.role == .presenter && !record.isRoom)
        let memberID = await session.join(
            role: hello.role, viewerId: viewerId, presenterId: presenterId, name: hello.name, lastSeq: hello.lastSeq,
            screen: isScreen, hostUser: hostRole ? user : nil, outbox: outbox)
        return Joined(
            session: session, memberID: memberID, role: hello.role, viewerId: viewerId, presenterId: presenterId,
            isProjector: isScreen && isOwner, isScreen: isScreen)
    }

    /// Whether a joined socket's message waits for the store, in order with the others like it
    /// (``LiveSocket`` queues these in its ``CommandQueue``), or is handled at once: the pointer
    /// and ink in progress never wait behind a command the store holds.
    static func isDurable(_ message: ClientMessage) -> Bool {
        switch message {
        case .command, .buffering: true
        case .hello, .pointer, .inking, .resync, .ping: false
        }
    }

    /// Whether a message is answered after the commands sent before it (queued behind them while
    /// any wait, handled at once otherwise): a `pong` says everything sent before its `ping` was
    /// answered, and a resync's events follow the acks before it.
    static func keepsOrderWithCommands(_ message: ClientMessage) -> Bool {
        switch message {
        case .ping, .resync: true
        case .hello, .command, .buffering, .pointer, .inking: false
        }
    }

    func handle(_ message: ClientMessage, joined: Joined, outbox: Outbox, log: SocketLog) async {
        switch message {
        case .hello:
            outbox.push(Frames.encode(ErrorMessage(.badMessage("hello was already sent on this socket."))))
        case .command(let id, var command):
            do {
                if case .video(.show(let named)) = command {
                    // Only someone who drives the stage has a video looked up; the session checks
                    // again when it decides.
                    try await joined.session.state.mayDriveStage(joined.role, presenterId: joined.presenterId)
                    command = .showVideo(try await readyVideo(named.id, for: joined.session, log: log))
                }
                let seq = try await joined.session.perform(command, id: id, actor: joined.actor)
                outbox.push(Frames.encode(Ack(id: id, seq: seq)))
                if CommandPathTrace.enabled { CommandPathTrace.stamp("ack", id) }
            } catch {
                outbox.push(Frames.encode(ErrorMessage(id: id, error)))
            }
        case .pointer(let point):
            do {
                try await joined.session.pointer(point, role: joined.role, presenterId: joined.presenterId)
            } catch {
                outbox.push(Frames.encode(ErrorMessage(error)))
            }
        case .inking(let message):
            do {
                try await joined.session.inking(message, role: joined.role, presenterId: joined.presenterId)
            } catch {
                outbox.push(Frames.encode(ErrorMessage(error)))
            }
        case .resync(let afterSeq):
            let viewer = await !joined.session.state.seesHostViews(joined.role)
            for event in await joined.session.events(after: afterSeq) {
                outbox.push(Frames.encode(viewer ? event.forViewers : event))
            }
        case .ping(let t):
            outbox.push(Frames.encode(Pong(t: t, server: now().timeIntervalSince1970)))
        case .buffering(let buffering):
            guard joined.isProjector else {
                outbox.push(Frames.encode(ErrorMessage(.forbidden)))
                return
            }
            await joined.session.projectorBuffering(buffering, logger: log.logger)
        }
    }

    /// The video a client named, as the library knows it: ready, and the session's owner's.
    private func readyVideo(_ id: String, for session: LiveSession, log: SocketLog) async throws(SessionError)
        -> VideoOnStage
    {
        let found: VideoOnStage?
        do {
            found = try await videos.readyVideo(id: id, ownedBy: session.record.presenterId, session: session.record.id)
        } catch {
            log.logger.error("could not look video \(id) up: \(error)")
            throw .unavailable
        }
        guard let found else { throw .videoNotFound }
        return found
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context), DecodingError.typeMismatch(_, let context),
            DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, _):
            return "missing field \(key.stringValue)"
        default:
            return "The message is not valid JSON."
        }
    }
}
