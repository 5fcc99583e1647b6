import Foundation
import Hummingbird
import PodiumMedia
import PodiumStore
import Synchronization
import Testing

@testable import PodiumServer

/// A clip's first rendition once its whole ladder is stored (#41): a first rendition that is not
/// one of the ladder's rungs (the upload's picture copied, its sound) leaves the master playlist,
/// stays served while a player may hold it (until every stream token given before has expired:
/// the longest a token lives, 12 h by default) and is then removed; a first rendition encoded as
/// the ladder's lowest rung is that rung, neither encoded again nor removed. On SQLite and
/// PostgreSQL, with a clock the test moves on.
@Suite("Video playable: the first rendition after the ladder", .timeLimit(.minutes(2)))
struct VideoPlayableRetirementTests {
    /// The ffmpeg runs that encode (those reporting progress), their arguments; the rest passed through.
    final class EncodeLog: ToolRunner {
        let runs = Mutex<[[String]]>([])
        private let base = SystemToolRunner()

        func run(_ tool: String, _ arguments: [String], limits: ToolLimits) async throws -> ToolResult {
            try await base.run(tool, arguments, limits: limits)
        }

        func run(
            _ tool: String, _ arguments: [String], limits: ToolLimits, onStdout: @escaping @Sendable (Data) -> Void
        ) async throws -> ToolResult {
            if tool == "ffmpeg", arguments.contains("pipe:1") { runs.withLock { $0.append(arguments) } }
            return try await base.run(tool, arguments, limits: limits, onStdout: onStdout)
        }
    }

    /// A server with one-second segments whose ladders wait while `hold` exists, sweeping often.
    static func server(hold: URL, runner: EncodeLog? = nil) -> TestServer {
        TestServer {
            $0.videoLimits = VideoLimits(segmentSeconds: 1)
            $0.videoLadderHold = hold
            $0.jobPollInterval = .milliseconds(200)
            if let runner { $0.toolRunner = runner }
        }
    }

    /// A 1280x720 H.264 clip with a keyframe a second, at a bit rate a copy is allowed: its first
    /// rendition is its own picture, copied.
    static func copyableClip(in directory: URL) async throws -> URL {
        let output = directory.appendingPathComponent("copyable.mp4")
        let result = try await SystemToolRunner().run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25:duration=2",
                "-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25",
                "-b:v", "1500k", "-pix_fmt", "yuv420p", "-c:a", "aac", output.path,
            ], limits: ToolLimits(timeout: .seconds(60)))
        #expect(result.succeeded, "ffmpeg: \(result.stderr)")
        return output
    }

    /// The directory of a stream URL (`/stream/<token>/`).
    static func base(_ url: String) -> String { String(url[...(url.lastIndex(of: "/") ?? url.startIndex)]) }

    static func name(_ url: String) -> String { String(url[url.index(after: url.lastIndex(of: "/") ?? url.startIndex)...]) }

    static func waitUntilLadderComplete(_ client: Client, _ id: String, token: String) async throws -> [String: Any] {
        var video: [String: Any] = [:]
        try await waitUntil("the ladder is packaged", seconds: 60) {
            video = try await client.request(.get, "/api/v1/videos/\(id)", token: token).object()
            return video["ladderComplete"] as? Bool == true
        }
        return video
    }

    @Test(arguments: TestStores.kinds)
    func aCopiedFirstRenditionLeavesWithTheLadderAndGoesWhenNoPlayerCanHoldIt(_ kind: StoreKind) async throws {
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let hold = try VideoPlayableTests.hold(in: work)
        let server = Self.server(hold: hold)
        defer { server.removeData() }
        let clip = try await Self.copyableClip(in: work)
        let blobs = try FileBlobStore(root: server.configuration.blobDirectory)
        let (store, cleanUp) = try await TestStores.open(kind)
        let hours = Mutex<Double>(0)
        let now: @Sendable () -> Date = { Date().addingTimeInterval(hours.withLock { $0 } * 3600) }
        try await closing(store, then: cleanUp) {
            try await server.run(store: store, now: now) { client in
                let token = try await client.login()
                let id = try #require(try await client.uploadVideo(clip, token: token).object()["id"] as? String)
                let first = try await client.waitForVideo(id, token: token)
                #expect(first["ladderComplete"] as? Bool == false)
                let firstRenditions = try #require(first["renditions"] as? [[String: Any]])
                #expect(firstRenditions.compactMap { $0["height"] as? Int } == [720], "the upload's picture, copied")
                // A player loads the clip: its master, the copy's playlist, and so the copy's files.
                let firstMasterURL = try #require(first["masterPlaylistUrl"] as? String)
                let base = Self.base(firstMasterURL)
                let firstMaster = String(buffer: try await client.request(.get, firstMasterURL).body)
                let copyPlaylist = try #require(
                    firstMaster.split(whereSeparator: \.isNewline).first { !$0.hasPrefix("#") }.map(String.init))
                let copyFiles = VideoLibraryTests.uris(
                    String(buffer: try await client.request(.get, base + copyPlaylist).body))
                #expect(copyFiles.count >= 3, "an init file and segments: \(copyFiles)")
                let firstFiles = Set(try #require(try await store.video(id: id)).fileNames)

                try FileManager.default.removeItem(at: hold)
                let whole = try await Self.waitUntilLadderComplete(client, id, token: token)
                // The master lists the ladder alone; the API its three rungs and one sound.
                let master = String(
                    buffer: try await client.request(.get, try #require(whole["masterPlaylistUrl"] as? String)).body)
                #expect(VideoPlayableTests.resolutions(master) == ["1280x720", "854x480", "640x360"], "\(master)")
                #expect(!master.contains(copyPlaylist))
                let renditions = try #require(whole["renditions"] as? [[String: Any]])
                #expect(renditions.compactMap { $0["height"] as? Int } == [720, 480, 360])
                #expect(renditions.count == 4, "three rungs and the sound, nothing of the first rendition: \(renditions)")

                // The copy retires: no file of the clip any more, still served until every token
                // given before the ladder has expired (12 h, the stage's links).
                let record = try #require(try await store.video(id: id))
                let retiring = Set(record.retiringFileNames)
                #expect(retiring == firstFiles.subtracting(record.fileNames))
                #expect(retiring.isSuperset(of: copyFiles + [copyPlaylist, Self.name(firstMasterURL)]))
                #expect(Set(record.fileNames).isDisjoint(with: copyFiles))
                let due = try #require(record.retireAt)
                #expect(abs(due.timeIntervalSince(now()) - 12 * 3600) < 120, "\(due)")
                #expect(try await store.videosRetiring(until: now().addingTimeInterval(11 * 3600)).isEmpty)
                // A player that loaded the first master a moment ago plays on: its playlist and
                // every segment under its token; loading the master again gives it the ladder.
                #expect(try await client.request(.get, base + copyPlaylist).status == .ok)
                for file in copyFiles { #expect(try await client.request(.get, base + file).status == .ok, "\(file)") }
                let reloaded = String(buffer: try await client.request(.get, firstMasterURL).body)
                #expect(VideoPlayableTests.resolutions(reloaded) == ["1280x720", "854x480", "640x360"])
                // The blob collector and `podium check` count them as the database's meanwhile.
                #expect(try await store.referencedBlobNames().isSuperset(of: copyFiles))

                // 13 hours on: every token given before the ladder has expired; the copy goes.
                hours.withLock { $0 = 13 }
                try await waitUntil("the copy's segments are removed", seconds: 20) {
                    copyFiles.allSatisfy { blobs.file(named: $0) == nil }
                }
                let after = try #require(try await store.video(id: id))
                #expect(after.retiringFileNames.isEmpty && after.retireAt == nil)
                #expect(after.fileNames == record.fileNames)
                for name in after.fileNames { #expect(blobs.file(named: name) != nil, "\(name)") }
                // Its playlists are no row's any more: the blob collector removes them after its grace.
                #expect(try await store.referencedBlobNames().isDisjoint(with: copyFiles + [copyPlaylist]))
                // The clip plays from its ladder, under a new token.
                let fresh = try await client.request(.get, "/api/v1/videos/\(id)", token: token).object()
                let freshMaster = try #require(fresh["masterPlaylistUrl"] as? String)
                #expect(try await client.request(.get, freshMaster).status == .ok)
                for rendition in try #require(fresh["renditions"] as? [[String: Any]]) {
                    let url = try #require(rendition["playlistUrl"] as? String)
                    let playlist = try await client.request(.get, url)
                    #expect(playlist.status == .ok, "\(url)")
                    for file in VideoLibraryTests.uris(String(buffer: playlist.body)).prefix(2) {
                        #expect(try await client.request(.get, Self.base(url) + file).status == .ok, "\(file)")
                    }
                }
            }
        }
    }

    /// A clip packaged before files retired kept its copied first rendition among its files for
    /// good; a server of this version, started on that data, lets it go as a new ladder would.
    @Test(arguments: TestStores.kinds)
    func aCopyKeptByAnEarlierVersionRetiresAfterAStart(_ kind: StoreKind) async throws {
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let server = TestServer {
            $0.videoLimits = VideoLimits(segmentSeconds: 1)
            $0.jobPollInterval = .milliseconds(200)
        }
        defer { server.removeData() }
        let clip = try await Self.copyableClip(in: work)
        let blobs = try FileBlobStore(root: server.configuration.blobDirectory)
        let (store, cleanUp) = try await TestStores.open(kind)
        let hours = Mutex<Double>(0)
        let now: @Sendable () -> Date = { Date().addingTimeInterval(hours.withLock { $0 } * 3600) }
        let packaged = Mutex<(id: String, kept: [String], copy: [String])?>(nil)
        try await closing(store, then: cleanUp) {
            try await server.run(store: store, now: now) { client in
                let token = try await client.login()
                let id = try #require(try await client.uploadVideo(clip, token: token).object()["id"] as? String)
                _ = try await Self.waitUntilLadderComplete(client, id, token: token)
                // The record as the earlier version left it: the first rendition among the files.
                var video = try #require(try await store.video(id: id))
                let copy = video.retiringFileNames
                #expect(copy.contains { $0.hasSuffix(".m4s") })
                video.files = String(decoding: try JSONEncoder().encode(video.fileNames + copy), as: UTF8.self)
                video.retiringFiles = "[]"
                video.retireAt = nil
                try await store.updateVideo(video)
                packaged.withLock { $0 = (id, video.fileNames, copy) }
            }
            let (id, kept, copy) = try #require(packaged.withLock { $0 })
            try await server.run(store: store, now: now) { client in
                try await waitUntil("the kept copy starts retiring", seconds: 20) {
                    try await store.video(id: id)?.retireAt != nil
                }
                let video = try #require(try await store.video(id: id))
                #expect(Set(video.retiringFileNames) == Set(copy))
                #expect(Set(video.fileNames) == Set(kept).subtracting(copy))
                let due = try #require(video.retireAt)
                #expect(abs(due.timeIntervalSince(now()) - 12 * 3600) < 120, "\(due)")
                hours.withLock { $0 = 13 }
                try await waitUntil("the copy's segments are removed", seconds: 20) {
                    copy.filter(VideoRetirementService.removedAtOnce).allSatisfy { blobs.file(named: $0) == nil }
                }
                for name in video.fileNames { #expect(blobs.file(named: name) != nil, "\(name)") }
                let token = try await client.login()
                let fresh = try await client.request(.get, "/api/v1/videos/\(id)", token: token).object()
                let master = try await client.request(.get, try #require(fresh["masterPlaylistUrl"] as? String))
                #expect(VideoPlayableTests.resolutions(String(buffer: master.body)) == ["1280x720", "854x480", "640x360"])
            }
        }
    }

    @Test(arguments: TestStores.kinds)
    func aFirstRungThatIsTheLaddersOwnStaysItsRung(_ kind: StoreKind) async throws {
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let hold = try VideoPlayableTests.hold(in: work)
        let encodes = EncodeLog()
        let server = Self.server(hold: hold, runner: encodes)
        defer { server.removeData() }
        let clip = try await VideoPlayableTests.clip(seconds: 2, in: work)
        let blobs = try FileBlobStore(root: server.configuration.blobDirectory)
        let (store, cleanUp) = try await TestStores.open(kind)
        let hours = Mutex<Double>(0)
        let now: @Sendable () -> Date = { Date().addingTimeInterval(hours.withLock { $0 } * 3600) }
        try await closing(store, then: cleanUp) {
            try await server.run(store: store, now: now) { client in
                let token = try await client.login()
                let id = try #require(try await client.uploadVideo(clip, token: token).object()["id"] as? String)
                let first = try await client.waitForVideo(id, token: token)
                #expect(first["ladderComplete"] as? Bool == false)
                let firstRung = try #require((first["renditions"] as? [[String: Any]])?.first)
                #expect(firstRung["height"] as? Int == 360, "the 854x480 clip's lowest rung, encoded")
                let rungPlaylist = Self.name(try #require(firstRung["playlistUrl"] as? String))
                let rungFiles = HLSFiles.reachable(rungPlaylist, in: blobs)
                #expect(rungFiles.count >= 3, "its playlist, init file and segments")

                try FileManager.default.removeItem(at: hold)
                let whole = try await Self.waitUntilLadderComplete(client, id, token: token)
                let renditions = try #require(whole["renditions"] as? [[String: Any]])
                #expect(renditions.compactMap { $0["height"] as? Int } == [480, 360])
                #expect(renditions.count == 3, "two rungs and the sound: \(renditions)")
                // The ladder's 360p rung is the first one, as it was stored.
                let ladderRung = try #require(renditions.first { $0["height"] as? Int == 360 })
                #expect(Self.name(try #require(ladderRung["playlistUrl"] as? String)) == rungPlaylist)
                let master = String(
                    buffer: try await client.request(.get, try #require(whole["masterPlaylistUrl"] as? String)).body)
                #expect(VideoPlayableTests.resolutions(master) == ["854x480", "640x360"], "\(master)")
                #expect(master.contains(rungPlaylist))
                // Encoded once: the first run made the 360p rung, the ladder's the 480p rung alone.
                let runs = encodes.runs.withLock { $0 }
                #expect(runs.count == 2, "\(runs)")
                #expect(runs.last.map { $0.filter { $0.hasPrefix("-b:v:") }.count } == 1, "\(runs.last ?? [])")
                #expect(runs.last?.joined(separator: " ").contains("-2:360") == false)
                // The MP4 (the middle rung, here the 360p one) and the thumbnails were made from it.
                let mp4 = try await client.request(.get, try #require(whole["mp4Url"] as? String))
                #expect(mp4.status == .ok && mp4.body.readableBytes > 10_000)
                #expect(whole["thumbnailsUrl"] as? String != nil)

                // What retires is the first step's master and sound, not the rung.
                let record = try #require(try await store.video(id: id))
                #expect(Set(record.fileNames).isSuperset(of: rungFiles))
                #expect(Set(record.retiringFileNames).isDisjoint(with: rungFiles))
                #expect(record.retiringFileNames.contains(Self.name(try #require(first["masterPlaylistUrl"] as? String))))
                hours.withLock { $0 = 13 }
                try await waitUntil("the first step's sound is retired", seconds: 20) {
                    try await store.video(id: id)?.retireAt == nil
                }
                for name in rungFiles { #expect(blobs.file(named: name) != nil, "\(name)") }
                // It plays, under a new token.
                let fresh = try await client.request(.get, "/api/v1/videos/\(id)", token: token).object()
                let rung = try #require(
                    (fresh["renditions"] as? [[String: Any]])?.first { $0["height"] as? Int == 360 }?["playlistUrl"]
                        as? String)
                let playlist = try await client.request(.get, rung)
                #expect(playlist.status == .ok)
                for file in VideoLibraryTests.uris(String(buffer: playlist.body)) {
                    #expect(try await client.request(.get, Self.base(rung) + file).status == .ok, "\(file)")
                }
            }
        }
    }
}

/// A stored media playlist's files, as the server stores them (blob names, beside each other).
enum HLSFiles {
    static func reachable(_ playlist: String, in blobs: FileBlobStore) -> [String] {
        guard let url = blobs.file(named: playlist), let text = try? String(contentsOf: url, encoding: .utf8) else {
            return []
        }
        return [playlist] + VideoLibraryTests.uris(text)
    }
}
