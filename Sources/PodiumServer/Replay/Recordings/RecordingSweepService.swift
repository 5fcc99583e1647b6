import Foundation
import Logging
import PodiumStore
import ServiceLifecycle

/// Stops and packages audio takes whose sender stopped sending (a closed laptop, a crashed
/// browser): every ``RecordingSettings/sweepInterval`` this node looks for takes still
/// `recording` with no chunk for ``RecordingSettings/stallAfter`` (by the injected clock). Nodes
/// sharing the database may sweep at once: a take is stopped once (compare-and-set), and only
/// the node that stopped it queues its packaging.
final class RecordingSweepService: Service, Sendable {
    private let store: any RecordingStore
    private let controller: RecordingController
    private let settings: RecordingSettings
    private let logger: Logger
    private let now: @Sendable () -> Date

    init(
        store: any RecordingStore, controller: RecordingController, settings: RecordingSettings, logger: Logger,
        now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.controller = controller
        self.settings = settings
        self.logger = logger
        self.now = now
    }

    /// One sweep: the ids of the takes it stopped (up to a failure, which is logged).
    @discardableResult
    func sweep() async -> [String] {
        let at = now()
        var stopped: [String] = []
        do {
            for take in try await store.stalledRecordings(before: at.addingTimeInterval(-settings.stallAfter)) {
                try await controller.stopAndPackage(take, at: at)
                stopped.append(take.id)
            }
            if !stopped.isEmpty { logger.info("stopped \(stopped.count) recording(s) that sent nothing for a while") }
        } catch {
            logger.error("sweeping stalled recordings failed (tried again at the next sweep): \(error)")
        }
        settings.onSweep?(at, stopped)
        return stopped
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.sweep()
                do { try await Task.sleep(for: self.settings.sweepInterval) } catch { break }
            }
        }
    }
}
