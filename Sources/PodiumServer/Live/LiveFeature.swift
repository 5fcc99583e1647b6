import Hummingbird
import Logging
import NIOCore
import PodiumStore

/// The live sockets of sessions and rooms (`/api/v1/sessions/:code/live`) and of the lobby
/// (`/api/v1/lobby`), on this node's ``LiveHub``. The routes decide (origin, session code) and
/// accept the upgrade; the sockets then run on their own handlers (see PodiumServerChannel).
struct LiveFeature: ServerFeature {
    let live: LiveConnection
    let origins: OriginCheck
    let hub: LiveHub
    let logger: Logger
    /// A viewer's upgrade of the live route, decided before the router (see ``LiveUpgrade``).
    let upgrade: LiveUpgrade

    init(_ platform: Platform) {
        let configuration = platform.configuration
        live = LiveConnection(
            hub: platform.hub, accounts: platform.accounts,
            videos: LibraryStageVideos(
                store: platform.stores.videos, tokens: platform.streamTokens, lifetime: configuration.stageVideoLinkLifetime),
            passcodesPerClient: Backoff(
                .init(
                    freeFailures: configuration.passcodeAttempts, firstDelay: configuration.passcodeDelay,
                    maxDelay: configuration.passcodeMaxDelay, memory: configuration.passcodeMemory)),
            passcodesPerSession: Backoff(
                .init(
                    freeFailures: configuration.passcodeSessionAttempts, firstDelay: configuration.passcodeSessionDelay,
                    maxDelay: configuration.passcodeSessionMaxDelay, memory: configuration.passcodeMemory)),
            outboxLimit: configuration.outboxLimit,
            heartbeat: Outbox.Heartbeat(
                interval: TimeAmount(configuration.livePingInterval), silenceLimit: TimeAmount(configuration.liveSilenceLimit)),
            messageRate: configuration.socketMessageRate, helloTimeout: TimeAmount(configuration.liveHelloTimeout),
            hellos: Admission(limit: configuration.helloConcurrency, patience: TimeAmount(configuration.helloPatience)),
            now: platform.now, logger: platform.logger)
        origins = OriginCheck(publicURL: configuration.publicURL)
        hub = platform.hub
        logger = platform.logger
        upgrade = LiveUpgrade(live: live, origins: origins, trustedProxies: configuration.trustedProxies)
    }

    func addRoutes(to api: RouterGroup<AppRequestContext>, router: Router<AppRequestContext>) {
        let (live, origins, hub, logger) = (live, origins, hub, logger)
        router.get("/api/v1/sessions/:code/live") { request, context -> Response in
            try origins.verifyUpgrade(request)
            // An unknown code is upgraded and told `not_found` at hello: a browser's WebSocket
            // cannot read an HTTP refusal, and would only reconnect.
            context.socketUpgrade.accept(live.accept(code: context.parameters.get("code") ?? "", context: context))
            return Response(status: .ok)
        }
        router.get("/api/v1/lobby") { request, context -> Response in
            try origins.verifyUpgrade(request)
            context.socketUpgrade.accept(Lobby.accept(hub: hub, context: context, logger: logger))
            return Response(status: .ok)
        }
    }
}
