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
public actor PodiumLiveSession {
    public nonisolated let updates: AsyncThrowingStream<LiveUpdate, any Error>
    private let continuation: AsyncThrowingStream<LiveUpdate, any Error>.Continuation

    let url: URL
    let token: String?
    let join: LiveJoin
    let policy: ReconnectPolicy
    let identity: String

    /// The last durable event handed on (nil before the welcome).
    public private(set) var lastSeq: Int?
    /// The newest welcome (the session's facts, the role's state at join).
    public private(set) var welcome: Welcome?
    /// Sockets opened so far (1 + reconnections).
    public private(set) var connections = 0

    private var socket: WebSocket?
    private var welcomed = false
    private var stopped = false
    private var pending: [String: Pending] = [:]
    private var order: [String] = []
    private var resyncAsked: Int?
    private var runner: Task<Void, Never>?
    private var firstJoin: CheckedContinuation<Void, any Error>?
    /// Tests: cut the socket right after the next command goes out, before its ack can come.
    var dropAfterNextCommand = false

    struct Pending {
        let text: String
        var waiters: [CheckedContinuation<Int, any Error>]
    }

    init(url: URL, token: String?, join: LiveJoin, policy: ReconnectPolicy) {
        (updates, continuation) = AsyncThrowingStream.makeStream(of: LiveUpdate.self)
        self.url = url
        self.token = token
        self.join = join
        self.policy = policy
        self.identity = join.identity ?? LiveJoin.randomIdentity()
    }

    func start() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            firstJoin = continuation
            runner = Task { await self.run() }
        }
    }

    // MARK: - Commands

    /// Sends a command and returns the `seq` of its `ack`; a refusal throws ``PodiumError``
    /// (status 0). Sent again, with the same id, after a reconnect until acknowledged.
    @discardableResult
    public func send(_ command: SessionCommand, id: String = UUID().uuidString) async throws -> Int {
        let text = try Self.encode(ClientMessage.command(id: id, command))
        return try await withCheckedThrowingContinuation { waiter in
            if pending[id] != nil {
                pending[id]?.waiters.append(waiter)
            } else {
                pending[id] = Pending(text: text, waiters: [waiter])
                order.append(id)
            }
            guard welcomed, let socket else { return }  // goes out after the (re)join
            Task { await self.write(text, on: socket, isCommand: true) }
        }
    }

    /// Sends an ephemeral message (pointer, inking, ping, buffering): dropped while disconnected.
    public func sendEphemeral(_ message: ClientMessage) async throws {
        guard welcomed, let socket else { return }
        try await socket.send(try Self.encode(message))
    }

    /// Leaves: closes the socket, ends ``updates``, fails the commands still waiting.
    public func close() async {
        stopped = true
        let socket = self.socket
        self.socket = nil
        await socket?.close()
        runner?.cancel()
        finish(throwing: nil)
    }

    /// Cuts the connection without a close frame, as a lost network does (for tests and demos of
    /// the reconnection).
    public func dropConnection() async {
        await socket?.close(abruptly: true)
    }

    /// Tests: the next command's write is followed at once by a dropped connection.
    func dropAfterNextCommandIsSent() { dropAfterNextCommand = true }

    private func write(_ text: String, on socket: WebSocket, isCommand: Bool) async {
        do {
            try await socket.send(text)
        } catch {
            return  // stays pending; sent again after the rejoin
        }
        if isCommand, dropAfterNextCommand {
            dropAfterNextCommand = false
            await socket.close(abruptly: true)
        }
    }

    static func encode(_ message: ClientMessage) throws -> String {
        String(decoding: try JSONEncoder().encode(message), as: UTF8.self)
    }

    // MARK: - The connection

    private func run() async {
        var failures = 0
        while !stopped {
            var retryAfter: Duration?
            var reason = "closed"
            var failure: (any Error)?
            do {
                retryAfter = try await session()
                failures = 0
                reason = socket?.closeReason ?? "closed"
            } catch let error as PodiumError where Self.isFinal(error) {
                finish(throwing: error)
                return
            } catch let error as PodiumError {
                reason = error.description
                retryAfter = error.retryAfter.map { .seconds($0) }
                failure = error
                failures += 1
            } catch {
                reason = "\(error)"
                failure = error
                failures += 1
            }
            socket = nil
            welcomed = false
            if stopped { return }
            if let firstJoin {  // never welcomed: the caller of connect hears why
                self.firstJoin = nil
                firstJoin.resume(throwing: failure ?? PodiumTransportError(.socketClosed, reason))
                finish(throwing: nil)
                return
            }
            if let maxAttempts = policy.maxAttempts, failures >= maxAttempts || maxAttempts == 0 {
                finish(throwing: PodiumTransportError(.socketClosed, reason))
                return
            }
            let delay = retryAfter ?? policy.delay(attempt: max(1, failures))
            continuation.yield(.disconnected(reason: reason, retryIn: delay))
            do {
                try await policy.sleep(delay)
            } catch {
                finish(throwing: nil)
                return
            }
        }
    }

    /// Errors at hello that trying again will not mend.
    static func isFinal(_ error: PodiumError) -> Bool {
        ["not_found", "passcode_required", "passcode_wrong", "unauthorized", "forbidden", "bad_message"].contains(error.code)
    }

    /// One socket from upgrade to close; returns how long to wait before the next one when the
    /// server said (shutting down), nil otherwise.
    private func session() async throws -> Duration? {
        var headers = [("Cookie", "podium_viewer=\(identity)")]
        if join.sendToken, let token { headers.append(("Authorization", "Bearer \(token)")) }
        let socket = try await WebSocket.connect(url: url, headers: headers)
        self.socket = socket
        connections += 1
        let hello = ClientMessage.Hello(
            role: join.role, name: join.name, passcode: join.passcode, token: join.sendToken ? token : nil, lastSeq: lastSeq,
            projector: join.projector)
        try await socket.send(try Self.encode(.hello(hello)))
        var shutdownWait: Duration?
        for await text in socket.messages {
            let message: LiveMessage
            do {
                message = try LiveMessage.decode(text)
            } catch {
                continue  // a frame this SDK cannot read; the protocol says to carry on
            }
            if !welcomed {
                switch message {
                case .welcome(let welcome):
                    try await handleWelcome(welcome, on: socket)
                case .error(let error):
                    let failure = PodiumError(code: error.code, message: error.message, status: 0, retryAfter: error.retryAfter)
                    if let firstJoin, Self.isFinal(failure) {
                        self.firstJoin = nil
                        firstJoin.resume(throwing: failure)
                        stopped = true
                    }
                    throw failure
                case .reconnect:
                    shutdownWait = .milliseconds(Int.random(in: 1000...5000))
                default:
                    continue
                }
                continue
            }
            switch message {
            case .event(let event): receive(event, on: socket)
            case .ack(let ack): resolve(ack.id, .success(ack.seq))
            case .error(let error) where error.id != nil && pending[error.id!] != nil:
                resolve(
                    error.id!,
                    .failure(PodiumError(code: error.code, message: error.message, status: 0, retryAfter: error.retryAfter)))
            case .reconnect:
                shutdownWait = .milliseconds(Int.random(in: 1000...5000))
                continuation.yield(.message(message))
            default:
                continuation.yield(.message(message))
            }
        }
        return shutdownWait
    }

    private func handleWelcome(_ welcome: Welcome, on socket: WebSocket) async throws {
        self.welcome = welcome
        welcomed = true
        resyncAsked = nil
        if let lastSeq, let events = welcome.events {
            var replayed = 0
            for event in events.sorted(by: { $0.seq < $1.seq }) where event.seq > lastSeq {
                continuation.yield(.event(event))
                replayed += 1
            }
            self.lastSeq = max(lastSeq, welcome.seq)
            continuation.yield(.resumed(welcome, replayed: replayed))
        } else {
            lastSeq = welcome.seq
            continuation.yield(.welcome(welcome))
        }
        if let firstJoin {
            self.firstJoin = nil
            firstJoin.resume()
        }
        for id in order { if let text = pending[id]?.text { await write(text, on: socket, isCommand: true) } }
    }

    private func receive(_ event: SessionEvent, on socket: WebSocket) {
        let last = lastSeq ?? 0
        if event.seq <= last { return }  // seen already (a resync's answer overlapping)
        if event.seq > last + 1 {
            // A gap: ask once for what is missing; the out-of-order event comes again with it.
            if resyncAsked != last {
                resyncAsked = last
                if let text = try? Self.encode(.resync(afterSeq: last)) {
                    Task { await self.write(text, on: socket, isCommand: false) }
                }
            }
            return
        }
        lastSeq = event.seq
        continuation.yield(.event(event))
    }

    private func resolve(_ id: String, _ result: Result<Int, PodiumError>) {
        guard let entry = pending.removeValue(forKey: id) else { return }
        order.removeAll { $0 == id }
        for waiter in entry.waiters { waiter.resume(with: result.mapError { $0 as any Error }) }
    }

    private func finish(throwing error: (any Error)?) {
        stopped = true
        if let firstJoin {
            self.firstJoin = nil
            firstJoin.resume(throwing: error ?? PodiumTransportError(.socketClosed, "closed before the welcome"))
        }
        let waiting = pending
        pending = [:]
        order = []
        for entry in waiting.values {
            for waiter in entry.waiters {
                waiter.resume(throwing: error ?? PodiumTransportError(.socketClosed, "the live session was closed"))
            }
        }
        continuation.finish(throwing: error)
    }
}
