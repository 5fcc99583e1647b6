import Foundation
import Hummingbird
import PodiumStore
import ServiceLifecycle

/// Resumable uploads (`/api/v1/uploads`, tus 1.0.0) into the library and into rooms, and the
/// sweep of expired ones. Built after the rooms: a room target is taken by the room's routes.
struct UploadsFeature: ServerFeature {
    let uploads: ResumableUploadController
    let services: [any Service]

    init(_ platform: Platform, decks: DeckController, videos: VideoController, rooms: RoomController) {
        let directory = platform.configuration.blobDirectory.appendingPathComponent(UploadFiles.directoryName)
        uploads = ResumableUploadController(
            store: platform.stores.uploads, deckStore: platform.stores.decks, decks: decks, videos: videos, rooms: rooms,
            directory: directory, expiry: platform.configuration.uploadExpiry, locks: UploadLocks(),
            leases: UploadLeases(
                store: platform.stores.uploads, term: platform.configuration.uploadLeaseTerm,
                renewal: platform.configuration.uploadLeaseRenewal, now: platform.now),
            now: platform.now)
        services = [
            UploadSweepService(
                store: platform.stores.uploads, directory: directory,
                interval: platform.configuration.uploadSweepInterval, logger: platform.logger, now: platform.now)
        ]
    }

    func addRoutes(to api: RouterGroup<AppRequestContext>, router: Router<AppRequestContext>) {
        uploads.addRoutes(to: api)
    }
}
