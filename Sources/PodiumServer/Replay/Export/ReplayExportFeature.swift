import Foundation
import Hummingbird
import Logging
import PodiumStore

/// A replay exported as an MP4 and published to the channel (issue #44): the `replay-export`
/// job's worker (built before the job queue that runs it) and the export routes.
struct ReplayExportFeature: ServerFeature {
    struct Workers {
        let exporter: ReplayExportWorker
        let sources: ReplayExportSources

        var all: [any JobWorker] { [exporter] }

        init(
            configuration: ServerConfiguration, stores: Stores, blobs: any BlobStore, logger: Logger,
            now: @escaping @Sendable () -> Date
        ) {
            sources = ReplayExportSources(
                sessions: stores.sessions, recordings: stores.recordings, blobDirectory: configuration.blobDirectory, now: now)
            exporter = ReplayExportWorker(
                store: stores.replayExports, sessions: stores.sessions, decks: stores.decks, sources: sources, blobs: blobs,
                runner: configuration.toolRunner, workRoot: configuration.temporaryDirectory, logger: logger)
        }
    }

    let exports: ReplayExportController

    /// - Parameters:
    ///   - videos: the library's clips (the MP4 is taken in as one when published).
    ///   - channelAdmin: the channel's video catalogue (the clip is put on it).
    init(_ platform: Platform, workers: Workers, videos: VideoController, channelAdmin: ChannelVideoAdminController) {
        exports = ReplayExportController(
            store: platform.stores.replayExports, sessions: platform.stores.sessions,
            channelVideos: platform.stores.channelVideos, sources: workers.sources, blobs: platform.blobs, jobs: platform.jobs,
            videos: videos, channelAdmin: channelAdmin, now: platform.now)
    }

    func addRoutes(to api: RouterGroup<AppRequestContext>, router: Router<AppRequestContext>) {
        exports.addRoutes(to: api)
    }
}
