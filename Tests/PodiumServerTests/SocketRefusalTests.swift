import Foundation
import NIOCore
import NIOPosix
import Testing

/// A refused WebSocket upgrade gets the router's answer, the same status and error body as the
/// same request over plain HTTP, not a bare `400`.
@Suite("Socket refusals", .timeLimit(.minutes(3)))
struct SocketRefusalTests {
    @Test func anUpgradeFromAnotherSiteIs403WithItsCode() async throws {
        try await TestServer.withLiveSession { client, token, code in
            let headers = [("Origin", "http://evil.example"), ("Cookie", "podium_auth=\(token)")]
            for path in ["/api/v1/sessions/\(code)/live", "/api/v1/lobby"] {
                let refused = try await RawHTTP.upgrade(port: client.port, path: path, headers: headers)
                #expect(refused.status == 403, "\(path): \(refused.head)")
                #expect(refused.errorCode == "origin_not_allowed", "\(path): \(refused.body)")
                // The same security headers as every other answer.
                #expect(refused.header("content-security-policy")?.contains("frame-ancestors 'none'") == true)
            }
        }
    }

    @Test func anUpgradeOfAnAddressThatIsNoSocketIsRefused() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let page = try await RawHTTP.upgrade(port: client.port, path: "/healthz")
            #expect(page.status == 400, "\(page.head)")
            #expect(page.errorCode == "not_a_socket")
            let nowhere = try await RawHTTP.upgrade(port: client.port, path: "/api/v1/no-such-socket")
            #expect(nowhere.status == 404, "\(nowhere.head)")
            #expect(nowhere.errorCode == "not_found")
        }
    }
}

/// One request written as is on a new connection, and everything the server sends back until it
/// closes the connection (a refused upgrade closes it) or, for a `101`, until the head is whole.
enum RawHTTP {
    struct Answer {
        let head: String
        let body: String

        var status: Int { Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0 }

        func header(_ name: String) -> String? {
            head.split(separator: "\r\n").dropFirst().compactMap { line -> String? in
                guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == name else { return nil }
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }.first
        }

        var errorCode: String? {
            let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            return (object?["error"] as? [String: Any])?["code"] as? String
        }
    }

    static func upgrade(port: Int, path: String, headers: [(String, String)] = []) async throws -> Answer {
        var request =
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        return try await exchange(port: port, request + "\r\n")
    }

    static func exchange(port: Int, _ request: String) async throws -> Answer {
        let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(continuation: continuation))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        defer { channel.close(promise: nil) }
        try await channel.writeAndFlush(ByteBuffer(string: request))
        var received = ""
        for await chunk in stream {
            received += String(buffer: chunk)
            // A 101 leaves the connection open for frames: its head is all there is to read.
            if received.hasPrefix("HTTP/1.1 101"), received.contains("\r\n\r\n") { break }
        }
        let parts = received.components(separatedBy: "\r\n\r\n")
        return Answer(head: parts[0], body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// Hands every read to the stream; finishes it when the connection closes.
    private final class Collector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let continuation: AsyncStream<ByteBuffer>.Continuation

        init(continuation: AsyncStream<ByteBuffer>.Continuation) { self.continuation = continuation }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            continuation.yield(unwrapInboundIn(data))
        }

        func channelInactive(context: ChannelHandlerContext) {
            continuation.finish()
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            continuation.finish()
            context.close(promise: nil)
        }
    }
}
