import Foundation

/// What one realtime document's socket says, as ``LiveStream`` needs to know it: a live session
/// or room (``PodiumLiveSession``), a storyboard (``StoryboardLiveSession``). A new realtime
/// document is a new conformance; the connection, the resume, the acknowledgements and the
/// reconnection are the stream's, written once.
protocol LiveDocumentKind: Sendable {
    /// The first answer to a hello: the document as of a `seq`.
    associatedtype Welcome: Sendable
    /// A durable event, numbered by ``seq(of:)``.
    associatedtype Event: Sendable
    /// Anything else the server sends (acks and errors too, for whoever reads them).
    associatedtype Message: Sendable

    /// The upgrade request's headers.
    var headers: [(String, String)] { get }
    /// The hello; `lastSeq` when coming back after a drop (the server answers with what was missed).
    func hello(lastSeq: Int?) throws -> String
    /// Reads one frame; throws when it is not one this SDK can read.
    static func frame(_ text: String) throws -> LiveFrame<Self>
    static func seq(of event: Event) -> Int
    /// The message that asks for the events after `seq` on the open socket; nil when the socket
    /// has none (the stream then comes back with `lastSeq` on a new socket).
    static func resync(afterSeq seq: Int) -> String?
    /// Errors at hello that trying again will not mend.
    static func isFinal(_ code: String) -> Bool
    /// An error about a command that means "send it again, same id".
    static func isRetry(_ code: String) -> Bool
    /// Whether acks and errors about commands are handed on as messages too (besides answering
    /// the command's sender).
    static var passesAnswersOn: Bool { get }
}

/// The connection under a ``LiveStream``: a ``WebSocket``, or in tests a socket they drive.
protocol LiveTransport: AnyObject, Sendable {
    /// The text messages received, ending when the connection does.
    var messages: AsyncStream<String> { get }
    /// Why it ended, once it has.
    var closeReason: String { get }
    func send(_ text: String) async throws
    /// Closes (`abruptly`: cut, as a lost network does).
    func close(abruptly: Bool) async
}

extension WebSocket: LiveTransport {}

/// One frame, as the stream acts on it.
enum LiveFrame<Kind: LiveDocumentKind>: Sendable {
    /// `missed`: the events after the hello's `lastSeq`, when the server could replay them (nil:
    /// start again from this welcome).
    case welcome(Kind.Welcome, seq: Int, missed: [Kind.Event]?)
    case event(Kind.Event)
    case ack(id: String, seq: Int, Kind.Message)
    case error(id: String?, code: String, message: String, retryAfter: Int?, Kind.Message)
    /// The server is shutting down: come back in a few seconds.
    case shuttingDown(Kind.Message)
    case message(Kind.Message)
}

/// What the stream hands its reader, in order.
enum LiveStreamUpdate<Kind: LiveDocumentKind>: Sendable {
    /// The state to start from: the first welcome (`first`), or a rejoin too far behind to replay.
    case welcome(Kind.Welcome, first: Bool)
    /// A durable event, in `seq` order, each once across reconnects.
    case event(Kind.Event)
    /// Back after a drop: the `replayed` events missed came just before this as `.event`s.
    case resumed(Kind.Welcome, replayed: Int)
    case message(Kind.Message)
    /// The socket dropped; the stream tries again after `retryIn`.
    case disconnected(reason: String, retryIn: Duration)
}

/// The one live socket client of the SDK: opens the socket, says hello, reads and decodes the
/// frames, hands on the durable events once and in order (asking for a gap, or coming back with
/// `lastSeq` for it), keeps the commands not yet acknowledged (id → waiters) and sends them again
/// with the same id after a rejoin or when the server says `retry`, reconnects with the
/// ``ReconnectPolicy``, and closes.
actor LiveStream<Kind: LiveDocumentKind> {
    typealias Update = LiveStreamUpdate<Kind>
    /// Opens a connection to the URL with these upgrade headers.
    typealias Connect = @Sendable (URL, [(String, String)]) async throws -> any LiveTransport

    let url: URL
    let kind: Kind
    let policy: ReconnectPolicy
    private let connect: Connect
    private let deliver: @Sendable (Update) -> Void
    private let end: @Sendable ((any Error)?) -> Void

    /// The last durable event handed on (nil before the welcome).
    private(set) var lastSeq: Int?
    /// The newest welcome.
    private(set) var welcome: Kind.Welcome?
    /// Sockets opened so far (1 + reconnections).
    private(set) var connections = 0
    /// Commands sent again because the server said `retry`.
    private(set) var retried = 0

    private var socket: (any LiveTransport)?
    private var welcomed = false
    private var stopped = false
    private var pending: [String: Pending] = [:]
    private var order: [String] = []
    private var resyncAsked: Int?
    private var runner: Task<Void, Never>?
    /// The last write asked for: the next waits for it (see ``writeInOrder(_:on:isCommand:)``).
    private var lastWrite: Task<Void, Never>?
    private var firstJoin: CheckedContinuation<Void, any Error>?
    /// Tests: cut the socket right after the next command goes out, before its ack can come.
    private var dropAfterNextCommand = false
    /// Whether `end` was called.
    private var ended = false

    struct Pending {
        let text: String
        var waiters: [CheckedContinuation<Int, any Error>]
        /// How many times the server said `retry` for it.
        var retries = 0
    }

    /// The times a command is sent again for `retry` before its sender hears the error.
    static var maxRetries: Int { 10 }

    /// `deliver` gets every update in order; `end` once, when the stream ends (with the reason
    /// when it failed). `connect` opens a ``WebSocket`` unless a test gives its own.
    init(
        url: URL, kind: Kind, policy: ReconnectPolicy,
        connect: @escaping Connect = { url, headers in try await WebSocket.connect(url: url, headers: headers) },
        deliver: @escaping @Sendable (Update) -> Void, end: @escaping @Sendable ((any Error)?) -> Void
    ) {
        self.url = url
        self.kind = kind
        self.policy = policy
        self.connect = connect
        self.deliver = deliver
        self.end = end
    }

    /// Connects and returns once welcomed; a refusal at hello throws ``PodiumError``.
    func start() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            firstJoin = continuation
            runner = Task { await self.run() }
        }
    }

    // MARK: - Sending

    /// Sends a command with its id and returns the `seq` of its ack; an error about it throws
    /// ``PodiumError`` (status 0). Kept until answered: sent again, same id, after a rejoin.
    func command(id: String, text: String) async throws -> Int {
        try await withCheckedThrowingContinuation { waiter in
            enqueue(id: id, text: text, waiter: waiter)
        }
    }

    /// Sends a command with its id without waiting for its answer (which comes as a message when
    /// ``LiveDocumentKind/passesAnswersOn``); kept and sent again as ``command(id:text:)`` is.
    func post(id: String, text: String) throws {
        guard !stopped else { throw PodiumTransportError(.socketClosed, "the live stream was closed") }
        enqueue(id: id, text: text, waiter: nil)
    }

    private func enqueue(id: String, text: String, waiter: CheckedContinuation<Int, any Error>?) {
        if stopped {
            waiter?.resume(throwing: PodiumTransportError(.socketClosed, "the live stream was closed"))
            return
        }
        if pending[id] != nil {
            if let waiter { pending[id]?.waiters.append(waiter) }
            return
        }
        pending[id] = Pending(text: text, waiters: waiter.map { [$0] } ?? [])
        order.append(id)
        guard welcomed, let socket else { return }  // goes out after the (re)join
        writeInOrder(text, on: socket, isCommand: true)
    }

    /// Sends an ephemeral message: dropped while disconnected.
    func sendEphemeral(_ text: String) async throws {
        guard welcomed, let socket else { return }
        try await socket.send(text)
    }

    /// Leaves: closes the socket, ends the updates, fails the commands still waiting.
    func close() async {
        stopped = true
        let socket = self.socket
        self.socket = nil
        await socket?.close(abruptly: false)
        runner?.cancel()
        finish(throwing: nil)
    }

    /// Cuts the connection without a close frame, as a lost network does.
    func dropConnection() async {
        await socket?.close(abruptly: true)
    }

    /// Tests: the next command's write is followed at once by a dropped connection.
    func dropAfterNextCommandIsSent() { dropAfterNextCommand = true }

    /// Writes `text` once every write asked for before it is done. A task per write alone may
    /// run in either order, and two edits sent one after the other then reached the server the
    /// other way round (seen on a loaded machine: a storyboard's rename after its shot's edit).
    private func writeInOrder(_ text: String, on socket: any LiveTransport, isCommand: Bool) {
        let previous = lastWrite
        lastWrite = Task {
            await previous?.value
            await self.write(text, on: socket, isCommand: isCommand)
        }
    }

    private func write(_ text: String, on socket: any LiveTransport, isCommand: Bool) async {
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

    // MARK: - The connection

    private func run() async {
        var failures = 0
        while !stopped {
            var retryAfter: Duration?
            var reason = "closed"
            var failure: (any Error)?
            do {
                retryAfter = try await connection()
                failures = 0
                reason = socket?.closeReason ?? "closed"
            } catch let error as PodiumError where Kind.isFinal(error.code) {
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
            if let firstJoin {  // never welcomed: the caller of start hears why
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
            deliver(.disconnected(reason: reason, retryIn: delay))
            do {
                try await policy.sleep(delay)
            } catch {
                finish(throwing: nil)
                return
            }
        }
    }

    /// One socket from upgrade to close; returns how long to wait before the next one when the
    /// server said (shutting down), nil otherwise.
    private func connection() async throws -> Duration? {
        let socket = try await connect(url, kind.headers)
        self.socket = socket
        connections += 1
        try await socket.send(try kind.hello(lastSeq: lastSeq))
        var shutdownWait: Duration?
        for await text in socket.messages {
            let frame: LiveFrame<Kind>
            do {
                frame = try Kind.frame(text)
            } catch {
                if welcomed { continue }  // a frame this SDK cannot read; the protocol says to carry on
                throw PodiumTransportError(.badResponse, "the welcome: \(error)")
            }
            if !welcomed {
                switch frame {
                case .welcome(let welcome, let seq, let missed):
                    await handleWelcome(welcome, seq: seq, missed: missed, on: socket)
                case .error(_, let code, let message, let retryAfter, _):
                    let failure = PodiumError(code: code, message: message, status: 0, retryAfter: retryAfter)
                    if let firstJoin, Kind.isFinal(code) {
                        self.firstJoin = nil
                        firstJoin.resume(throwing: failure)
                        stopped = true
                    }
                    throw failure
                case .shuttingDown:
                    shutdownWait = Self.shutdownWait()
                default:
                    continue
                }
                continue
            }
            switch frame {
            case .event(let event):
                receive(event, on: socket)
            case .ack(let id, let seq, let message):
                resolve(id, .success(seq))
                if Kind.passesAnswersOn { deliver(.message(message)) }
            case .error(let id?, let code, _, _, _) where Kind.isRetry(code) && pending[id] != nil:
                retry(id, on: socket)
            case .error(let id, let code, let text, let retryAfter, let message):
                let answered = id.map { pending[$0] != nil } ?? false
                if let id, answered {
                    resolve(id, .failure(PodiumError(code: code, message: text, status: 0, retryAfter: retryAfter)))
                }
                if !answered || Kind.passesAnswersOn { deliver(.message(message)) }
            case .shuttingDown(let message):
                shutdownWait = Self.shutdownWait()
                deliver(.message(message))
            case .message(let message):
                deliver(.message(message))
            case .welcome:
                continue  // one per socket
            }
        }
        return shutdownWait
    }

    /// 1–5 s, so a hall does not come back at once.
    private static func shutdownWait() -> Duration { .milliseconds(Int.random(in: 1000...5000)) }

    private func handleWelcome(_ welcome: Kind.Welcome, seq: Int, missed: [Kind.Event]?, on socket: any LiveTransport) async {
        let first = self.welcome == nil
        self.welcome = welcome
        welcomed = true
        resyncAsked = nil
        if let lastSeq, let missed {
            var replayed = 0
            for event in missed.sorted(by: { Kind.seq(of: $0) < Kind.seq(of: $1) }) where Kind.seq(of: event) > lastSeq {
                deliver(.event(event))
                replayed += 1
            }
            self.lastSeq = max(lastSeq, seq, missed.map(Kind.seq(of:)).max() ?? lastSeq)
            deliver(.resumed(welcome, replayed: replayed))
        } else {
            lastSeq = seq
            deliver(.welcome(welcome, first: first))
        }
        if let firstJoin {
            self.firstJoin = nil
            firstJoin.resume()
        }
        for id in order { if let text = pending[id]?.text { await write(text, on: socket, isCommand: true) } }
    }

    private func receive(_ event: Kind.Event, on socket: any LiveTransport) {
        let seq = Kind.seq(of: event)
        let last = lastSeq ?? 0
        if seq <= last { return }  // seen already (a resync's answer overlapping)
        if seq > last + 1 {
            // A gap: ask once for what is missing; the out-of-order event comes again with it.
            if resyncAsked != last {
                resyncAsked = last
                if let text = Kind.resync(afterSeq: last) {
                    writeInOrder(text, on: socket, isCommand: false)
                } else {
                    // No way to ask on this socket: come back with lastSeq on a new one.
                    Task { await socket.close(abruptly: true) }
                }
            }
            return
        }
        lastSeq = seq
        deliver(.event(event))
    }

    /// The server could not take the command now (it caught up first): send it again, same id,
    /// at once the first time and then after the policy's backoff; past ``maxRetries`` its
    /// sender hears the error.
    private func retry(_ id: String, on socket: any LiveTransport) {
        guard var entry = pending[id] else { return }
        retried += 1
        entry.retries += 1
        pending[id] = entry
        guard entry.retries <= Self.maxRetries else {
            resolve(id, .failure(PodiumError(code: "retry", message: "the server asked to send it again too often", status: 0)))
            return
        }
        let (text, attempt, policy) = (entry.text, entry.retries, self.policy)
        Task {
            if attempt > 1 { try? await policy.sleep(policy.delay(attempt: attempt - 1)) }
            await self.resend(id, text, on: socket)
        }
    }

    private func resend(_ id: String, _ text: String, on socket: any LiveTransport) async {
        // Still waiting, on the same socket (a rejoin sends every pending command anyway).
        guard pending[id] != nil, self.socket === socket, welcomed else { return }
        await write(text, on: socket, isCommand: true)
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
                waiter.resume(throwing: error ?? PodiumTransportError(.socketClosed, "the live stream was closed"))
            }
        }
        guard !ended else { return }
        ended = true
        end(error)
    }
}
