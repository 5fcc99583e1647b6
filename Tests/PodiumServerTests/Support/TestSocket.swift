import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import Synchronization
import Testing

/// A live-socket client for tests: send JSON, read the messages in order.
///
/// A test that expects a message waits for it (the suite's time limit catches a message that
/// never comes); to check that nothing *else* arrived, `barrier()` sends a ping and expects the
/// pong next, since the server answers in order.
final class TestSocket {
    private let outbound: WriterBox
    private var iterator: AsyncStream<String>.Iterator
    private let task: Task<Void, any Error>
    private(set) var closed = false

    private init(outbound: WriterBox, iterator: AsyncStream<String>.Iterator, task: Task<Void, any Error>) {
        self.outbound = outbound
        self.iterator = iterator
        self.task = task
    }

    static func connect(port: Int, path: String, headers: HTTPFields = [:], maxSize: Int = 1 << 20) async throws -> TestSocket {
        let (messages, continuation) = AsyncStream.makeStream(of: String.self)
        let (ready, readyContinuation) = AsyncStream.makeStream(of: WebSocketOutboundWriter.self)
        let box = WriterBox()
        let task = Task {
            defer {
                continuation.finish()
                readyContinuation.finish()  // a refused handshake never reaches the handler
            }
            var logger = Logger(label: "test-socket")
            logger.logLevel = .warning
            try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)\(path)",
                configuration: .init(maxFrameSize: maxSize, additionalHeaders: headers),
                logger: logger
            ) { inbound, outbound, _ in
                readyContinuation.yield(outbound)
                readyContinuation.finish()
                for try await message in inbound.messages(maxSize: maxSize) {
                    if case .text(let text) = message { continuation.yield(text) }
                }
            }
        }
        var readyIterator = ready.makeAsyncIterator()
        guard let writer = await readyIterator.next() else {
            _ = try await task.value
            throw SocketClosed()
        }
        box.writer.withLock { $0 = writer }
        return TestSocket(outbound: box, iterator: messages.makeAsyncIterator(), task: task)
    }

    struct SocketClosed: Error {}

    /// Why the socket's client stopped: for a test's failure message.
    func closeDescription() async -> String {
        do {
            try await task.value
            return "closed without error"
        } catch {
            return "\(error)"
        }
    }

    func send(_ json: String) async throws {
        guard let writer = outbound.writer.withLock({ $0 }) else { throw SocketClosed() }
        try await writer.write(.text(json))
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
        if let writer = outbound.writer.withLock({ $0 }) { try? await writer.close(.normalClosure, reason: nil) }
        task.cancel()
    }

    deinit { task.cancel() }
}

/// Holds the socket's writer once connected.
final class WriterBox: Sendable {
    let writer = Mutex<WebSocketOutboundWriter?>(nil)
}
