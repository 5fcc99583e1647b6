import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization

/// A WebSocket client on SwiftNIO: the transport of ``PodiumLiveSession``.
///
/// Why not `URLSessionWebSocketTask`: on Linux, FoundationNetworking implements it on libcurl's
/// WebSocket API, which Debian 12's libcurl 7.88.1 is built without (`curl --version` lists no
/// `ws`/`wss` among its protocols), so the task fails to connect there. SwiftNIO is already in
/// the package graph (the server runs on it), works the same on Linux and macOS, and lets the SDK
/// mask frames, answer pings and reassemble fragmented messages as RFC 6455 asks. `wss:` (a
/// server behind a TLS-terminating proxy) goes through NIOSSL with the system's trust roots.
final class WebSocket: Sendable {
    private let channel: any Channel
    let messages: AsyncStream<String>
    private let end: SocketEnd

    private init(channel: any Channel, messages: AsyncStream<String>, end: SocketEnd) {
        self.channel = channel
        self.messages = messages
        self.end = end
    }

    /// Why the socket closed (the server's close frame or the error), once it has.
    var closeReason: String { end.reason ?? "closed" }

    static func connect(url: URL, headers: [(String, String)], maxSize: Int = 1 << 20) async throws -> WebSocket {
        guard url.scheme == "ws" || url.scheme == "wss" else {
            throw PodiumTransportError(.unreachable, "not a WebSocket URL: \(url)")
        }
        guard let host = url.host else { throw PodiumTransportError(.unreachable, "no host in \(url)") }
        let secure = url.scheme == "wss"
        let port = url.port ?? (secure ? 443 : 80)
        let tls: NIOSSLContext?
        do {
            tls = secure ? try NIOSSLContext(configuration: .makeClientConfiguration()) : nil
        } catch {
            throw PodiumTransportError(.unreachable, "TLS: \(error)")
        }
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        let (messages, continuation) = AsyncStream.makeStream(of: String.self)
        var requestHeaders = HTTPHeaders([("Host", url.port.map { "\(host):\($0)" } ?? host)])
        for (name, value) in headers { requestHeaders.add(name: name, value: value) }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: requestHeaders)
        let handlerState = SocketEnd()
        let channel: any Channel
        let upgraded: EventLoopFuture<Bool>
        do {
            (channel, upgraded) = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(10))
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls {
                            try channel.pipeline.syncOperations.addHandler(
                                try NIOSSLClientHandler(context: tls, serverHostname: host))
                        }
                        let upgrader = NIOTypedWebSocketClientUpgrader<Bool>(
                            maxFrameSize: maxSize,
                            upgradePipelineHandler: { channel, _ in
                                channel.eventLoop.makeCompletedFuture {
                                    try channel.pipeline.syncOperations.addHandler(
                                        FrameHandler(maxSize: maxSize, messages: continuation, end: handlerState))
                                    return true
                                }
                            })
                        let upgrade = NIOTypedHTTPClientUpgradeConfiguration<Bool>(
                            upgradeRequestHead: head, upgraders: [upgrader],
                            notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(false) })
                        var configuration = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: upgrade)
                        configuration.leftOverBytesStrategy = .forwardBytes
                        let result = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                            configuration: configuration)
                        return (channel, result)
                    }
                }
        } catch {
            continuation.finish()
            throw PodiumTransportError(.unreachable, "\(url): \(error)")
        }
        let accepted = (try? await upgraded.get()) ?? false
        guard accepted else {
            continuation.finish()
            try? await channel.close()
            throw PodiumTransportError(.socketClosed, "\(url): the server refused the WebSocket upgrade")
        }
        return WebSocket(channel: channel, messages: messages, end: handlerState)
    }

    func send(_ text: String) async throws {
        let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text))
        do {
            try await channel.writeAndFlush(frame)
        } catch {
            throw PodiumTransportError(.socketClosed, "send failed: \(error)")
        }
    }

    /// Closes with code 1000 (or cuts the connection at once when `abruptly`, as a lost network does).
    func close(abruptly: Bool = false) async {
        if !abruptly {
            var code = ByteBuffer()
            code.write(webSocketErrorCode: .normalClosure)
            try? await channel.writeAndFlush(
                WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: code))
        }
        try? await channel.close()
    }

    deinit { channel.close(promise: nil) }
}

/// The first reason a socket ended.
private final class SocketEnd: Sendable {
    private let state = Mutex<String?>(nil)

    var reason: String? { state.withLock { $0 } }

    func end(_ text: String) {
        state.withLock { if $0 == nil { $0 = text } }
    }
}

/// The socket's frames, on the connection's event loop: answers pings, reassembles messages,
/// hands text ones on, and answers a close frame with one of its own.
private final class FrameHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let maxSize: Int
    private let messages: AsyncStream<String>.Continuation
    private let end: SocketEnd
    private var fragments: (opcode: WebSocketOpcode, data: ByteBuffer)?
    private var sentClose = false

    init(maxSize: Int, messages: AsyncStream<String>.Continuation, end: SocketEnd) {
        self.maxSize = maxSize
        self.messages = messages
        self.end = end
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            var payload = frame.unmaskedData
            let code = payload.readWebSocketErrorCode()
            let text = payload.readString(length: payload.readableBytes) ?? ""
            end.end("closed by the server: \(code.map { "\($0)" } ?? "no code") \(text)")
            if !sentClose {
                sentClose = true
                var echo = ByteBuffer()
                if let code { echo.write(webSocketErrorCode: code) }
                let reply = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: echo)
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(reply)).whenComplete { _ in channel.close(promise: nil) }
            } else {
                context.close(promise: nil)
            }
        case .text, .binary:
            if frame.fin {
                deliver(frame.opcode, frame.unmaskedData, context: context)
            } else {
                fragments = (frame.opcode, frame.unmaskedData)
            }
        case .continuation:
            guard var started = fragments else { return }
            var data = frame.unmaskedData
            started.data.writeBuffer(&data)
            fragments = frame.fin ? nil : started
            if frame.fin {
                deliver(started.opcode, started.data, context: context)
            } else if started.data.readableBytes > maxSize {
                tooLarge(context: context)
            }
        default:
            break
        }
    }

    private func deliver(_ opcode: WebSocketOpcode, _ data: ByteBuffer, context: ChannelHandlerContext) {
        guard data.readableBytes <= maxSize else { return tooLarge(context: context) }
        if opcode == .text { messages.yield(String(buffer: data)) }
    }

    private func tooLarge(context: ChannelHandlerContext) {
        end.end("the server sent a message over \(maxSize) bytes")
        messages.finish()
        fragments = nil
        guard !sentClose else { return }
        sentClose = true
        var code = ByteBuffer()
        code.write(webSocketErrorCode: .messageTooLarge)
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: code)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in channel.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        end.end("connection closed")
        messages.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        end.end("\(error)")
        messages.finish()
        context.close(promise: nil)
    }
}
