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
    /// When set, clips packaged whole before files retired start retiring what they kept, due
    /// after this long (``adoptEarlierFirstRenditions(retireAfter:)``), once at the start.
    private let adoptAfter: TimeInterval?

    init(
        store: any VideoStore, blobs: any BlobStore, interval: Duration, logger: Logger,
        adoptAfter: TimeInterval? = nil, now: @escaping @Sendable () -> Date
    ) {
        self.adoptAfter = adoptAfter
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

    /// Clips packaged whole before files retired (their first rendition kept for good beside
    /// the ladder): what an earlier master among a clip's files plays, and its poster, that the
    /// clip's master does not, starts retiring now, due after `retireAfter` like a new ladder's.
    /// Only whole trees of an earlier master are moved, and only when the current master and its
    /// playlists were read, so a file that cannot be read at the moment never passes for unplayed.
    /// Every node does it once when it starts (a compare-and-set: the first moves them); the ids
    /// of the clips changed.
    @discardableResult
    func adoptEarlierFirstRenditions(retireAfter: TimeInterval) async -> [String] {
        var adopted: [String] = []
        var after: String?
        do {
            while true {
                let page = try await store.ladderCompleteVideos(afterId: after, limit: 100)
                for video in page {
                    guard let retiring = Self.earlierRenditions(of: video, in: blobs), !retiring.isEmpty else { continue }
                    if try await store.startRetiring(
                        videoId: video.id, files: video.files, retiring: retiring,
                        retireAt: now().addingTimeInterval(retireAfter))
                    {
                        adopted.append(video.id)
                    }
                }
                guard page.count == 100, let last = page.last else { break }
                after = last.id
            }
        } catch {
            logger.error("looking for clips' earlier first renditions failed (tried at the next start): \(error)")
        }
        if !adopted.isEmpty { logger.info("\(adopted.count) clips' earlier first renditions retire") }
        return adopted
    }

    /// The files of `video` that only an earlier master plays (with that master, and a poster
    /// no record field names), nil when its own master's tree cannot be read whole.
    static func earlierRenditions(of video: VideoRecord, in blobs: any BlobStore) -> [String]? {
        guard let master = video.masterPlaylist else { return nil }
        let played = Set(HLSBlobs.reachable(from: master, poster: video.poster, in: blobs))
        let named = [video.thumbnailSprite, video.thumbnailTrack, video.mp4].compactMap { $0 }
        // Every playlist the current master names was read: none of the clip's own is missing.
        guard played.contains(master), HLSBlobs.readsWhole(master, in: blobs) else { return nil }
        let others = Set(video.fileNames).subtracting(played).subtracting(named)
        var retiring = Set<String>()
        for name in others where name.hasSuffix(".m3u8") {
            guard let url = blobs.file(named: name), let text = try? String(contentsOf: url, encoding: .utf8),
                text.contains("#EXT-X-STREAM-INF:")
            else { continue }
            retiring.formUnion(Set(HLSBlobs.reachable(from: name, poster: nil, in: blobs)).intersection(others))
        }
        guard !retiring.isEmpty else { return [] }
        retiring.formUnion(others.filter { $0.hasSuffix(".jpg") })
        return retiring.sorted()
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            if let retireAfter = self.adoptAfter { await self.adoptEarlierFirstRenditions(retireAfter: retireAfter) }
            while !Task.isCancelled {
                await self.sweep()
                do { try await Task.sleep(for: self.interval) } catch { break }
            }
        }
    }
}
