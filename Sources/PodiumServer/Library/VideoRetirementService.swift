import Foundation
import Logging
import PodiumStore
import ServiceLifecycle

/// Removes the files clips retire (``VideoRecord/retiringFiles``: a first rendition that left
/// the master playlist when the whole ladder was stored) once they are due: every `interval`
/// this node asks the store for clips whose ``VideoRecord/retireAt`` has passed, drops their
/// retiring files from the record (a compare-and-set: of several nodes on one database, one
/// does it) and removes those no video uses any more. Nothing is lost to a restart: the due time
/// is in the record, and the next sweep (on any node) does what a stopped one did not.
///
/// Segments and init files (the bulk of the bytes) are removed at once, as a deleted clip's are
/// (``BlobStore/remove(named:)`` leaves them to the blob collector while a backup runs).
/// Playlists and the poster are left to the blob collector (``BlobCollector``), which deletes
/// only what no row names after its grace period: a session's events keep the address of the
/// master playlist a clip was shown with, and `podium check` would find it missing.
final class VideoRetirementService: Service, Sendable {
    private let store: any VideoStore
    private let blobs: any BlobStore
    private let interval: Duration
    private let logger: Logger
    private let now: @Sendable () -> Date

    init(
        store: any VideoStore, blobs: any BlobStore, interval: Duration, logger: Logger,
        now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.blobs = blobs
        self.interval = interval
        self.logger = logger
        self.now = now
    }

    /// Whether a retired file is removed at once rather than by the blob collector.
    static func removedAtOnce(_ name: String) -> Bool { name.hasSuffix(".m4s") || name.hasSuffix(".mp4") }

    /// One sweep: the names removed (empty when it failed, which is logged).
    @discardableResult
    func sweep() async -> [String] {
        var removed: [String] = []
        do {
            for video in try await store.videosRetiring(until: now()) {
                guard let due = video.retireAt, let unused = try await store.retireFiles(videoId: video.id, retireAt: due)
                else { continue }
                var bytes: Int64 = 0
                var count = 0
                for name in unused where Self.removedAtOnce(name) {
                    if let file = blobs.file(named: name) {
                        bytes +=
                            (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?
                            .int64Value ?? 0
                    }
                    try blobs.remove(named: name)
                    removed.append(name)
                    count += 1
                }
                logger.info(
                    "video \(video.id): its retired first rendition is gone (\(count) files, \(bytes) bytes)",
                    metadata: ["bytes": "\(bytes)"])
            }
        } catch {
            logger.error("removing clips' retired renditions failed (tried again at the next sweep): \(error)")
        }
        return removed
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
