import Hummingbird
import Logging
import NIOCore

/// The home page's live list: a socket that receives `{"type":"sessions",…}` whenever live
/// sessions start, end or change their viewer count. Clients send nothing but pings.
final class Lobby: SocketEndpoint {
    static let maxMessageBytes = 1024

    let outbox: Outbox
    private let hub: LiveHub

    /// Accepts the upgrade of `/lobby`.
    /// - Parameter logger: the server's logger, which every socket shares (see ``SocketLog``).
    static func accept(hub: LiveHub, context: AppRequestContext, logger: Logger) -> SocketUpgrade.Install {
        let log = SocketLog(shared: logger, request: context.logger)
        return { channel in
            let lobby = Lobby(hub: hub, outbox: Outbox(limit: 16, channel: channel, log: log))
            try SocketHandler.install(on: channel, endpoint: lobby, maxMessageBytes: maxMessageBytes)
        }
    }

    private init(hub: LiveHub, outbox: Outbox) {
        self.hub = hub
        self.outbox = outbox
    }

    func opened() async { await hub.subscribeLobby(outbox) }
    func received(_ text: String) async {}
    func receivedBinary() async {}
    func ended() async { await hub.unsubscribeLobby(outbox) }
}
