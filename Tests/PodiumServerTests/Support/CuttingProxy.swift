import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy in front of a test server that drops connections as conference Wi-Fi does: it
/// passes bytes both ways unchanged, and when told, cuts the next `PATCH` after some bytes of its
/// body (the server gets the headers and those bytes, then the connection closes; the client
/// gets no answer), or drops the answer to the next `PATCH` (the server takes the whole request,
/// the client never hears back). It records the `Upload-Offset` of every `PATCH` it sees, so a
/// test knows from where a client sent.
final class CuttingProxy: Sendable {
    enum Cut: Sendable {
        /// Pass the headers and this many body bytes, then close both sides.
        case body(afterBytes: Int)
        /// Pass the whole request, then close both sides when the answer starts.
        case answer
        /// Pass the headers and this many body bytes, then pass nothing more (the client's
        /// further bytes are dropped) until the client goes away: a run killed mid-upload.
        case hold(afterBytes: Int)
    }

    let port: Int
    private let target: Int
    private let listener: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
    private let cuts = Mutex<[Cut]>([])
    private let offsets = Mutex<[Int64]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)

    fileprivate let lastCut = Mutex<(path: String, end: Int64)?>(nil)

    /// The `Upload-Offset` of every `PATCH` so far, in order.
    var patchOffsets: [Int64] { offsets.withLock { $0 } }
    /// Where the body of the last `PATCH` cut mid-body stopped: its offset and the bytes passed.
    var lastCutEnd: Int64? { lastCut.withLock { $0?.end } }
    /// How many `PATCH`es are held now (``Cut/hold(afterBytes:)``), their bytes passed.
    var held: Int { holding.withLock { $0 } }
    fileprivate let holding = Mutex(0)
    /// The path of the last `PATCH` cut mid-body.
    var lastPatchPath: String? { lastCut.withLock { $0?.path } }

    /// Cuts the next `PATCH` (queued: one cut for each `PATCH` after it).
    func cutNextPatch(_ cut: Cut) { cuts.withLock { $0.append(cut) } }

    private init(target: Int, listener: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>) {
        self.target = target
        self.listener = listener
        self.port = listener.channel.localAddress?.port ?? 0
    }

    /// A proxy on a free port of 127.0.0.1 in front of `127.0.0.1:target`; ``close()`` it.
    static func start(target: Int) async throws -> CuttingProxy {
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let proxy = CuttingProxy(target: target, listener: listener)
        proxy.task.withLock {
            $0 = Task {
                try? await withThrowingDiscardingTaskGroup { group in
                    try await listener.executeThenClose { connections in
                        for try await connection in connections {
                            group.addTask { await proxy.relay(connection) }
                        }
                    }
                }
            }
        }
        return proxy
    }

    func close() async {
        listener.channel.close(promise: nil)
        let running = task.withLock { $0 }
        running?.cancel()
        await running?.value
    }

    struct Dropped: Error {}

    final class Flag: Sendable {
        let value = Mutex(false)
    }

    /// One client connection: to the server and back until either side closes, or a cut.
    private func relay(_ client: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        let server: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            server = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: target) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            try? await client.executeThenClose { _, _ in }
            return
        }
        let dropAnswer = Flag()
        try? await client.executeThenClose { fromClient, toClient in
            try await server.executeThenClose { fromServer, toServer in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        var request = RequestWatch()
                        var holds = false
                        defer { if holds { self.holding.withLock { $0 -= 1 } } }
                        for try await var chunk in fromClient {
                            if holds { continue }
                            if let cut = request.read(chunk, proxy: self) {
                                if case .answer = cut { dropAnswer.value.withLock { $0 = true } }
                            }
                            if let budget = request.budget {
                                let pass = min(budget, chunk.readableBytes)
                                request.budget = budget - pass
                                let cutsHere = request.budget == 0 && !request.holds
                                if pass > 0, let part = chunk.readSlice(length: pass) {
                                    if cutsHere {
                                        // The last bytes before a cut are written straight to the
                                        // channel and waited for: the future completes once they
                                        // are in the socket (after the writer's earlier bytes, which
                                        // the event loop took first), so closing cannot drop them.
                                        try await server.channel.writeAndFlush(part).get()
                                    } else {
                                        try await toServer.write(part)
                                    }
                                }
                                if request.budget == 0, request.holds {
                                    holds = true
                                    self.holding.withLock { $0 += 1 }
                                } else if cutsHere {
                                    throw Dropped()
                                }
                            } else {
                                try await toServer.write(chunk)
                            }
                        }
                    }
                    group.addTask {
                        for try await chunk in fromServer {
                            if dropAnswer.value.withLock({ $0 }) { throw Dropped() }
                            try await toClient.write(chunk)
                        }
                    }
                    _ = try await group.next()
                    group.cancelAll()
                }
            }
        }
    }

    fileprivate func takeCut() -> Cut? {
        cuts.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }

    fileprivate func record(offset: Int64) { offsets.withLock { $0.append(offset) } }

    /// Reads a connection's requests far enough to tell a `PATCH`, its `Upload-Offset`, and where
    /// its body starts.
    struct RequestWatch {
        /// The head of the request being read (until its blank line).
        var head = [UInt8]()
        var inHead = true
        var cut: Cut?
        /// Bytes still to pass before the cut; nil: no cut pending on this connection.
        var budget: Int?
        /// Whether the cut holds the connection open instead of closing it.
        var holds = false

        /// Notes `chunk`; returns the cut this connection's `PATCH` takes, once, when its head is whole.
        mutating func read(_ chunk: ByteBuffer, proxy: CuttingProxy) -> Cut? {
            guard inHead else { return nil }
            let bytes = Array(chunk.readableBytesView)
            for (index, byte) in bytes.enumerated() {
                head.append(byte)
                guard head.count >= 4, head.suffix(4) == [13, 10, 13, 10] else { continue }
                inHead = false
                let text = String(decoding: head, as: UTF8.self)
                guard text.hasPrefix("PATCH ") else { return nil }
                let offset = text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("upload-offset:") }
                    .flatMap { Int64($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
                proxy.record(offset: offset ?? -1)
                guard let cut = proxy.takeCut() else { return nil }
                if case .hold(let after) = cut {
                    holds = true
                    budget = index + 1 + after
                    let path = text.split(separator: " ").dropFirst().first.map(String.init) ?? ""
                    proxy.lastCut.withLock { $0 = (path, (offset ?? 0) + Int64(after)) }
                }
                if case .body(let after) = cut {
                    let path = text.split(separator: " ").dropFirst().first.map(String.init) ?? ""
                    proxy.lastCut.withLock { $0 = (path, (offset ?? 0) + Int64(after)) }
                    // This chunk's bytes up to the blank line, and `after` bytes of body.
                    budget = index + 1 + after
                }
                return cut
            }
            return nil
        }
    }
}
