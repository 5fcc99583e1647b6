import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A response: its status and how many body bytes were read (all of them: the decoder ends a
/// response only once its Content-Length or chunked body is complete).
struct HTTPResult: Sendable {
    var status: Int
    var bodyBytes: Int
    /// False when the server said it closes the connection after this response (nginx does so
    /// after `keepalive_requests`, 1,000 by default).
    var keepAlive: Bool
}

/// One request on its way out, with the promise of its response.
struct HTTPRequest: Sendable {
    var head: HTTPRequestHead
    var body: ByteBuffer?
    var promise: EventLoopPromise<HTTPResult>
}

/// A minimal HTTP/1.1 client connection on NIO: requests one after another on a keep-alive socket.
final class HTTPClientHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPRequest
    typealias OutboundOut = HTTPClientRequestPart

    private var waiting = CircularBuffer<EventLoopPromise<HTTPResult>>()
    private var status = 0
    private var bodyBytes = 0
    private var keepAlive = true

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        waiting.append(request.promise)
        context.write(wrapOutboundOut(.head(request.head)), promise: nil)
        if let body = request.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.write(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
            bodyBytes = 0
            keepAlive = head.isKeepAlive
        case .body(let part):
            bodyBytes += part.readableBytes
        case .end:
            waiting.popFirst()?.succeed(HTTPResult(status: status, bodyBytes: bodyBytes, keepAlive: keepAlive))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        while let promise = waiting.popFirst() { promise.fail(LoadError("connection closed before the response ended")) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        while let promise = waiting.popFirst() { promise.fail(error) }
        context.close(promise: nil)
    }
}

struct HTTPConnection: Sendable {
    let channel: any Channel
    let host: String
    let port: Int

    static func connect(host: String, port: Int, on loop: any EventLoop) async throws -> HTTPConnection {
        let channel = try await ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(HTTPClientHandler())
                }
            }
            .connect(host: host, port: port).get()
        return HTTPConnection(channel: channel, host: host, port: port)
    }

    func request(
        _ method: HTTPMethod, _ path: String, body: ByteBuffer? = nil, close: Bool = false,
        timeout: TimeAmount = .seconds(20)
    ) async throws -> HTTPResult {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
        head.headers.add(name: "Host", value: "\(host):\(port)")
        if let body { head.headers.add(name: "Content-Length", value: String(body.readableBytes)) }
        if close { head.headers.add(name: "Connection", value: "close") }
        let promise = channel.eventLoop.makePromise(of: HTTPResult.self)
        let timer = channel.eventLoop.scheduleTask(in: timeout) { [channel] in
            promise.fail(LoadError("no response within \(timeout.nanoseconds / 1_000_000_000) s"))
            channel.close(promise: nil)
        }
        channel.writeAndFlush(HTTPRequest(head: head, body: body, promise: promise)).whenFailure { promise.fail($0) }
        defer { timer.cancel() }
        return try await promise.futureResult.get()
    }

    func close() { channel.close(promise: nil) }
}

/// Keep-alive connections to one server for requests sent without waiting for each other:
/// a request takes an idle connection or opens one.
final class HTTPPool: Sendable {
    let host: String
    let port: Int
    let loop: any EventLoop
    private let idle = Mutex<[HTTPConnection]>([])

    init(host: String, port: Int, loop: any EventLoop) {
        self.host = host
        self.port = port
        self.loop = loop
    }

    func request(_ method: HTTPMethod, _ path: String, body: ByteBuffer?) async throws -> HTTPResult {
        let connection: HTTPConnection
        if let kept = idle.withLock({ $0.popLast() }) {
            connection = kept
        } else {
            connection = try await HTTPConnection.connect(host: host, port: port, on: loop)
        }
        do {
            let result = try await connection.request(method, path, body: body)
            if result.keepAlive {
                idle.withLock { $0.append(connection) }
            } else {
                connection.close()
            }
            return result
        } catch {
            connection.close()
            throw error
        }
    }

    func closeAll() { for connection in idle.withLock({ $0 }) { connection.close() } }
}
