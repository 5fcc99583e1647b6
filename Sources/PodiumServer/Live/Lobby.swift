import HummingbirdWebSocket
import Logging

/// The home page's live list: a socket that receives `{"type":"sessions",…}` whenever live
/// sessions start, end or change their viewer count. Clients send nothing but pings.
enum Lobby {
    static func run(hub: LiveHub, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, logger: Logger) async throws
    {
        let outbox = Outbox(limit: 16)
        await hub.subscribeLobby(outbox)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await LiveConnection.write(outbox, to: outbound, logger: logger) }
            do {
                for try await _ in inbound.messages(maxSize: 1024) {}
            } catch {
                logger.debug("lobby socket ended: \(error)")
            }
            await hub.unsubscribeLobby(outbox)
            outbox.close(.finished)
        }
    }
}
