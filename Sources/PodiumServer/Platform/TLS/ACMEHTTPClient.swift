import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The few HTTPS requests of an ACME client (RFC 8555), one connection each. Written on NIO rather
/// than URLSession because the CA's own certificate may need a root of our choosing
/// (``ACMESettings/trustedCAFile``: a school's private ACME CA, the test server pebble), which
/// FoundationNetworking on Linux cannot be told per session.
struct ACMEHTTPClient: Sendable {
    struct Response: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: Data

        func header(_ name: String) -> String? { headers.first(name: name) }
    }

    private let tlsContext: NIOSSLContext
    /// The longest one request may take, connection and all.
    var timeout = TimeAmount.seconds(30)
    /// The largest answer read (a certificate chain is a few kilobytes).
    static let maxBodyBytes = 1 << 20

    init(trustedCAFile: URL?) throws {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let trustedCAFile { configuration.additionalTrustRoots = [.file(trustedCAFile.path)] }
        tlsContext = try NIOSSLContext(configuration: configuration)
    }

    func get(_ url: URL) async throws -> Response { try await send("GET", url, body: nil) }

    func post(_ url: URL, jose body: Data) async throws -> Response {
        try await send("POST", url, body: body, contentType: "application/jose+json")
    }

    func send(_ method: String, _ url: URL, body: Data?, contentType: String? = nil) async throws -> Response {
        guard url.scheme?.lowercased() == "https", let host = url.host, !host.isEmpty else {
            throw ACMEError("the ACME address \(url) is not an https:// URL")
        }
        let port = url.port ?? 443
        let serverName = host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" } ? nil : host
        let group = MultiThreadedEventLoopGroup.singleton
        let promise = group.next().makePromise(of: Response.self)
        let tlsContext = self.tlsContext
        let channel = try await ClientBootstrap(group: group)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        try NIOSSLClientHandler(context: tlsContext, serverHostname: serverName))
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(ResponseCollector(promise: promise))
                }
            }
            .connect(host: host, port: port).get()
        let deadline = channel.eventLoop.scheduleTask(in: timeout) {
            promise.fail(ACMEError("\(method) \(url) took longer than \(timeout.nanoseconds / 1_000_000_000) s"))
            channel.close(promise: nil)
        }
        defer { deadline.cancel() }
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?\(query)" }
        var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: path)
        head.headers.add(name: "Host", value: url.port.map { "\(host):\($0)" } ?? host)
        head.headers.add(name: "User-Agent", value: "Podium ACME client")
        head.headers.add(name: "Connection", value: "close")
        if let contentType { head.headers.add(name: "Content-Type", value: contentType) }
        if let body { head.headers.add(name: "Content-Length", value: String(body.count)) }
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil) }
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        defer { channel.close(promise: nil) }
        return try await promise.futureResult.get()
    }

    /// Gathers one response; fails the promise if the connection ends first.
    private final class ResponseCollector: ChannelInboundHandler {
        typealias InboundIn = HTTPClientResponsePart
        let promise: EventLoopPromise<Response>
        var head: HTTPResponseHead?
        var body = Data()

        init(promise: EventLoopPromise<Response>) { self.promise = promise }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): self.head = head
            case .body(var buffer):
                guard body.count + buffer.readableBytes <= ACMEHTTPClient.maxBodyBytes else {
                    promise.fail(ACMEError("the ACME server's answer is too large"))
                    context.close(promise: nil)
                    return
                }
                body.append(contentsOf: buffer.readBytes(length: buffer.readableBytes) ?? [])
            case .end:
                if let head { promise.succeed(Response(status: Int(head.status.code), headers: head.headers, body: body)) }
                context.close(promise: nil)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            promise.fail(error)
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.fail(ACMEError("the ACME server closed the connection before it answered"))
            context.fireChannelInactive()
        }
    }
}

struct ACMEError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
