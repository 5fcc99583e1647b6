import Foundation
import Hummingbird
import Logging
import PodiumStore
import ServiceLifecycle

/// The long work: the one ``JobQueue`` that runs every feature's workers, its routes
/// (`/api/v1/jobs`), and the garbage collection of blobs on a schedule.
struct JobsFeature: ServerFeature {
    let queue: JobQueue
    let jobs: JobController
    /// Garbage collection of blobs on a schedule, unless turned off (docs/operations.md).
    let blobCollection: [any Service]

    /// - Parameter workers: every feature's workers; the configuration's additional ones (tests')
    ///   come after them, so they never take a kind a feature's worker takes.
    init(
        configuration: ServerConfiguration, stores: Stores, workers: [any JobWorker], logger: Logger,
        now: @escaping @Sendable () -> Date
    ) {
        queue = JobQueue(
            store: stores.jobs, workers: workers + configuration.additionalJobWorkers,
            settings: JobQueue.Settings(
                concurrency: configuration.jobConcurrency, maxAttempts: configuration.jobAttempts,
                progressSaveInterval: configuration.jobProgressSaveInterval,
                pollInterval: configuration.jobPollInterval, heartbeatInterval: configuration.jobHeartbeatInterval),
            logger: logger, now: now)
        jobs = JobController(store: stores.jobs, queue: queue)
        blobCollection = [configuration.blobCollectionInterval].compactMap { $0 }.map { interval in
            BlobCollectionService(
                store: stores.blobCollection, root: configuration.blobDirectory,
                settings: .init(
                    interval: interval, check: configuration.blobCollectionCheck,
                    collector: BlobCollector.Settings(grace: configuration.blobCollectionGrace)),
                logger: logger, now: now)
        }
    }

    func addRoutes(to api: RouterGroup<AppRequestContext>, router: Router<AppRequestContext>) {
        jobs.addRoutes(to: api)
    }
}
