import Foundation
import PodiumCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a live session comes back after its socket dropped: the protocol's backoff (0.5 s doubling
/// to 10 s, with jitter), and 1–5 s after the server said it is shutting down.
public struct ReconnectPolicy: Sendable {
    public var initialDelay: Duration
    public var maxDelay: Duration
    /// Spread each delay over 50–100 % of itself, so a hall does not come back at once.
    public var jitter: Bool
    /// Give up after this many failed attempts in a row (nil: never).
    public var maxAttempts: Int?
    /// How long to wait: `Task.sleep` normally; tests pass their own to decide when time passes.
    public var sleep: @Sendable (Duration) async throws -> Void

    public init(
        initialDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(10), jitter: Bool = true,
        maxAttempts: Int? = nil, sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.maxAttempts = maxAttempts
        self.sleep = sleep
    }

    public static let standard = ReconnectPolicy()
    /// Never reconnect: the updates end when the socket does.
    public static let never = ReconnectPolicy(maxAttempts: 0)

    func delay(attempt: Int) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(1, attempt) where delay < maxDelay { delay *= 2 }
        delay = min(delay, maxDelay)
        return jitter ? delay * Double.random(in: 0.5...1) : delay
    }
}

/// Who joins a live session, and how.
public struct LiveJoin: Sendable {
    public var role: Role
    /// A viewer's or a room presenter's name.
    public var name: String?
    public var passcode: String?
    /// A room's projector (its moderator's identity only).
    public var projector: Bool
    /// Send the client's API token in the hello (presenters of a session, moderators). A room's
    /// presenter without an account joins by name and leaves it false.
    public var sendToken: Bool
    /// The anonymous identity (`podium_viewer` cookie value, `v_` and 24 letters or digits) the
    /// server knows this client by across reconnects; a random one when nil.
    public var identity: String?

    public init(
        role: Role, name: String? = nil, passcode: String? = nil, projector: Bool = false, sendToken: Bool? = nil,
        identity: String? = nil
    ) {
        self.role = role
        self.name = name
        self.passcode = passcode
        self.projector = projector
        self.sendToken = sendToken ?? (role != .viewer && name == nil)
        self.identity = identity
    }

    public static func viewer(name: String? = nil, passcode: String? = nil) -> LiveJoin {
        LiveJoin(role: .viewer, name: name, passcode: passcode)
    }
    public static let presenter = LiveJoin(role: .presenter)
    public static let moderator = LiveJoin(role: .moderator)
    /// A room's presenter, by name (no account needed).
    public static func roomPresenter(name: String, passcode: String? = nil) -> LiveJoin {
        LiveJoin(role: .presenter, name: name, passcode: passcode, sendToken: false)
    }

    static func randomIdentity() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return "v_" + String((0..<24).map { _ in alphabet.randomElement()! })
    }
}

/// What a ``PodiumLiveSession`` hands its reader, in order.
public enum LiveUpdate: Sendable, Equatable {
    /// The state to start from: the first welcome, or a rejoin too far behind to replay
    /// (apply its snapshot as a late joiner does).
    case welcome(Welcome)
    /// A durable event, in `seq` order, each exactly once across reconnects.
    case event(SessionEvent)
    /// Back after a drop: the events missed came just before this as `.event`s (`replayed` of them).
    case resumed(Welcome, replayed: Int)
    /// An ephemeral message (pointer, presence, results, questions…) or an error not tied to a command.
    case message(LiveMessage)
    /// The socket dropped; the session tries again after `retryIn`.
    case disconnected(reason: String, retryIn: Duration)
}

extension PodiumClient {
    /// Joins a live session (or a room) on its socket and returns once welcomed; a refusal at
    /// hello (`passcode_wrong`, `not_found`, `unauthorized`…) throws ``PodiumError``.
    ///
    /// Read ``PodiumLiveSession/updates``; send commands with ``PodiumLiveSession/send(_:id:)``.
    public func connect(code: String, as join: LiveJoin, reconnect: ReconnectPolicy = .standard) async throws
        -> PodiumLiveSession
    {
        let session = PodiumLiveSession(url: try socketURL(.live, ["code": code]), token: token, join: join, policy: reconnect)
        try await session.start()
        return session
    }

    /// The `ws:` URL of a socket endpoint.
    public func socketURL(_ endpoint: Endpoint, _ parameters: [String: String]) throws -> URL {
        guard var components = URLComponents(url: try request(endpoint, parameters).url!, resolvingAgainstBaseURL: false)
        else { throw PodiumTransportError(.unreachable, "bad URL") }
        components.scheme = components.scheme == "https" ? "wss" : "ws"
        return components.url!
    }
}

/// One client's place in a live session: the updates to read, the commands to send, and the
/// reconnection with `lastSeq` resume the protocol asks for, built in.
///
/// Commands carry an id (a UUID unless given); one not acknowledged when the socket drops is sent
/// again with the same id after the rejoin, and the server, which remembers ids, counts it once.
/// On a gap in `seq` the session asks for the missing events (`resync`) and drops what came out
/// of order; the reader sees every durable event once, in order.
///
/// The socket, the resume, the acknowledgements and the reconnection are the SDK's one live
/// stream, which ``StoryboardLiveSession`` rides on too; this type is what a session's socket says.
public actor PodiumLiveSession {
    public nonisolated let updates: AsyncThrowingStream<LiveUpdate, any Error>
    nonisolated let stream: LiveStream<SessionSocketKind>

    /// The last durable event handed on (nil before the welcome).
    public nonisolated var lastSeq: Int? { get async { await stream.lastSeq } }
    /// The newest welcome (the session's facts, the role's state at join).
    public nonisolated var welcome: Welcome? { get async { await stream.welcome } }
    /// Sockets opened so far (1 + reconnections).
    public nonisolated var connections: Int { get async { await stream.connections } }

    init(url: URL, token: String?, join: LiveJoin, policy: ReconnectPolicy) {
        let (updates, continuation) = AsyncThrowingStream.makeStream(of: LiveUpdate.self)
        self.updates = updates
        let kind = SessionSocketKind(join: join, token: token, identity: join.identity ?? LiveJoin.randomIdentity())
        stream = LiveStream(
            url: url, kind: kind, policy: policy,
            deliver: { update in
                switch update {
                case .welcome(let welcome, _): continuation.yield(.welcome(welcome))
                case .event(let event): continuation.yield(.event(event))
                case .resumed(let welcome, let replayed): continuation.yield(.resumed(welcome, replayed: replayed))
                case .message(let message): continuation.yield(.message(message))
                case .disconnected(let reason, let retryIn): continuation.yield(.disconnected(reason: reason, retryIn: retryIn))
                }
            },
            end: { error in continuation.finish(throwing: error) })
    }

    func start() async throws { try await stream.start() }

    // MARK: - Commands

    /// Sends a command and returns the `seq` of its `ack`; a refusal throws ``PodiumError``
    /// (status 0). Sent again, with the same id, after a reconnect until acknowledged.
    @discardableResult
    public nonisolated func send(_ command: SessionCommand, id: String = UUID().uuidString) async throws -> Int {
        try await stream.command(id: id, text: try SessionSocketKind.encode(ClientMessage.command(id: id, command)))
    }

    /// Sends an ephemeral message (pointer, inking, ping, buffering): dropped while disconnected.
    public nonisolated func sendEphemeral(_ message: ClientMessage) async throws {
        try await stream.sendEphemeral(try SessionSocketKind.encode(message))
    }

    /// Leaves: closes the socket, ends ``updates``, fails the commands still waiting.
    public nonisolated func close() async { await stream.close() }

    /// Cuts the connection without a close frame, as a lost network does (for tests and demos of
    /// the reconnection).
    public nonisolated func dropConnection() async { await stream.dropConnection() }

    /// Tests: the next command's write is followed at once by a dropped connection.
    func dropAfterNextCommandIsSent() async { await stream.dropAfterNextCommandIsSent() }
}

/// The live socket of a session or room, as ``LiveStream`` speaks it (docs/protocol.md).
struct SessionSocketKind: LiveDocumentKind {
    typealias Welcome = PodiumCore.Welcome
    typealias Event = SessionEvent
    typealias Message = LiveMessage

    let join: LiveJoin
    let token: String?
    /// The `podium_viewer` cookie: who this client is across reconnects.
    let identity: String

    var headers: [(String, String)] {
        var headers = [("Cookie", "podium_viewer=\(identity)")]
        if join.sendToken, let token { headers.append(("Authorization", "Bearer \(token)")) }
        return headers
    }

    func hello(lastSeq: Int?) throws -> String {
        try Self.encode(
            .hello(
                ClientMessage.Hello(
                    role: join.role, name: join.name, passcode: join.passcode, token: join.sendToken ? token : nil,
                    lastSeq: lastSeq, projector: join.projector)))
    }

    static func frame(_ text: String) throws -> LiveFrame<Self> {
        let message = try LiveMessage.decode(text)
        return switch message {
        case .welcome(let welcome): .welcome(welcome, seq: welcome.seq, missed: welcome.events)
        case .event(let event): .event(event)
        case .ack(let ack): .ack(id: ack.id, seq: ack.seq, message)
        case .error(let error):
            .error(id: error.id, code: error.code, message: error.message, retryAfter: error.retryAfter, message)
        case .reconnect: .shuttingDown(message)
        default: .message(message)
        }
    }

    static func seq(of event: SessionEvent) -> Int { event.seq }

    static func resync(afterSeq seq: Int) -> String? { try? encode(.resync(afterSeq: seq)) }

    static func isFinal(_ code: String) -> Bool {
        ["not_found", "passcode_required", "passcode_wrong", "unauthorized", "forbidden", "bad_message"].contains(code)
    }

    static func isRetry(_ code: String) -> Bool { code == "retry" }

    static var passesAnswersOn: Bool { false }

    static func encode(_ message: ClientMessage) throws -> String {
        String(decoding: try JSONEncoder().encode(message), as: UTF8.self)
    }
}
