import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import Synchronization

/// A byte stream to a server, over TLS trusting only the test's CA (or plain TCP), for the HTTPS
/// tests: HTTP/1.1 requests written by hand, and a WebSocket's frames.
final class TLSTestConnection: Sendable {
    let channel: any Channel
    private let received: Received

    final class Received: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let state = Mutex<(bytes: [UInt8], closed: Bool, error: String?)>(([], false, nil))
        /// The certificate the server presented, kept when the handshake completes.
        let certificate = Mutex<NIOSSLCertificate?>(nil)
        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case .handshakeCompleted = event as? TLSUserEvent {
                let served = try? context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self).peerCertificate
                certificate.withLock { $0 = served }
            }
            context.fireUserInboundEventTriggered(event)
        }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
            state.withLock { $0.bytes += bytes }
        }
        func channelInactive(context: ChannelHandlerContext) { state.withLock { $0.closed = true } }
        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            state.withLock { $0.error = "\(error)" }
            context.close(promise: nil)
        }
    }

    /// Connects to 127.0.0.1:`port`; with `trusting` (PEM CA file), over TLS naming `serverName`.
    static func connect(port: Int, trusting caFile: URL?, serverName: String = "localhost") async throws -> TLSTestConnection {
        let received = Received()
        var context: NIOSSLContext?
        if let caFile {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.trustRoots = .file(caFile.path)
            context = try NIOSSLContext(configuration: configuration)
        }
        let tls = context
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(
                            try NIOSSLClientHandler(context: tls, serverHostname: serverName))
                    }
                    try channel.pipeline.syncOperations.addHandler(received)
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return TLSTestConnection(channel: channel, received: received)
    }

    private init(channel: any Channel, received: Received) {
        self.channel = channel
        self.received = received
    }

    /// The certificate the server presented (once the handshake is done).
    var servedCertificate: NIOSSLCertificate? { received.certificate.withLock { $0 } }

    /// Not waited for: over TLS a write completes only after the handshake, which a server may
    /// never finish (``read(seconds:until:)`` has the deadline).
    func write(_ bytes: [UInt8]) async throws {
        channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
    }

    func write(_ text: String) async throws { try await write(Array(text.utf8)) }

    /// Waits until `complete` says the bytes so far are enough (it returns how many to take), or
    /// the connection ends; the bytes taken.
    func read(seconds: Double = 20, until complete: ([UInt8], Bool) -> Int?) async throws -> [UInt8] {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            let (bytes, closed, error) = received.state.withLock { $0 }
            if let count = complete(bytes, closed) {
                received.state.withLock { $0.bytes.removeFirst(count) }
                return Array(bytes.prefix(count))
            }
            if let error { throw TLSTestError("connection failed: \(error)") }
            if closed { throw TLSTestError("closed after \(bytes.count) bytes: \(String(decoding: bytes, as: UTF8.self))") }
            guard ContinuousClock.now < deadline else { throw TLSTestError("no answer in \(seconds) s") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    func close() async { try? await channel.close() }

    /// One HTTP/1.1 request on a new connection (closed after).
    static func request(
        port: Int, trusting caFile: URL?, serverName: String = "localhost", method: String = "GET", path: String,
        host: String? = nil, headers: [String: String] = [:], body: [UInt8] = []
    ) async throws -> TLSTestResponse {
        let connection = try await connect(port: port, trusting: caFile, serverName: serverName)
        defer { Task { await connection.close() } }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host ?? "\(serverName):\(port)")\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        try await connection.write(Array((head + "\r\n").utf8) + body)
        let bytes = try await connection.read { bytes, closed in closed ? bytes.count : nil }
        var response = try TLSTestResponse(bytes)
        response.certificate = connection.servedCertificate
        return response
    }
}

struct TLSTestResponse {
    let status: Int
    /// Lower-cased names; a name given several times has several values.
    let headers: [(name: String, value: String)]
    let body: [UInt8]
    /// The certificate the server presented (TLS only).
    var certificate: NIOSSLCertificate?

    init(_ bytes: [UInt8]) throws {
        guard let end = Self.headEnd(bytes) else { throw TLSTestError("no response head in \(bytes.count) bytes") }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        status = Int(lines[0].split(separator: " ")[1]) ?? 0
        headers = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var rest = Array(bytes[(end + 4)...])
        if headers.contains(where: { $0.name == "transfer-encoding" && $0.value.lowercased() == "chunked" }) {
            var decoded: [UInt8] = []
            while let lineEnd = Self.find([13, 10], in: rest),
                let size = Int(String(decoding: rest[..<lineEnd], as: UTF8.self), radix: 16),
                size > 0
            {
                decoded += rest[(lineEnd + 2)..<(lineEnd + 2 + size)]
                rest = Array(rest[(lineEnd + 2 + size + 2)...])
            }
            rest = decoded
        }
        body = rest
    }

    func header(_ name: String) -> String? { headers.first { $0.name == name.lowercased() }?.value }
    func values(_ name: String) -> [String] { headers.filter { $0.name == name.lowercased() }.map(\.value) }

    static func headEnd(_ bytes: [UInt8]) -> Int? { find([13, 10, 13, 10], in: bytes) }

    static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        for index in 0...(bytes.count - needle.count) where Array(bytes[index..<(index + needle.count)]) == needle {
            return index
        }
        return nil
    }
}

struct TLSTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
