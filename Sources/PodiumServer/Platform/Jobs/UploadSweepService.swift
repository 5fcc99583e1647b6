import Foundation
import Logging
import PodiumStore
import ServiceLifecycle

/// Removes expired resumable uploads (`/api/v1/uploads`): every `interval` this node deletes
/// the rows whose expiry has passed (by the injected clock) and their partial files in
/// `<blob-dir>/uploads`. Nodes sharing the database may sweep at once: a row is deleted once,
/// and only the node that deleted it removes its file.
final class UploadSweepService: Service, Sendable {
    private let store: any UploadStore
    /// `<blob-dir>/uploads`.
    private let directory: URL
    private let interval: Duration
    private let logger: Logger
    private let now: @Sendable () -> Date

    init(
        store: any UploadStore, directory: URL, interval: Duration, logger: Logger, now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.directory = directory
        self.interval = interval
        self.logger = logger
        self.now = now
    }

    /// One sweep: the ids of the uploads it removed (empty when it failed, which is logged).
    @discardableResult
    func sweep() async -> [String] {
        do {
            let expired = try await store.deleteExpiredUploads(before: now())
            for id in expired {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent("\(id).part"))
            }
            if !expired.isEmpty { logger.info("removed \(expired.count) expired resumable upload(s)") }
            return expired
        } catch {
            logger.error("sweeping expired uploads failed (tried again at the next sweep): \(error)")
            return []
        }
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.sweep()
                do { try await Task.sleep(for: self.interval) } catch { break }
            }
        }
    }
}
