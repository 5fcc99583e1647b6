import Foundation
import Hummingbird
import PodiumClient
import PodiumMedia
import PodiumServer
import PodiumStore
import Synchronization
import Testing

/// "Playable in a minute" (#41): a clip with more than one rung is `ready` from its first
/// rendition (the lowest rung and the sound, with its poster) while its ladder is packaged behind
/// it; the master playlist lists what exists, then every rung; a run stopped between the two ends
/// complete; queued clips know their place in line. Packaging is held after the first rendition
/// by ``ServerConfiguration/videoLadderHold`` (a file: while it exists, the ladder waits).
@Suite("Video playable before its ladder", .timeLimit(.minutes(2)))
struct VideoPlayableTests {
    /// A server with one-second segments whose ladders wait while `hold` exists.
    static func server(hold: URL?, dataDirectory: URL? = nil) -> TestServer {
        TestServer(dataDirectory: dataDirectory) {
            $0.videoLimits = VideoLimits(segmentSeconds: 1)
            $0.videoLadderHold = hold
        }
    }

    /// A 854x480 clip with sound: two rungs (480p and 360p).
    static func clip(seconds: Int, in directory: URL, name: String = "clip.mp4") async throws -> URL {
        let output = directory.appendingPathComponent(name)
        let result = try await SystemToolRunner().run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=854x480:rate=25:duration=\(seconds)",
                "-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)", "-c:v", "libx264", "-preset", "ultrafast",
                "-pix_fmt", "yuv420p", "-c:a", "aac", output.path,
            ], limits: ToolLimits(timeout: .seconds(60)))
        #expect(result.succeeded, "ffmpeg: \(result.stderr)")
        return output
    }

    static func hold(in directory: URL) throws -> URL {
        let hold = directory.appendingPathComponent("hold-ladder")
        try Data().write(to: hold)
        return hold
    }

    @Test func aClipPlaysFromItsFirstRenditionAndGainsItsRungsBehindIt() async throws {
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let hold = try Self.hold(in: work)
        let server = Self.server(hold: hold)
        defer { server.removeData() }
        let clip = try await Self.clip(seconds: 2, in: work)
        try await server.run { client in
            let token = try await client.login()
            let id = try #require(try await client.uploadVideo(clip, token: token).object()["id"] as? String)
            let first = try await client.waitForVideo(id, token: token)
            // Playable: ready, with the lowest rung and the sound, and a poster for its card.
            #expect(first["status"] as? String == "ready", "\(first)")
            #expect(first["ladderComplete"] as? Bool == false)
            let renditions = try #require(first["renditions"] as? [[String: Any]])
            #expect(renditions.compactMap { $0["height"] as? Int } == [360])
            #expect(renditions.count == 2, "the rung and the sound")
            #expect(first["posterUrl"] as? String != nil)
            #expect(first["mp4Url"] == nil && first["thumbnailsUrl"] == nil, "the MP4 and thumbnails come with the ladder")
            let progress = try #require(first["progress"] as? [String: Any], "\(first)" as Comment)
            #expect(progress["stage"] as? String == "renditions")
            let masterURL = try #require(first["masterPlaylistUrl"] as? String)
            let master = String(buffer: try await client.request(.get, masterURL).body)
            #expect(Self.resolutions(master) == ["640x360"], "\(master)")
            // What a player plays: the rung's playlist and its segments.
            let rungURL = try #require(renditions.first?["playlistUrl"] as? String)
            let rung = try await client.request(.get, rungURL)
            #expect(rung.status == .ok)
            let base = String(rungURL[...(rungURL.lastIndex(of: "/") ?? rungURL.startIndex)])
            for uri in VideoLibraryTests.uris(String(buffer: rung.body)).prefix(2) {
                #expect(try await client.request(.get, base + uri).status == .ok, "\(uri)")
            }

            try FileManager.default.removeItem(at: hold)
            var whole: [String: Any] = [:]
            try await waitUntil("the ladder is packaged", seconds: 60) {
                whole = try await client.request(.get, "/api/v1/videos/\(id)", token: token).object()
                return whole["ladderComplete"] as? Bool == true
            }
            #expect(whole["status"] as? String == "ready")
            #expect(whole["progress"] == nil)
            let all = try #require(whole["renditions"] as? [[String: Any]])
            #expect(all.compactMap { $0["height"] as? Int } == [480, 360])
            #expect(whole["mp4Url"] as? String != nil && whole["thumbnailsUrl"] as? String != nil)
            let newMaster = String(
                buffer: try await client.request(.get, try #require(whole["masterPlaylistUrl"] as? String)).body)
            #expect(Self.resolutions(newMaster) == ["854x480", "640x360"], "\(newMaster)")
            for rendition in all {
                let url = try #require(rendition["playlistUrl"] as? String)
                let answer = try await client.request(.get, url)
                #expect(answer.status == .ok, "\(url): \(answer.status) \(String(buffer: answer.body).prefix(300))")
            }
            // A player that loaded the first master sees every rung when it loads it again, and
            // the first rendition it was playing stays.
            let reloaded = try await client.request(.get, masterURL)
            #expect(reloaded.headers[.cacheControl] == "private, no-cache")
            #expect(Self.resolutions(String(buffer: reloaded.body)) == ["854x480", "640x360"])
            #expect(try await client.request(.get, rungURL).status == .ok)
        }
    }

    @Test func aRunStoppedBetweenItsFirstRenditionAndItsLadderEndsComplete() async throws {
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let hold = try Self.hold(in: work)
        let first = Self.server(hold: hold)
        defer { first.removeData() }
        let clip = try await Self.clip(seconds: 2, in: work)
        let box = Mutex<(id: String, master: String)?>(nil)
        try await first.run { client in
            let token = try await client.login()
            let id = try #require(try await client.uploadVideo(clip, token: token).object()["id"] as? String)
            let video = try await client.waitForVideo(id, token: token)
            #expect(video["ladderComplete"] as? Bool == false)
            box.withLock { $0 = (id, try! #require(video["masterPlaylistUrl"] as? String)) }
            // The server stops here, its ladder not begun.
        }
        let (id, _) = try #require(box.withLock { $0 })
        // As if the stop came while the ladder's files were being stored: one is, and recorded.
        let blobs = try FileBlobStore(root: first.configuration.blobDirectory)
        let leftover = work.appendingPathComponent("segment.m4s")
        try Data("half a ladder".utf8).write(to: leftover)
        let halfStored = try blobs.put(fileAt: leftover, fileExtension: "m4s")
        let firstFiles = Mutex<[String]>([])
        let firstRung = Mutex<String?>(nil)
        let store = try await SQLStore.openSQLite(
            path: first.configuration.dataDirectory.appendingPathComponent("podium.sqlite").path, logger: TestServer.logger())
        try await closing(store) {
            var video = try #require(try await store.video(id: id))
            #expect(video.status == .ready && !video.ladderComplete)
            firstFiles.withLock { $0 = video.fileNames }
            let variants = try JSONDecoder().decode([PackagedVideo.Variant].self, from: Data(video.renditions.utf8))
            firstRung.withLock { $0 = variants.first { $0.height == 360 }?.playlist }
            video.files = String(decoding: try JSONEncoder().encode(video.fileNames + [halfStored]), as: UTF8.self)
            try await store.updateVideo(video)
        }

        let second = Self.server(hold: nil, dataDirectory: first.configuration.dataDirectory)
        try await second.run { client in
            let token = try await client.login()
            // Playable all along: the next run goes on with the ladder.
            let playable = try await client.request(.get, "/api/v1/videos/\(id)", token: token).object()
            #expect(playable["status"] as? String == "ready")
            var video: [String: Any] = [:]
            try await waitUntil("the ladder is packaged", seconds: 60) {
                video = try await client.request(.get, "/api/v1/videos/\(id)", token: token).object()
                return video["ladderComplete"] as? Bool == true
            }
            #expect(video["status"] as? String == "ready")
            #expect((video["renditions"] as? [[String: Any]])?.compactMap { $0["height"] as? Int } == [480, 360])
            let master = try await client.request(.get, try #require(video["masterPlaylistUrl"] as? String))
            #expect(Self.resolutions(String(buffer: master.body)) == ["854x480", "640x360"])
        }
        #expect(blobs.file(named: halfStored) == nil, "what the stopped run stored is removed")
        // The first rendition's files stay served: its 360p rung as the ladder's own (not encoded
        // again by the run after the stop), its master and sound retiring.
        let store2 = try await SQLStore.openSQLite(
            path: first.configuration.dataDirectory.appendingPathComponent("podium.sqlite").path, logger: TestServer.logger())
        try await closing(store2) {
            let video = try #require(try await store2.video(id: id))
            let names = Set(video.fileNames)
            let retiring = Set(video.retiringFileNames)
            for name in firstFiles.withLock({ $0 }) {
                #expect(names.union(retiring).contains(name) && blobs.file(named: name) != nil, "\(name)")
            }
            let rung = try #require(firstRung.withLock { $0 })
            #expect(names.isSuperset(of: HLSFiles.reachable(rung, in: blobs)) && !retiring.contains(rung))
            #expect(!retiring.isEmpty, "the first master and its sound")
            #expect(!names.contains(halfStored))
        }
    }

    @Test func queuedClipsKnowTheirPlaceInLineAndTimeLeft() async throws {
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let hold = try Self.hold(in: work)
        let server = Self.server(hold: hold)
        defer { server.removeData() }
        let clip = try await Self.clip(seconds: 2, in: work)
        try await server.run { client in
            let token = try await client.login()
            // The first clip is packaged up to its first rendition and held there: the others wait.
            let busy = try #require(try await client.uploadVideo(clip, token: token).object()["id"] as? String)
            _ = try await client.waitForVideo(busy, token: token)
            var ids: [String] = []
            for index in 1...3 {
                let answer = try await client.uploadVideo(clip, token: token, title: "Queued \(index)").object()
                ids.append(try #require(answer["id"] as? String))
            }
            var lastLeft = 0
            for (index, id) in ids.enumerated() {
                let video = try await client.request(.get, "/api/v1/videos/\(id)", token: token).object()
                #expect(video["status"] as? String == "queued")
                #expect(video["duration"] as? Double == 2, "the upload's probe gives its length at once")
                let progress = try #require(video["progress"] as? [String: Any], "\(video)" as Comment)
                #expect(progress["queuePosition"] as? Int == index + 1)
                let left = try #require(progress["secondsLeft"] as? Int, "\(progress)" as Comment)
                #expect(left > lastLeft, "a clip further back has longer to wait")
                lastLeft = left
            }
            // The list says the same.
            let listed = try await client.request(.get, "/api/v1/videos", token: token).array()
            let positions = listed.compactMap { video -> Int? in
                guard let id = video["id"] as? String, ids.contains(id) else { return nil }
                return (video["progress"] as? [String: Any])?["queuePosition"] as? Int
            }
            #expect(positions.sorted() == [1, 2, 3])
            let playing = try await client.request(.get, "/api/v1/videos/\(busy)", token: token).object()
            #expect(((playing["progress"] as? [String: Any])?["queuePosition"]) == nil)
            try FileManager.default.removeItem(at: hold)
            for id in ids { #expect(try await client.waitForVideo(id, token: token)["status"] as? String == "ready") }
        }
    }

    @Test func theSDKWaitsForAPlayableClipOrForItsWholeLadder() async throws {
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let hold = try Self.hold(in: work)
        let server = Self.server(hold: hold)
        defer { server.removeData() }
        let clip = try await Self.clip(seconds: 2, in: work)
        try await server.run { client in
            let podium = try await client.adminSDK()
            let id = try await podium.uploadVideo(file: clip, title: "SDK clip").item.id
            let playable = try await podium.waitUntilReady(video: id)
            #expect(playable.isReady && !playable.isPackagedWhole)
            #expect(playable.ladderComplete == false)
            #expect(playable.progress?.stage == "renditions")
            #expect(playable.renditions.compactMap(\.height) == [360])
            try FileManager.default.removeItem(at: hold)
            let whole = try await podium.waitUntilPackagedWhole(video: id)
            #expect(whole.ladderComplete == true && whole.progress == nil)
            #expect(whole.renditions.compactMap(\.height) == [480, 360])
        }
    }

    /// The `RESOLUTION` of each variant of a master playlist, in order.
    static func resolutions(_ master: String) -> [String] {
        master.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("#EXT-X-STREAM-INF:") }.compactMap { line in
            guard let range = line.range(of: "RESOLUTION=") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != "," })
        }
    }
}
