import CoreMetrics
import Foundation
import Logging
import PodiumStore
import ServiceLifecycle

/// The blob collector on a schedule (see ``BlobCollector``): every `check` this node asks the
/// store whether a run is due — none under way and the last, by any node on the database,
/// started at least `interval` ago — and runs one if so. Nodes sharing PostgreSQL so collect
/// once per interval between them. What a run gives back is logged and counted
/// (`podium_blobs_collected_total`, `podium_blob_bytes_collected_total`).
final class BlobCollectionService: Service, Sendable {
    struct Settings: Sendable {
        /// Between runs (by any node).
        var interval: TimeInterval
        /// How often this node looks whether a run is due.
        var check: Duration
        var collector: BlobCollector.Settings
    }

    private let collector: BlobCollector
    private let settings: Settings
    private let logger: Logger
    private let now: @Sendable () -> Date

    init(
        store: any BlobCollectionStore, root: URL, settings: Settings, logger: Logger,
        now: @escaping @Sendable () -> Date
    ) {
        collector = BlobCollector(store: store, root: root, logger: logger, now: now)
        self.settings = settings
        self.logger = logger
        self.now = now
    }

    /// A run if one is due; its report, nil when none was due or it failed (logged).
    @discardableResult
    func runIfDue() async -> BlobCollector.Report? {
        do {
            let report = try await collector.run(
                settings.collector, startedBefore: now().addingTimeInterval(-settings.interval))
            guard report.ran else { return nil }
            logger.info(
                "\(report.summary)",
                metadata: ["deleted": "\(report.deleted.count)", "bytes": "\(report.bytes)"])
            let metrics = PodiumMetrics.shared
            metrics.blobsCollected.increment(by: Int64(report.deleted.count))
            metrics.blobBytesCollected.increment(by: report.bytes)
            return report
        } catch {
            logger.error("blob collection failed (tried again at the next check): \(error)")
            return nil
        }
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: self.settings.check) } catch { break }
                await self.runIfDue()
            }
        }
    }
}
