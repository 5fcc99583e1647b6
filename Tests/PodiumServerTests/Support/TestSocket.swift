import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization
import Testing

/// A live-socket client for tests: send JSON, read the messages in order.
///
/// A test that expects a message waits for it (the suite's time limit catches a message that
/// never comes); to check that nothing *else* arrived, `barrier()` sends a ping and expects the
/// pong next, since the server answers in order.
///
/// It behaves as a WebSocket library does: its frames are masked, it answers the server's pings
/// as they come (whether the test reads or not), it echoes the server's close frame, and it
/// closes the socket (code 1009) on a message larger than `maxSize`. Messages are buffered as
/// they arrive, so the server never waits on this client however little the test reads.
final class TestSocket {
    private let channel: any Channel
    private let state: SocketState
    private var iterator: AsyncStream<String>.Iterator
    private(set) var closed = false

    private init(channel: any Channel, state: SocketState, iterator: AsyncStream<String>.Iterator) {
        self.channel = channel
        self.state = state
        self.iterator = iterator
    }

    /// Connects and upgrades with `headers` added to the upgrade request; throws ``SocketClosed``
    /// if the server refuses the upgrade.
    static func connect(port: Int, path: String, headers: HTTPFields = [:], maxSize: Int = 1 << 20) async throws -> TestSocket {
        let (messages, continuation) = AsyncStream.makeStream(of: String.self)
        let state = SocketState()
        var requestHeaders = HTTPHeaders([("Host", "127.0.0.1:\(port)")])
        for field in headers { requestHeaders.add(name: field.name.rawName, value: field.value) }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: requestHeaders)
        let (channel, upgraded) = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Bool>(
                        maxFrameSize: maxSize,
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandler(
                                    FrameHandler(maxSize: maxSize, messages: continuation, state: state))
                                return true
                            }
                        })
                    let upgrade = NIOTypedHTTPClientUpgradeConfiguration<Bool>(
                        upgradeRequestHead: head, upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(false) })
                    var configuration = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: upgrade)
                    // The frames that come with the 101 (the lobby's first list does) are the socket's.
                    configuration.leftOverBytesStrategy = .forwardBytes
                    let result = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: configuration)
                    return (channel, result)
                }
            }
        let accepted: Bool
        do {
            accepted = try await upgraded.get()
        } catch {
            accepted = false
        }
        guard accepted else {
            continuation.finish()
            try? await channel.close()
            throw SocketClosed()
        }
        return TestSocket(channel: channel, state: state, iterator: messages.makeAsyncIterator())
    }

    struct SocketClosed: Error {}

    /// Why the socket closed, once it has: for a test's failure message.
    func closeDescription() async -> String {
        try? await channel.closeFuture.get()
        return state.description
    }

    func send(_ json: String) async throws {
        let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: json))
        try await channel.writeAndFlush(frame)
    }

    func send(_ object: [String: Any]) async throws {
        try await send(String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
    }

    /// The next message, or nil once the server closed the socket.
    func next() async throws -> [String: Any]? {
        guard let text = await iterator.next() else {
            closed = true
            return nil
        }
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// The next message as the server sent it, or nil once the server closed the socket.
    func nextText() async -> String? {
        guard let text = await iterator.next() else {
            closed = true
            return nil
        }
        return text
    }

    /// The next message, which must have this type.
    func expect(_ type: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
        let message = try await next()
        #expect(
            message?["type"] as? String == type, "expected \(type), got \(String(describing: message))",
            sourceLocation: sourceLocation)
        return message ?? [:]
    }

    static let ephemeralTypes: Set = [
        "pointer", "presence", "results", "myAnswer", "questions", "viewerList", "publicQuestions", "myVotes", "leaderboard",
        "myScore", "inking", "roomPresence",
    ]

    /// Skips ephemeral messages (pointer, presence, lists) until one of another type arrives.
    func nextDurable() async throws -> [String: Any]? {
        while let message = try await next() {
            if !Self.ephemeralTypes.contains(message["type"] as? String ?? "") { return message }
        }
        return nil
    }

    /// Skips everything until a message of this type arrives.
    func next(ofType type: String) async throws -> [String: Any]? {
        while let message = try await next() {
            if message["type"] as? String == type { return message }
        }
        return nil
    }

    /// Proves nothing but ephemeral messages arrived before now.
    func barrier(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await send(#"{"type":"ping"}"#)
        let message = try await nextDurable()
        #expect(
            message?["type"] as? String == "pong", "expected nothing before pong, got \(String(describing: message))",
            sourceLocation: sourceLocation)
    }

    func hello(_ fields: [String: Any]) async throws -> [String: Any] {
        var hello = fields
        hello["type"] = "hello"
        try await send(hello)
        return try await next() ?? [:]
    }

    /// Waits until the server has closed the socket, skipping what is left.
    func waitForClose() async throws {
        while try await next() != nil {}
    }

    func close() async {
        var code = ByteBuffer()
        code.write(webSocketErrorCode: .normalClosure)
        try? await channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: code))
        try? await channel.close()
    }

    deinit { channel.close(promise: nil) }
}

/// How a socket ended: the error that closed it, or the server's close frame.
private final class SocketState: Sendable {
    private let ending = Mutex<String?>(nil)

    /// Keeps the first reason given.
    func end(_ reason: String) {
        ending.withLock { if $0 == nil { $0 = reason } }
    }

    var description: String {
        ending.withLock { $0 } ?? "closed without error"
    }
}

/// The socket's frames, on the connection's event loop: answers pings, reassembles messages and
/// hands the text ones on, and answers a close frame with one of its own.
private final class FrameHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    struct MessageTooLarge: Error, CustomStringConvertible {
        let size: Int
        let maxSize: Int
        var description: String { "the server sent a message of at least \(size) bytes, more than \(maxSize)" }
    }

    private let maxSize: Int
    private let messages: AsyncStream<String>.Continuation
    private let state: SocketState
    /// The first frames of a fragmented message: its opcode and data so far.
    private var fragments: (opcode: WebSocketOpcode, data: ByteBuffer)?
    private var sentClose = false

    init(maxSize: Int, messages: AsyncStream<String>.Continuation, state: SocketState) {
        self.maxSize = maxSize
        self.messages = messages
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .pong:
            break
        case .connectionClose:
            var payload = frame.unmaskedData
            let code = payload.readWebSocketErrorCode()
            let reason = payload.readString(length: payload.readableBytes) ?? ""
            state.end("closed by the server: \(code.map { "\($0)" } ?? "no code") \(reason)")
            if !sentClose {
                sentClose = true
                var echo = ByteBuffer()
                if let code { echo.write(webSocketErrorCode: code) }
                let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: echo)
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in channel.close(promise: nil) }
            } else {
                context.close(promise: nil)
            }
        case .text, .binary:
            if frame.fin {
                deliver(frame.opcode, frame.unmaskedData, context: context)
            } else {
                fragments = (frame.opcode, frame.unmaskedData)
                checkSize(fragments?.data.readableBytes ?? 0, context: context)
            }
        case .continuation:
            guard var started = fragments else { return }
            var data = frame.unmaskedData
            started.data.writeBuffer(&data)
            fragments = frame.fin ? nil : started
            if frame.fin {
                deliver(started.opcode, started.data, context: context)
            } else {
                checkSize(started.data.readableBytes, context: context)
            }
        default:
            break
        }
    }

    private func deliver(_ opcode: WebSocketOpcode, _ data: ByteBuffer, context: ChannelHandlerContext) {
        guard checkSize(data.readableBytes, context: context) else { return }
        if opcode == .text { messages.yield(String(buffer: data)) }
    }

    /// Closes the socket (1009) if a message has grown past the limit.
    @discardableResult
    private func checkSize(_ size: Int, context: ChannelHandlerContext) -> Bool {
        guard size > maxSize else { return true }
        state.end("\(MessageTooLarge(size: size, maxSize: maxSize))")
        messages.finish()
        fragments = nil
        guard !sentClose else { return false }
        sentClose = true
        var code = ByteBuffer()
        code.write(webSocketErrorCode: .messageTooLarge)
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: code)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in channel.close(promise: nil) }
        return false
    }

    func channelInactive(context: ChannelHandlerContext) {
        messages.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        state.end("\(error)")
        messages.finish()
        context.close(promise: nil)
    }
}
