import Foundation
import Hummingbird
import Logging
import PodiumStore
import ServiceLifecycle

/// Audio takes of the presenter's microphone (replay, issue #44): their routes, the packaging
/// worker (built before the one job queue, like every feature's `Workers`) and the sweep of takes
/// that stopped sending.
struct RecordingsFeature: ServerFeature {
    let recordings: RecordingController
    let sweep: RecordingSweepService
    var services: [any Service] { [sweep] }

    /// The packaging worker, given to the job queue.
    struct Workers {
        let packaging: RecordingPackagingWorker
        var all: [any JobWorker] { [packaging] }

        init(configuration: ServerConfiguration, stores: Stores, logger: Logger) {
            packaging = RecordingPackagingWorker(
                store: stores.recordings, directory: RecordingsFeature.directory(configuration),
                settings: configuration.recordings, runner: configuration.toolRunner, logger: logger)
        }
    }

    static func directory(_ configuration: ServerConfiguration) -> URL {
        configuration.blobDirectory.appendingPathComponent(RecordingFiles.directoryName, isDirectory: true)
    }

    /// - Parameter access: who may watch a replay (``ReplayFeature``'s): the takes are part of it.
    init(_ platform: Platform, access: ReplayGate) {
        recordings = RecordingController(
            store: platform.stores.recordings, sessions: platform.stores.sessions, hub: platform.hub, jobs: platform.jobs,
            access: access,
            directory: Self.directory(platform.configuration), settings: platform.configuration.recordings,
            logger: platform.logger, now: platform.now)
        sweep = RecordingSweepService(
            store: platform.stores.recordings, controller: recordings, settings: platform.configuration.recordings,
            logger: platform.logger, now: platform.now)
    }

    func addRoutes(to api: RouterGroup<AppRequestContext>, router: Router<AppRequestContext>) {
        recordings.addRoutes(to: api)
    }
}
