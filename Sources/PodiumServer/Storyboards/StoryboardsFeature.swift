import Foundation
import Hummingbird
import Logging
import NIOCore
import PodiumStore

/// Storyboards: projects, their editors' live socket (one ``StoryboardHub`` on the sessions' bus),
/// images, and exports to PDF, video and a deck.
struct StoryboardsFeature: ServerFeature {
    /// The storyboards' long work (exports), built before the job queue that runs it.
    struct Workers {
        let exporter: StoryboardExportWorker

        var all: [any JobWorker] { [exporter] }

        init(configuration: ServerConfiguration, store: any StoryboardStore, blobs: any BlobStore, logger: Logger) {
            exporter = StoryboardExportWorker(
                store: store, blobs: blobs, runner: configuration.toolRunner, workRoot: configuration.temporaryDirectory,
                logger: logger)
        }
    }

    let hub: StoryboardHub
    let storyboards: StoryboardController
    let exports: StoryboardExportController
    let images: StoryboardImageController
    let sockets: StoryboardSocket.Context
    let origins: OriginCheck

    /// - Parameters:
    ///   - decks: the library's deck routes (a storyboard exported as a deck is ingested as one).
    ///   - alone: this node has no other (no shared bus): editor numbers need no random base.
    init(_ platform: Platform, workers: Workers, decks: DeckController, alone: Bool) async {
        let configuration = platform.configuration
        // Storyboards on the same bus as the sessions, under this node's name; editor numbers that
        // cannot collide with another node's unless this node is alone.
        hub = StoryboardHub(
            store: platform.stores.storyboards, bus: platform.bus, node: platform.hub.nodeName,
            editorBase: alone ? 0 : StoryboardHub.randomEditorBase(), now: platform.now, logger: platform.logger)
        await platform.bus.subscribe(hub)
        storyboards = StoryboardController(
            store: platform.stores.storyboards, userStore: platform.stores.users, deckStore: platform.stores.decks,
            hub: hub, now: platform.now)
        exports = StoryboardExportController(
            store: platform.stores.storyboards, blobs: platform.blobs, jobs: platform.jobs, hub: hub, decks: decks,
            workDirectory: configuration.temporaryDirectory, now: platform.now)
        images = StoryboardImageController(
            store: platform.stores.storyboards, blobs: platform.blobs, uploadDirectory: configuration.temporaryDirectory)
        sockets = StoryboardSocket.Context(
            hub: hub, store: platform.stores.storyboards, accounts: platform.accounts, outboxLimit: configuration.outboxLimit,
            heartbeat: Outbox.Heartbeat(
                interval: TimeAmount(configuration.livePingInterval), silenceLimit: TimeAmount(configuration.liveSilenceLimit)),
            helloTimeout: TimeAmount(configuration.liveHelloTimeout), messageRate: configuration.socketMessageRate,
            now: platform.now, logger: platform.logger)
        origins = OriginCheck(publicURL: configuration.publicURL)
    }

    func addRoutes(to api: RouterGroup<AppRequestContext>, router: Router<AppRequestContext>) {
        storyboards.addRoutes(to: api)
        exports.addRoutes(to: api)
        images.addRoutes(to: api)
        // The editors' socket: the route decides (origin) and accepts the upgrade; the socket then
        // runs on its own handler (see PodiumServerChannel).
        let (origins, sockets) = (origins, sockets)
        router.get("/api/v1/storyboards/:id/live") { request, context -> Response in
            try origins.verifyUpgrade(request)
            context.socketUpgrade.accept(
                StoryboardSocket.accept(storyboard: context.parameters.get("id") ?? "", context: sockets, request: context))
            return Response(status: .ok)
        }
    }
}
