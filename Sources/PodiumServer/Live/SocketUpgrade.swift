import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOSSL
import NIOWebSocket
import PodiumWire
import Synchronization

/// What a route leaves in the request context to accept a WebSocket upgrade: it installs the
/// socket's handlers on the channel once the handshake is answered (on the channel's loop).
final class SocketUpgrade: Sendable {
    typealias Install = @Sendable (any Channel) throws -> Void
    private let install = Mutex<Install?>(nil)

    /// Accepts the upgrade; `body` runs on the channel's event loop after the `101` is sent.
    func accept(_ body: @escaping Install) { install.withLock { $0 = body } }

    func take() -> Install? { install.withLock { $0.take() } }

    /// Whether the request asks for a WebSocket (a plain GET of a socket route gets `426`).
    static func isRequested(_ request: Request) -> Bool {
        request.headers[.upgrade]?.lowercased() == "websocket"
    }
}

/// Podium's connections: HTTP/1.1, and WebSocket upgrades that leave no task behind.
///
/// Hummingbird's own WebSocket channel keeps one task per socket for its whole life (the
/// handler, the inbound stream, a task group), and a task keeps the memory of its deepest call:
/// two thirds of what an idle viewer cost. Here the upgrade request still goes through the
/// router (middleware, authentication, origin check) in a task that ends; a socket route
/// accepts with ``SocketUpgrade/accept(_:)``, which installs NIO handlers (``SocketHandler``),
/// and ``handle(value:logger:)`` returns at once. A client's message is then handled by a short
/// task that ends when the client goes quiet.
///
/// Plain HTTP is Hummingbird's, unchanged: the same codec, connection handler and responder as
/// `HTTP1WebSocketUpgradeChannel`, whose structure this follows.
struct PodiumServerChannel: ServerChildChannel, HTTPChannelHandler {
    enum UpgradeResult: Sendable {
        /// The socket's handlers are installed: nothing is left to run here.
        case socket
        case notUpgraded(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        /// The router's answer to the upgrade request is sent as the refusal.
        case failedUpgrade(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, Response, Logger)
    }

    /// A class: Hummingbird's server hands each connection's value through NIO's generic
    /// sequence of accepted connections and into its task, copying it on the way, and a struct of
    /// an existential and a reference was copied and destroyed by its value witnesses there
    /// (about 7,000 instructions a connection, `Benchmarks/fanout-instructions.sh`).
    final class Value: ServerChildChannelValue {
        let upgrade: UpgradeOutcome
        let channel: any Channel

        init(upgrade: UpgradeOutcome, channel: any Channel) {
            self.upgrade = upgrade
            self.channel = channel
        }
    }

    let responder: HTTPChannelHandler.Responder
    /// Decides upgrades: the application's router, so socket routes get the same middleware.
    let upgradeResponder: RouterResponder<AppRequestContext>
    /// Takes a viewer's upgrade of the live route on the loop, before NIO's upgrade handler and
    /// the router (see ``LiveUpgradeHandler``); what it leaves goes to `upgradeResponder`.
    let liveUpgrade: LiveUpgrade?
    /// The largest frame a client may send; a message of several frames is bounded by its socket.
    let maxFrameSize: Int
    /// Kept-alive connections are closed after this long between requests (Hummingbird's
    /// connection handler); ``setup(channel:logger:)`` gives the first request head as long.
    let http1: HTTP1Channel.Configuration
    /// Each connection's `SO_SNDBUF`; nil for the kernel's (see ``ServerConfiguration/connectionSendBuffer``).
    let sendBuffer: Int?
    /// Whether file bodies go to the socket as `FileRegion`s (``FileRegionBody``), see
    /// ``ServerConfiguration/sendfile``. Never over TLS.
    let fileRegions: Bool
    /// Stream files and pictures answered on the loop, below the router (``FileAnswerHandler``); plain
    /// connections only, as file regions.
    let fileAnswers: FileAnswers?
    /// The certificate of HTTPS (``TLSSettings``): each connection begins with a TLS handshake
    /// with the pair installed when it arrived; nil for plain HTTP.
    let tls: TLSCertificateBox?

    init(
        responder: @escaping HTTPChannelHandler.Responder, upgradeResponder: RouterResponder<AppRequestContext>,
        liveUpgrade: LiveUpgrade? = nil, maxFrameSize: Int, idleTimeout: TimeAmount, sendBuffer: Int? = nil,
        fileRegions: Bool = true, fileAnswers: FileAnswers? = nil, tls: TLSCertificateBox? = nil
    ) {
        self.responder = Self.redirectingLateUpgrades(responder)
        self.upgradeResponder = upgradeResponder
        self.liveUpgrade = liveUpgrade
        self.maxFrameSize = maxFrameSize
        self.http1 = HTTP1Channel.Configuration(idleTimeout: idleTimeout)
        self.sendBuffer = sendBuffer
        // A FileRegion cannot go through TLS: file bodies are read into buffers there.
        self.fileRegions = fileRegions && tls == nil
        self.fileAnswers = fileAnswers
        self.tls = tls
    }

    static func builder(
        router: Router<AppRequestContext>, liveUpgrade: LiveUpgrade? = nil, maxFrameSize: Int, idleTimeout: TimeAmount,
        sendBuffer: Int? = nil, fileRegions: Bool = true, fileAnswers: FileAnswers? = nil, tls: TLSCertificateBox? = nil
    ) -> HTTPServerBuilder {
        let upgradeResponder = router.buildResponder()
        return HTTPServerBuilder { responder in
            PodiumServerChannel(
                responder: responder, upgradeResponder: upgradeResponder, liveUpgrade: liveUpgrade, maxFrameSize: maxFrameSize,
                idleTimeout: idleTimeout, sendBuffer: sendBuffer, fileRegions: fileRegions, fileAnswers: fileAnswers, tls: tls)
        }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            // A connection's first receive buffer is kept for its life: small (``ReceiveBuffers``).
            try channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: ReceiveBuffers.first)
            if let sendBuffer {
                try channel.syncOptions?.setOption(ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(sendBuffer))
            }
            if let tls {
                // An ACME server before its first certificate: the connection is closed.
                guard let installed = tls.current else {
                    channel.close(promise: nil)
                    throw TLSFileError("no TLS certificate yet")
                }
                try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: installed.context))
            }
            // Until its first request head is whole, a connection is in NIO's upgrade handler,
            // which has no timeout of its own: one that sends nothing, or trickles its headers,
            // would hold its descriptor for ever. Whichever way the head goes (an upgrade or
            // not), the deadline is cancelled and let go there. A connection that goes before its
            // head leaves the deadline to fire on nothing: it holds the channel weakly, so the
            // channel is freed at once. No close callback cancels it: one would stay with every
            // socket for its life (a closure, its box and a slot in the close future's callbacks).
            let headDeadline = NIOLoopBoundBox(
                http1.idleTimeout.map { timeout in
                    channel.eventLoop.scheduleTask(in: timeout) { [weak channel] in channel?.close(promise: nil) }
                }, eventLoop: channel.eventLoop)
            let upgradeAttempted = NIOLoopBoundBox(false, eventLoop: channel.eventLoop)
            let accepted = Mutex<SocketUpgrade.Install?>(nil)
            // Set by `shouldUpgrade` before NIO calls `notUpgradingCompletionHandler`.
            let refusal = Mutex<Response?>(nil)
            let logger = logger.with(metadataKey: SocketLog.requestIDKey, value: .stringConvertible(RequestID()))
            let upgrader = NIOTypedWebSocketServerUpgrader<UpgradeResult>(
                maxFrameSize: maxFrameSize,
                // ``SocketHandler`` answers the decoder's errors, with a reason in the close frame.
                enableAutomaticErrorHandling: false,
                shouldUpgrade: { channel, head in
                    headDeadline.value.take()?.cancel()
                    upgradeAttempted.value = true
                    let promise = channel.eventLoop.makePromise(of: HTTPHeaders?.self)
                    promise.completeWithTask {
                        switch await decide(head, channel: channel, logger: logger) {
                        case .accepted(let install, let headers):
                            accepted.withLock { $0 = install }
                            return headers
                        case .refused(let response):
                            refusal.withLock { $0 = response }
                            return nil
                        }
                    }
                    return promise.futureResult
                },
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        guard let install = accepted.withLock({ $0.take() }) else {
                            throw ChannelError.inappropriateOperationForState
                        }
                        try install(channel)
                        return UpgradeResult.socket
                    }
                }
            )
            let notUpgrading = NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    headDeadline.value.take()?.cancel()
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: ReceiveBuffers.http)
                        // A file answer's head leaves corked with its first bytes (nginx's tcp_nopush).
                        if fileRegions && FileAnswerCork.isAvailable {
                            try channel.pipeline.syncOperations.addHandler(FileAnswerCork())
                        }
                        // Named: a file body goes below it as a FileRegion (``FileRegionBody``), which
                        // only a plain TCP connection may carry (no TLS handler under it). Unnamed,
                        // file bodies are read into buffers.
                        try channel.pipeline.syncOperations.addHandler(
                            HTTP1ToHTTPServerCodec(secure: tls != nil), name: fileRegions ? FileRegionBody.plainHTTP1Codec : nil)
                        try channel.pipeline.syncOperations.addHandlers(http1.additionalChannelHandlers())
                        try channel.pipeline.syncOperations.addHandler(
                            HTTPConnectionStateHandler(idleTimeout: http1.idleTimeout.map { .init($0) }, logger: logger))
                        if fileRegions, !upgradeAttempted.value, let fileAnswers {
                            try channel.pipeline.syncOperations.addHandler(FileAnswerHandler(answers: fileAnswers))
                        }
                        let asyncChannel = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                        guard upgradeAttempted.value else { return UpgradeResult.notUpgraded(asyncChannel) }
                        let response = refusal.withLock { $0.take() } ?? Self.notASocket
                        return UpgradeResult.failedUpgrade(asyncChannel, response, logger)
                    }
                }
            )
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration<UpgradeResult>(
                upgradeConfiguration: notUpgrading)
            configuration.enablePipelining = false  // HTTP is pipelined by NIOAsyncChannel
            configuration.enableErrorHandling = false  // Hummingbird answers errors
            configuration.enableResponseHeaderValidation = false  // swift-http-types validates
            configuration.decoderConfiguration.maxHeaderFieldSize = http1.httpDecoder.maxHeaderFieldSize
            configuration.decoderConfiguration.maxHeaderListSize = http1.httpDecoder.maxHeaderListSize
            configuration.decoderConfiguration.maxHeaderFieldCount = http1.httpDecoder.maxHeaderFieldCount
            let upgraded = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
            let outcome = UpgradeOutcome()
            // On the loop (the setup runs there): the callback is added in place.
            upgraded.whenComplete { outcome.complete($0) }
            guard let liveUpgrade else { return Value(upgrade: outcome, channel: channel) }
            // A viewer's upgrade of the live route is taken before NIO's upgrade handler, on the
            // loop, with no task (``LiveUpgradeHandler``); NIO's result stands for anything else.
            let live = LiveUpgradeHandler(
                live: liveUpgrade, maxFrameSize: maxFrameSize, plain: tls == nil, logger: logger, outcome: outcome,
                headArrived: { headDeadline.value.take()?.cancel() })
            let upgradeHandler = try channel.pipeline.syncOperations.handler(
                type: NIOTypedHTTPServerUpgradeHandler<UpgradeResult>.self)
            try channel.pipeline.syncOperations.addHandler(live, position: .before(upgradeHandler))
            return Value(upgrade: outcome, channel: channel)
        }
    }

    enum Decision {
        case accepted(SocketUpgrade.Install, HTTPHeaders)
        /// What the router answered instead: the refusal the client gets.
        case refused(Response)
    }

    /// Runs the upgrade request through the router: a socket route that accepts it leaves its
    /// installer in the context. Anything else (no such route or session, a refused origin) is
    /// refused with the router's own answer, the same status and error body as over plain HTTP.
    private func decide(_ head: HTTPRequestHead, channel: any Channel, logger: Logger) async -> Decision {
        let context = AppRequestContext(source: .init(channel: channel, logger: logger))
        let response: Response
        do {
            let request = Request(
                head: try HTTPRequest(head, secure: tls != nil, splitCookie: false), body: .init(buffer: .init()))
            response = try await upgradeResponder.respond(to: request, context: context)
        } catch {
            // The router's middleware turns errors into answers; only a head that is not HTTP
            // (or a bug) gets here.
            logger.debug("upgrade request failed: \(error)")
            return .refused(Self.badUpgrade)
        }
        guard response.status == .ok, let install = context.socketUpgrade.take() else {
            // A route that answered without accepting (a page, a blob) is not a socket.
            return .refused(response.status.kind == .successful ? Self.notASocket : response)
        }
        return .accepted(install, HTTPHeaders(response.headers))
    }

    /// The answer to an upgrade of an address that is not a socket.
    static let notASocket = errorResponse(
        APIError(.badRequest, code: "not_a_socket", message: "This address does not accept WebSocket connections."))
    static let badUpgrade = errorResponse(APIError.badRequest("The WebSocket upgrade request could not be read."))

    /// The body of ``APIError/response(from:context:)``, built without a request.
    private static func errorResponse(_ error: APIError) -> Response {
        let data =
            (try? JSONEncoder().encode(APIErrorBody(error: ErrorDetail(code: error.code, message: error.message)))) ?? Data()
        return Response(
            status: error.status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.upgrade.result() {
            case .socket:
                return  // the socket's handlers run it from here: no task stays
            case .notUpgraded(let http1):
                await handleHTTP(asyncChannel: http1, logger: logger)
            case .failedUpgrade(let http1, let response, let logger):
                logger.debug("WebSocket upgrade refused with \(response.status.code)")
                await Self.refuseUpgrade(http1, with: response, logger: logger)
            }
        } catch let error as ChannelError where error == .inputClosed {
            logger.trace("upgrade ended as the input closed")
        } catch {
            logger.debug("upgrade failed: \(error)")
        }
    }

    /// A refused upgrade gets the router's answer (its status, headers and error body), and the
    /// connection closes.
    private static func refuseUpgrade(
        _ channel: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, with response: Response, logger: Logger
    ) async {
        do {
            try await channel.executeThenClose { _, outbound in
                var head = response.head
                head.headerFields[.connection] = "close"
                try await ResponseWriter(outbound: outbound).write(response: head, body: response.body)
            }
        } catch {
            logger.trace("could not answer a refused upgrade: \(error)")
        }
    }

    /// NIO upgrades only a connection's first request. An upgrade asked for later on a kept-alive
    /// connection is sent back to the same address with `Connection: close`, so the client opens
    /// a new connection, where the upgrade runs.
    private static func redirectingLateUpgrades(_ responder: @escaping HTTPChannelHandler.Responder)
        -> HTTPChannelHandler.Responder
    {
        struct RedirectedUpgrade: Error {}
        return { request, writer, channel in
            guard SocketUpgrade.isRequested(request) else {
                try await responder(request, writer, channel)
                return
            }
            let location = request.uri.query.map { "\(request.uri.path)?\($0)" } ?? request.uri.path
            try await writer.writeResponse(
                HTTPResponse(status: .temporaryRedirect, headerFields: [.connection: "close", .location: location]))
            throw RedirectedUpgrade()
        }
    }
}

/// How a connection's first request went, told to the connection's task
/// (``PodiumServerChannel/handle(value:logger:)``, which Hummingbird's server starts for every
/// connection) without a future: the first outcome stands, later ones are ignored.
///
/// The task waited with `EventLoopFuture.get()`, which adds its callback through the loop's task
/// queue from the task's thread (a lock, a job for the loop and a wake-up of it) for every
/// connection, and the live route's result went through a second promise cascaded from NIO's.
/// Here the loop leaves the outcome, or resumes the task if it already waits (#42).
final class UpgradeOutcome: Sendable {
    typealias Result = Swift.Result<PodiumServerChannel.UpgradeResult, any Error>
    /// The continuation is resumed exactly once: whoever takes it out of the state, under the
    /// lock, resumes it, and the state never holds it again.
    private enum State {
        case open
        case waiting(UnsafeContinuation<PodiumServerChannel.UpgradeResult, any Error>)
        case decided(Result)
        /// Completed and handed on: what it held is let go.
        case done
    }
    private let state = Mutex(State.open)

    /// The outcome; the first one stands.
    func complete(_ result: Result) {
        let waiting = state.withLock { state -> UnsafeContinuation<PodiumServerChannel.UpgradeResult, any Error>? in
            switch state {
            case .open:
                state = .decided(result)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .decided, .done:
                return nil
            }
        }
        waiting?.resume(with: result)
    }

    /// Whether a task waits for the outcome (for tests).
    var isWaiting: Bool {
        state.withLock { state in
            guard case .waiting = state else { return false }
            return true
        }
    }

    /// Waits for the outcome (once: one task asks).
    func result() async throws -> PodiumServerChannel.UpgradeResult {
        let decided = state.withLock { state -> Result? in
            guard case .decided(let result) = state else { return nil }
            state = .done
            return result
        }
        if let decided { return try decided.get() }
        return try await withUnsafeThrowingContinuation { continuation in
            let decided = state.withLock { state -> Result? in
                guard case .decided(let result) = state else {
                    state = .waiting(continuation)
                    return nil
                }
                state = .done
                return result
            }
            if let decided { continuation.resume(with: decided) }
        }
    }
}

extension Logger {
    fileprivate func with(metadataKey: String, value: MetadataValue) -> Logger {
        var logger = self
        logger[metadataKey: metadataKey] = value
        return logger
    }
}
