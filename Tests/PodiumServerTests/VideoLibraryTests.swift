import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import PodiumMedia
import PodiumServer
import PodiumStore
import Synchronization
import Testing

/// The video library over HTTP: upload a real clip, wait for its packaging job, and fetch what
/// a player fetches (master playlist, media playlists, segments by range, poster, thumbnails,
/// MP4); broken uploads are refused with their reason and leave nothing behind.
@Suite("Video library", .timeLimit(.minutes(2)))
struct VideoLibraryTests {
    static func server(_ kind: StoreKind = .sqlite, _ configure: (inout ServerConfiguration) -> Void = { _ in }) -> TestServer {
        TestServer(store: kind) {
            $0.videoLimits = VideoLimits(segmentSeconds: 1)
            configure(&$0)
        }
    }

    @Test(arguments: TestStores.kinds) func anUploadedClipIsPackagedAndServedByRange(_ kind: StoreKind) async throws {
        let server = Self.server(kind)
        defer { server.removeData() }
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let clip = try await VideoClipMaker.mp4(seconds: 2, in: work)
        try await server.run { client in
            let token = try await client.login()
            let created = try await client.uploadVideo(clip, token: token, title: "Intro clip")
            #expect(created.status == .created)
            let id = try #require(try created.object()["id"] as? String)
            #expect(try created.object()["status"] as? String == "queued")
            #expect(try created.object()["jobId"] as? String != nil)

            let video = try await client.waitForVideo(id, token: token)
            #expect(video["status"] as? String == "ready", "\(video)")
            #expect(video["width"] as? Int == 320)
            #expect(video["hasAudio"] as? Bool == true)
            // The video variant, then the audio rendition (no picture size), as documented.
            let renditions = try #require(video["renditions"] as? [[String: Any]])
            #expect(renditions.compactMap { $0["height"] as? Int } == [240])
            #expect(renditions.count == 2)
            #expect(renditions.last?["width"] == nil && (renditions.last?["codecs"] as? String)?.hasPrefix("mp4a") == true)

            // The media by capability URL (`/stream/<token>/<name>`), never at `/blobs/`.
            let masterURL = try #require(video["masterPlaylistUrl"] as? String)
            #expect(masterURL.hasPrefix("/stream/"))
            let base = String(masterURL[...(masterURL.lastIndex(of: "/") ?? masterURL.startIndex)])
            for rendition in renditions {
                let url = try #require(rendition["playlistUrl"] as? String)
                #expect(url.hasPrefix(base))
                #expect(try await client.request(.get, url).status == .ok)
            }
            let master = try await client.request(.get, masterURL)
            #expect(master.status == .ok)
            #expect(master.headers[.contentType] == "application/vnd.apple.mpegurl")
            let masterText = String(buffer: master.body)
            #expect(masterText.contains("#EXT-X-STREAM-INF:BANDWIDTH="))
            #expect(masterText.contains("RESOLUTION=320x240"))
            // Every URI is relative and resolves beside the playlist.
            let mediaPlaylists = Self.uris(masterText)
            #expect(!mediaPlaylists.isEmpty)
            var segment: String?
            for uri in mediaPlaylists {
                #expect(!uri.contains("/"))
                let media = try await client.request(.get, base + uri)
                #expect(media.status == .ok)
                #expect(try await client.request(.get, "/blobs/\(uri)").status == .notFound)
                let text = String(buffer: media.body)
                #expect(text.contains("#EXT-X-MAP:URI=\""))
                for reference in Self.uris(text) {
                    #expect(try await client.request(.head, base + reference).status == .ok)
                    if reference.hasSuffix(".m4s") { segment = segment ?? reference }
                }
            }

            // A real HLS reader, given only the master playlist's URL, finds every stream.
            let probed = try await SystemToolRunner().run(
                "ffprobe",
                [
                    "-v", "error", "-show_entries", "stream=codec_type,height", "-of", "csv=p=0",
                    "http://127.0.0.1:\(client.port)\(masterURL)",
                ],
                limits: ToolLimits(timeout: .seconds(60)))
            #expect(probed.succeeded, "\(probed.stderr)")
            let streams = String(decoding: probed.stdout, as: UTF8.self)
            #expect(streams.contains("video,240"), "\(streams)")
            #expect(streams.contains("audio"), "\(streams)")

            let ranged = try await client.request(
                .get, base + (try #require(segment)), headers: [.range: "bytes=0-99"])
            #expect(ranged.status == .partialContent)
            #expect(ranged.headers[.contentRange]?.hasPrefix("bytes 0-99/") == true)
            #expect(ranged.headers[.acceptRanges] == "bytes")
            #expect(ranged.headers[.contentType] == "video/iso.segment")
            #expect(ranged.body.readableBytes == 100)

            let poster = try await client.request(.get, try #require(video["posterUrl"] as? String))
            #expect(poster.status == .ok)
            #expect(poster.headers[.contentType] == "image/jpeg")
            let track = try await client.request(.get, try #require(video["thumbnailTrackUrl"] as? String))
            #expect(track.headers[.contentType]?.hasPrefix("text/vtt") == true)
            let sprite = try #require((video["thumbnailsUrl"] as? String)?.dropFirst("/blobs/".count))
            #expect(String(buffer: track.body).contains("\(sprite)#xywh=0,0,160,120"))
            let mp4 = try await client.request(.get, try #require(video["mp4Url"] as? String), headers: [.range: "bytes=0-7"])
            #expect(mp4.status == .partialContent)
            #expect(mp4.headers[.contentType] == "video/mp4")

            let renamed = try await client.request(.patch, "/api/v1/videos/\(id)", token: token, json: #"{"title":"Opening"}"#)
            #expect(try renamed.object()["title"] as? String == "Opening")
            #expect(try await client.request(.get, "/api/v1/videos", token: token).array().map { $0["id"] as? String } == [id])

            #expect(try await client.request(.delete, "/api/v1/videos/\(id)", token: token).status == .noContent)
            #expect(try await client.request(.get, masterURL).status == .notFound)
            #expect(try await client.request(.get, base + (try #require(segment))).status == .notFound)
            #expect(try await client.request(.get, "/api/v1/videos/\(id)", token: token).status == .notFound)
        }
        #expect(try VideoClipMaker.blobCount(server.configuration.blobDirectory) == 0)
    }

    @Test func anAudioOnlyFileBecomesAnAudioRenditionWithoutPictures() async throws {
        let server = Self.server()
        defer { server.removeData() }
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let audio = try await VideoClipMaker.m4a(seconds: 2, in: work)
        try await server.run { client in
            let token = try await client.login()
            let id = try #require(try await client.uploadVideo(audio, token: token).object()["id"] as? String)
            let video = try await client.waitForVideo(id, token: token)
            #expect(video["status"] as? String == "ready", "\(video)")
            #expect(video["hasVideo"] as? Bool == false)
            #expect(video["hasAudio"] as? Bool == true)
            #expect(video["posterUrl"] == nil && video["thumbnailsUrl"] == nil && video["mp4Url"] == nil)
            let renditions = try #require(video["renditions"] as? [[String: Any]])
            #expect(renditions.count == 1)
            #expect(renditions.first?["height"] == nil)
            let masterURL = try #require(video["masterPlaylistUrl"] as? String)
            let master = try await client.request(.get, masterURL)
            #expect(master.status == .ok)
            let base = String(masterURL[...(masterURL.lastIndex(of: "/") ?? masterURL.startIndex)])
            for uri in Self.uris(String(buffer: master.body)) {
                #expect(try await client.request(.get, base + uri).status == .ok)
            }
        }
    }

    @Test func brokenUploadsGetClearErrorsAndLeaveNothing() async throws {
        let server = Self.server { $0.maxVideoUploadBytes = 2 * 1024 * 1024 }
        defer { server.removeData() }
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let clip = try await VideoClipMaker.mp4(seconds: 2, in: work)
        let truncated = work.appendingPathComponent("cut.mp4")
        let bytes = try Data(contentsOf: clip)
        try bytes.prefix(bytes.count / 2).write(to: truncated)
        let empty = work.appendingPathComponent("empty.mp4")
        try Data().write(to: empty)
        let png = try await VideoClipMaker.png(in: work)
        let pdf = TestServer.fixtures.appendingPathComponent("cairo-slides.pdf")
        try await server.run { client in
            let token = try await client.login()
            let cases: [(URL, HTTPResponse.Status, String)] = [
                (empty, .badRequest, "empty"), (truncated, .unprocessableContent, "corrupt"),
                (pdf, .unsupportedMediaType, "not_video"), (png, .unsupportedMediaType, "not_video"),
            ]
            for (file, status, code) in cases {
                let response = try await client.uploadVideo(file, token: token)
                #expect(response.status == status, "\(file.lastPathComponent)")
                #expect(response.errorCode == code, "\(file.lastPathComponent)")
                #expect(!String(buffer: response.body).isEmpty)
            }
            let huge = try await client.request(
                .post, "/api/v1/videos", token: token, headers: [.contentType: "video/mp4"],
                body: ByteBuffer(bytes: [UInt8](repeating: 0, count: 3 * 1024 * 1024)))
            #expect(huge.status == .contentTooLarge)
            #expect(huge.errorCode == "too_large")
            #expect(try await client.request(.get, "/api/v1/videos", token: token).array().isEmpty)
        }
        #expect(try VideoClipMaker.blobCount(server.configuration.blobDirectory) == 0)
    }

    @Test func aClipOverTheLengthLimitIsRefused() async throws {
        let server = Self.server { $0.videoLimits.maxDuration = .seconds(1) }
        defer { server.removeData() }
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let clip = try await VideoClipMaker.mp4(seconds: 2, in: work)
        try await server.run { client in
            let token = try await client.login()
            let response = try await client.uploadVideo(clip, token: token)
            #expect(response.status == .unprocessableContent)
            #expect(response.errorCode == "too_long")
        }
        #expect(try VideoClipMaker.blobCount(server.configuration.blobDirectory) == 0)
    }

    @Test func aClipStoppedHalfWayIsPackagedAgainAtTheNextStartWithNothingHalfWrittenServed() async throws {
        let gate = ToolGate(holding: "ffmpeg")
        let first = Self.server { $0.toolRunner = gate }
        defer { first.removeData() }
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let clip = try await VideoClipMaker.mp4(seconds: 2, in: work)
        let idBox = Mutex<String?>(nil)
        try await first.run { client in
            let token = try await client.login()
            let id = try #require(try await client.uploadVideo(clip, token: token).object()["id"] as? String)
            idBox.withLock { $0 = id }
            await gate.arrival()  // probed, and ffmpeg about to package
            let video = try await client.request(.get, "/api/v1/videos/\(id)", token: token).object()
            #expect(video["status"] as? String == "processing")
            #expect((video["progress"] as? [String: Any])?["stage"] as? String == "packaging")
            #expect(video["masterPlaylistUrl"] == nil)
            // The server stops here, in the middle of packaging.
        }
        let id = try #require(idBox.withLock { $0 })
        let leftover = first.configuration.dataDirectory.appendingPathComponent("tmp").appendingPathComponent("video-\(id)")
        try FileManager.default.createDirectory(at: leftover, withIntermediateDirectories: true)
        try Data("half".utf8).write(to: leftover.appendingPathComponent("segment_00000.m4s"))
        // As if the stop came while the files were being stored: one is stored, and recorded.
        let blobs = try FileBlobStore(root: first.configuration.blobDirectory)
        let halfStored = try blobs.put(fileAt: leftover.appendingPathComponent("segment_00000.m4s"), fileExtension: "m4s")
        let store = try await SQLStore.openSQLite(
            path: first.configuration.dataDirectory.appendingPathComponent("podium.sqlite").path, logger: TestServer.logger())
        try await closing(store) {
            var video = try #require(try await store.video(id: id))
            video.files = #"["\#(halfStored)"]"#
            try await store.updateVideo(video)
        }

        let second = TestServer(dataDirectory: first.configuration.dataDirectory) {
            $0.videoLimits = VideoLimits(segmentSeconds: 1)
        }
        try await second.run { client in
            let token = try await client.login()
            let video = try await client.waitForVideo(id, token: token)
            #expect(video["status"] as? String == "ready", "\(video)")
            let master = try await client.request(.get, try #require(video["masterPlaylistUrl"] as? String))
            #expect(master.status == .ok)
        }
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        #expect(blobs.file(named: halfStored) == nil)
    }

    @Test func anUploadCutOffHalfWayLeavesNothing() async throws {
        let server = Self.server()
        defer { server.removeData() }
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let clip = try Data(contentsOf: try await VideoClipMaker.mp4(seconds: 2, in: work))
        let uploads = server.configuration.dataDirectory.appendingPathComponent("tmp")
        let uploading = { @Sendable in
            ((try? FileManager.default.contentsOfDirectory(atPath: uploads.path)) ?? []).filter { $0.hasPrefix("upload-") }
        }
        try await server.run { client in
            let token = try await client.login()
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: client.port).get()
            let head =
                "POST /api/v1/videos HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
                + "Content-Type: video/mp4\r\nContent-Length: \(clip.count)\r\n\r\n"
            try await channel.writeAndFlush(ByteBuffer(bytes: Array(head.utf8) + clip.prefix(clip.count / 2)))
            try await waitUntil("the upload has begun") { !uploading().isEmpty }
            try await channel.close()
            try await waitUntil("the cut-off upload is removed") { uploading().isEmpty }
            #expect(try await client.request(.get, "/api/v1/videos", token: token).array().isEmpty)
        }
        #expect(try VideoClipMaker.blobCount(server.configuration.blobDirectory) == 0)
    }

    /// The URIs of a playlist: its lines that are not tags, and `URI="…"` attributes.
    static func uris(_ playlist: String) -> [String] {
        playlist.split(whereSeparator: \.isNewline).compactMap { line in
            if !line.hasPrefix("#") { return String(line) }
            guard let start = line.range(of: "URI=\"") else { return nil }
            return String(line[start.upperBound...].prefix { $0 != "\"" })
        }
    }
}

extension Client {
    /// Uploads a clip as the raw body.
    func uploadVideo(_ file: URL, token: String, title: String? = nil) async throws -> TestResponse {
        var path = "/api/v1/videos"
        if let title { path += "?title=\(title.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
        return try await request(
            .post, path, token: token, headers: [.contentType: "video/mp4"], body: ByteBuffer(bytes: try Data(contentsOf: file)))
    }

    /// Follows the video's packaging job until it has ended, as the library page does.
    func waitForVideo(_ id: String, token: String) async throws -> [String: Any] {
        var video: [String: Any] = [:]
        try await waitUntil("video \(id) packaged", seconds: 90) {
            video = try await request(.get, "/api/v1/videos/\(id)", token: token).object()
            return !["queued", "processing"].contains(video["status"] as? String ?? "")
        }
        return video
    }
}

/// Clips for the server tests, made by `ffmpeg` from its test sources.
enum VideoClipMaker {
    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("podium-video-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func mp4(seconds: Int, in directory: URL) async throws -> URL {
        let output = directory.appendingPathComponent("clip.mp4")
        try await ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=\(seconds)",
            "-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", output.path,
        ])
        return output
    }

    static func m4a(seconds: Int, in directory: URL) async throws -> URL {
        let output = directory.appendingPathComponent("clip.m4a")
        try await ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)", "-c:a", "aac", output.path])
        return output
    }

    static func png(in directory: URL) async throws -> URL {
        let output = directory.appendingPathComponent("picture.png")
        try await ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240", "-frames:v", "1", output.path])
        return output
    }

    private static func ffmpeg(_ arguments: [String]) async throws {
        let result = try await SystemToolRunner().run(
            "ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments, limits: ToolLimits(timeout: .seconds(60)))
        #expect(result.succeeded, "ffmpeg: \(result.stderr)")
    }

    /// Blobs in the blob directory (the temporary files of a copy in progress aside).
    static func blobCount(_ root: URL) throws -> Int {
        guard let files = FileManager.default.enumerator(atPath: root.path) else { return 0 }
        return files.compactMap { $0 as? String }.filter { ($0 as NSString).lastPathComponent.count > 64 }.count
    }
}
