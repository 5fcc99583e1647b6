import NIOCore
import NIOPosix
import Testing

/// A real TCP connection on 127.0.0.1 with no handlers on either end, for tests of what a
/// connection's channel options do: `body` gets the server's accepted channel (where Podium sets
/// its options), and both ends and the listener are closed after it.
func withLoopbackConnection<Result>(_ body: (_ accepted: any Channel) async throws -> Result) async throws -> Result {
    let (accepted, continuation) = AsyncStream.makeStream(of: (any Channel).self)
    let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .childChannelInitializer { channel in
            continuation.yield(channel)
            return channel.eventLoop.makeSucceededVoidFuture()
        }
        .bind(host: "127.0.0.1", port: 0).get()
    let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connect(host: "127.0.0.1", port: server.localAddress!.port!).get()
    var connections = accepted.makeAsyncIterator()
    let result: Result
    do {
        let connection = try #require(await connections.next())
        result = try await body(connection)
    } catch {
        try? await client.close()
        try? await server.close()
        throw error
    }
    try await client.close()
    try await server.close()
    return result
}
