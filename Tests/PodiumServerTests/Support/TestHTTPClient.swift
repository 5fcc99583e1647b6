import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOPosix
import Synchronization

/// A response as the tests read it: the head, and the whole body.
struct TestResponse: Sendable {
    let head: HTTPResponse
    let body: ByteBuffer
    let trailerHeaders: HTTPFields?

    var status: HTTPResponse.Status { head.status }
    var headers: HTTPFields { head.headerFields }
}

/// An HTTP/1.1 client for one test server: one kept-alive connection, opened at the first request
/// and again after the server closed it. It sends what it is given, adding only `Host` and
/// `Content-Length`; it does not follow redirects or keep cookies. Requests made at once are
/// pipelined on the connection and answered in order, as HTTP/1.1 has it.
///
/// A request that has no answer after ``timeout`` fails (so a hung server fails its test instead
/// of hanging it) and closes the connection, since an answer might still come on it.
final class TestHTTPClient: Sendable {
    let port: Int
    let timeout: Duration
    /// The connection: being opened, open, or closed (then the next request opens another).
    private let connection = Mutex<EventLoopFuture<any Channel>?>(nil)

    struct Timeout: Error, CustomStringConvertible {
        let description: String
    }

    /// The connection closed before the response was complete.
    struct ConnectionClosed: Error {}

    init(port: Int, timeout: Duration = .seconds(20)) {
        self.port = port
        self.timeout = timeout
    }

    func execute(
        _ method: HTTPRequest.Method, _ path: String, headers: HTTPFields = [:], body: ByteBuffer? = nil
    ) async throws -> TestResponse {
        var head = HTTPRequest(method: method, scheme: nil, authority: "127.0.0.1:\(port)", path: path, headerFields: headers)
        if let body {
            head.headerFields[.contentLength] = String(body.readableBytes)
        } else if head.headerFields[.contentLength] == nil, [.post, .put, .patch].contains(method) {
            // Otherwise NIO's encoder would add `Transfer-Encoding: chunked` to frame no body at all.
            head.headerFields[.contentLength] = "0"
        }
        let channel = try await openChannel()
        let promise = channel.eventLoop.makePromise(of: TestResponse.self)
        channel.writeAndFlush(PendingRequest(head: head, body: body, response: promise)).whenFailure { error in
            promise.fail(error)
        }
        let timeout = self.timeout
        let description = "\(method) \(path): no response after \(timeout)"
        return try await withThrowingTaskGroup(of: TestResponse.self) { group in
            group.addTask { try await promise.futureResult.get() }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw Timeout(description: description)
            }
            do {
                let response = try await group.next()!
                group.cancelAll()
                return response
            } catch {
                // Closing fails the pending response, so the group's other task ends too.
                channel.close(promise: nil)
                group.cancelAll()
                throw error
            }
        }
    }

    /// Closes the connection, if one is open.
    func close() async {
        guard let future = connection.withLock({ $0 }) else { return }
        guard let channel = try? await future.get() else { return }
        try? await channel.close()
    }

    private func openChannel() async throws -> any Channel {
        let (future, isNew) = connection.withLock { current -> (EventLoopFuture<any Channel>, Bool) in
            if let current { return (current, false) }
            let opened = connect()
            current = opened
            return (opened, true)
        }
        if let channel = try? await future.get(), channel.isActive { return channel }
        if isNew { return try await future.get() }  // a fresh connection that failed: say why
        // The server closed it (or it never opened): open another, unless a concurrent request did.
        let replacement = connection.withLock { current -> EventLoopFuture<any Channel> in
            if let current, current !== future { return current }
            let opened = connect()
            current = opened
            return opened
        }
        return try await replacement.get()
    }

    private func connect() -> EventLoopFuture<any Channel> {
        ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandlers([HTTP1ToHTTPClientCodec(), ResponseHandler()])
                }
            }
            .connect(host: "127.0.0.1", port: port)
    }
}

/// A request on its way to the connection, with the promise of its response.
private struct PendingRequest: Sendable {
    let head: HTTPRequest
    let body: ByteBuffer?
    let response: EventLoopPromise<TestResponse>
}

/// Writes requests and hands each response, once whole, to the oldest request still waiting.
private final class ResponseHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPResponsePart
    typealias OutboundIn = PendingRequest
    typealias OutboundOut = HTTPRequestPart

    private var waiting = CircularBuffer<EventLoopPromise<TestResponse>>()
    private var head: HTTPResponse?
    private var body = ByteBuffer()

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        waiting.append(request.response)
        context.write(wrapOutboundOut(.head(request.head)), promise: nil)
        if let body = request.body, body.readableBytes > 0 { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        context.write(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let response):
            // Interim responses (100 Continue) are not the answer.
            guard response.status.kind != .informational else { return }
            head = response
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end(let trailers):
            guard let response = head else { return }
            head = nil
            waiting.popFirst()?.succeed(TestResponse(head: response, body: body, trailerHeaders: trailers))
            body = ByteBuffer()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(TestHTTPClient.ConnectionClosed())
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failAll(error)
        context.close(promise: nil)
    }

    private func failAll(_ error: any Error) {
        while let promise = waiting.popFirst() { promise.fail(error) }
    }
}
