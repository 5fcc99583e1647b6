import Hummingbird
import Logging
import PodiumStore

/// Collaborative rooms: a moderator, several presenters and a projector over one session, with
/// the decks and clips uploaded into the room.
struct RoomsFeature: ServerFeature {
    let rooms: RoomController

    /// - Parameters: the routes of other features a room's routes go through.
    init(_ platform: Platform, sessions: SessionController, decks: DeckController, videos: VideoController) {
        rooms = RoomController(
            store: platform.stores.sessions, deckStore: platform.stores.decks, hub: platform.hub, accounts: platform.accounts,
            sessions: sessions, decks: decks,
            videos: videos, logger: platform.logger, now: platform.now)
    }

    func addRoutes(to api: RouterGroup<AppRequestContext>, router: Router<AppRequestContext>) {
        rooms.addRoutes(to: api)
    }

    /// What the library's deck ingest tells the rooms: a deck uploaded into a room is ready, or
    /// has failed.
    static func uploadProcessed(
        stores: Stores, hub: LiveHub, logger: Logger
    ) -> @Sendable (DeckRecord, DeckIngestRequest.RoomUpload) async -> Void {
        { deck, room in
            await RoomController.uploadProcessed(
                deck, into: room, sessionStore: stores.sessions, deckStore: stores.decks, hub: hub, logger: logger)
        }
    }
}
