import HummingbirdWebSocket
import Logging
import NIOCore

/// The home page's live list: a socket that receives `{"type":"sessions",…}` whenever live
/// sessions start, end or change their viewer count. Clients send nothing but pings.
enum Lobby {
    static func run(
        hub: LiveHub, inbound: WebSocketInboundStream, context: WebSocketRouterContext<AppRequestContext>
    ) async throws {
        let outbox = Outbox(limit: 16, channel: context.requestContext.channel, logger: context.logger)
        await hub.subscribeLobby(outbox)
        do {
            for try await _ in inbound.messages(maxSize: 1024) {}
        } catch {
            context.logger.debug("lobby socket ended: \(error)")
        }
        await hub.unsubscribeLobby(outbox)
        await outbox.readerEnded()
    }
}
