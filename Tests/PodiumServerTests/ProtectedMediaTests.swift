import Foundation
import HTTPTypes
import NIOCore
import PodiumStore
import Synchronization
import Testing

@testable import PodiumServer

/// The members-only wall (#37): protected media (channel videos, the radio's segments, library
/// and stage clips) is served only through expiring capability URLs (`/stream/<token>/<file>`);
/// `/blobs/` serves pictures only and answers 404 for every media blob, even one that exists.
@Suite("Protected media", .timeLimit(.minutes(3)))
struct ProtectedMediaTests {
    typealias TestClock = ChannelVideoAPITests.TestClock

    /// A ready library clip with every kind of file a packaged upload leaves: a master playlist
    /// naming a video variant and an audio rendition, their init segments and segments, the
    /// MP4, the poster, the thumbnail sprite and its WebVTT track. Stored without packaging.
    struct Clip {
        let id: String
        let master: String
        let variant: String
        let audio: String
        let initSegment: String
        let segments: [String]
        let mp4: String
        let track: String
        let poster: String
        let sprite: String

        /// What only a capability URL may serve.
        var media: [String] { [master, variant, audio, initSegment, mp4, track] + segments }
    }

    static func clip(_ id: String, seed: UInt8, store: SQLStore, blobs: FileBlobStore, at date: Date) async throws -> Clip {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        func put(_ data: Data, _ ext: String) throws -> String {
            let file = scratch.appendingPathComponent(UUID().uuidString)
            try data.write(to: file)
            return try blobs.put(fileAt: file, fileExtension: ext)
        }
        func bytes(_ n: UInt8) -> Data { Data([seed, n] + (0..<3000).map { UInt8($0 % 251) }) }
        let initSegment = try put(bytes(9), "mp4")
        let segments = try (0..<2).map { try put(bytes(UInt8($0)), "m4s") }
        let audioInit = try put(bytes(19), "mp4")
        let audioSegment = try put(bytes(20), "m4s")
        func playlist(_ map: String, _ segments: [String]) -> Data {
            Data(
                ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MAP:URI=\"\(map)\"\n"
                    + segments.map { "#EXTINF:2,\n\($0)\n" }.joined() + "#EXT-X-ENDLIST\n").utf8)
        }
        let variant = try put(playlist(initSegment, segments), "m3u8")
        let audio = try put(playlist(audioInit, [audioSegment]), "m3u8")
        let master = try put(
            Data(
                ("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"audio\",DEFAULT=YES,URI=\"\(audio)\"\n"
                    + "#EXT-X-STREAM-INF:BANDWIDTH=\(900_000 + Int(seed)),RESOLUTION=320x240,"
                    + "CODECS=\"avc1.64000d,mp4a.40.2\",AUDIO=\"audio\"\n\(variant)\n").utf8), "m3u8")
        let mp4 = try put(bytes(30), "mp4")
        let poster = try put(Data([0xFF, 0xD8, 0xFF, seed, 1]), "jpg")
        let sprite = try put(Data([0xFF, 0xD8, 0xFF, seed, 2]), "jpg")
        let track = try put(Data("WEBVTT\n\n00:00.000 --> 00:02.000\n\(sprite)#xywh=0,0,160,120\n".utf8), "vtt")
        let files = [master, variant, audio, initSegment, audioInit, audioSegment, mp4, poster, sprite, track] + segments
        let renditions =
            #"[{"playlist":"\#(variant)","bandwidth":900000,"width":320,"height":240,"codecs":"avc1.64000d,mp4a.40.2"}]"#
        try await store.insertVideo(
            VideoRecord(
                id: id, ownerId: try #require(try await store.user(email: "admin")?.id), folderId: nil, title: "Clip \(id)",
                status: .ready, sourceHash: mp4, sourceBytes: 3000, duration: 4, width: 320, height: 240, hasVideo: true,
                hasAudio: true, renditions: renditions, masterPlaylist: master, poster: poster, thumbnailSprite: sprite,
                thumbnailTrack: track, mp4: mp4,
                files: String(decoding: try JSONEncoder().encode(files), as: UTF8.self), createdAt: date))
        return Clip(
            id: id, master: master, variant: variant, audio: audio, initSegment: initSegment, segments: segments, mp4: mp4,
            track: track, poster: poster, sprite: sprite)
    }

    /// `url` without its last path component: where the files of its token are.
    static func base(_ url: String) -> String { String(url[...(url.lastIndex(of: "/") ?? url.startIndex)]) }

    static func expectRefusedAtBlobs(_ client: Client, _ names: [String], blobs: FileBlobStore) async throws {
        for name in names {
            #expect(blobs.file(named: name) != nil, "\(name) is stored")
            for method in [HTTPRequest.Method.get, .head] {
                let response = try await client.request(method, "/blobs/\(name)")
                #expect(response.status == .notFound, "\(method) /blobs/\(name)")
                if method == .get { #expect(response.errorCode == "not_found", "\(name)") }
            }
        }
    }

    @Test(arguments: TestStores.kinds) func mediaIsServedOnlyThroughItsCapability(_ kind: StoreKind) async throws {
        try await ChannelVideoAPITests.withServer(kind) { client, store, blobs, clock, token in
            let first = try await Self.clip("v_pm1", seed: 1, store: store, blobs: blobs, at: clock.now)
            let second = try await Self.clip("v_pm2", seed: 2, store: store, blobs: blobs, at: clock.now)
            // The radio's segments are blobs too (the radio's own tests play real ones).
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pm-ts-\(UUID().uuidString)")
            try Data([0x47, 1, 2, 3]).write(to: scratch)
            defer { try? FileManager.default.removeItem(at: scratch) }
            let radioSegment = try blobs.put(fileAt: scratch, fileExtension: "ts")

            // No media at a permanent address, whoever asks; the pictures stay there.
            try await Self.expectRefusedAtBlobs(client, first.media + second.media + [radioSegment], blobs: blobs)
            for picture in [first.poster, first.sprite] {
                let response = try await client.request(.get, "/blobs/\(picture)")
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
            }

            // The owner's view of the clip: its media by capability URL, its pictures by blob.
            let video = try await client.request(.get, "/api/v1/videos/\(first.id)", token: token).object()
            let masterURL = try #require(video["masterPlaylistUrl"] as? String)
            #expect(masterURL.hasPrefix("/stream/") && masterURL.hasSuffix("/\(first.master)"))
            #expect(video["posterUrl"] as? String == "/blobs/\(first.poster)")
            #expect(video["thumbnailsUrl"] as? String == "/blobs/\(first.sprite)")
            let base = Self.base(masterURL)
            #expect(video["mp4Url"] as? String == base + first.mp4)
            #expect(video["thumbnailTrackUrl"] as? String == base + first.track)
            // The renditions: the video variant, then the audio rendition (no picture size).
            let renditions = try #require(video["renditions"] as? [[String: Any]])
            #expect(renditions.map { $0["playlistUrl"] as? String } == [base + first.variant, base + first.audio])
            #expect(renditions.map { $0["height"] as? Int } == [240, nil])
            #expect(renditions.last?["codecs"] as? String == "mp4a.40.2")
            #expect((renditions.last?["bandwidth"] as? Int ?? 0) > 0)
            for name in first.media {
                let response = try await client.request(.get, base + name)
                #expect(response.status == .ok, "\(name)")
                // The master playlist is asked for again on every load: it lists the caption
                // tracks, which may come after a player first loaded the clip.
                let caching = name == first.master ? "private, no-cache" : "private, max-age=31536000, immutable"
                #expect(response.headers[.cacheControl] == caching, "\(name)")
            }
            let ranged = try await client.request(.get, base + first.mp4, headers: [.range: "bytes=0-9"])
            #expect(ranged.status == .partialContent && ranged.body.readableBytes == 10)
            #expect(ranged.headers[.contentType] == "video/mp4")
            // The track's sprite resolves beside it, under the same token.
            #expect(try await client.request(.get, base + first.sprite).status == .ok)
            // One clip's token opens none of another's files, nor a blob of no clip.
            for name in second.media + [radioSegment] {
                #expect(try await client.request(.get, base + name).status == .notFound, "\(name)")
            }
            // A token for one clip, its resource changed to another: forged.
            let other = try await client.request(.get, "/api/v1/videos/\(second.id)", token: token).object()
            let otherBase = Self.base(try #require(other["masterPlaylistUrl"] as? String))
            #expect(otherBase != base)
            #expect(try await client.request(.get, otherBase + second.segments[0]).status == .ok)

            // A channel video (members only) on the same library clip: its own capability URL.
            let category = try await client.request(
                .post, "/api/v1/channel/videos/categories", token: token, json: #"{"name":"News"}"#
            ).object()
            let published = try await client.request(
                .post, "/api/v1/channel/videos", token: token,
                json: try ChannelVideoAPITests.json([
                    "videoId": second.id, "categoryId": try #require(category["id"] as? String), "title": "Members only",
                    "published": true,
                ]))
            #expect(published.status == .created)
            let channelId = try #require(try published.object()["id"] as? String)
            let stream = try await client.request(.get, "/api/v1/channel/videos/\(channelId)/stream", token: token).object()
            let channelBase = Self.base(try #require(stream["url"] as? String))
            for name in [second.master, second.variant, second.initSegment, second.segments[1]] {
                #expect(try await client.request(.get, channelBase + name).status == .ok, "\(name)")
            }
            try await Self.expectRefusedAtBlobs(client, [second.master, second.variant, second.initSegment], blobs: blobs)

            // A deleted clip's URLs stop at once.
            #expect(try await client.request(.delete, "/api/v1/videos/\(first.id)", token: token).status == .noContent)
            #expect(try await client.request(.get, base + first.master).status == .notFound)

            // Past the REST lifetime (the channel's, 6 h): 410, and the page asks again.
            clock.advance(6 * 3600 + 1)
            let expired = try await client.request(.get, otherBase + second.segments[0])
            #expect(expired.status == .gone)
            #expect(expired.errorCode == "stream_expired")
            #expect(try await client.request(.get, channelBase + second.segments[0]).status == .gone)
            // The pictures never expire.
            #expect(try await client.request(.get, "/blobs/\(second.poster)").status == .ok)
        }
    }

    /// A station's real segments (packaged by ffmpeg): heard through the station's stream URL,
    /// never at `/blobs/`, so a loop's segment names collected while listening open nothing.
    @Test(arguments: TestStores.kinds) func theRadiosSegmentsAreHeardOnlyThroughItsStream(_ kind: StoreKind) async throws {
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let server = ChannelRadioServerTests.server(kind)
        defer { server.removeData() }
        let clock = ChannelRadioServerTests.TestClock(Date(timeIntervalSince1970: 1_800_000_000))
        try await server.run(now: clock.now) { client in
            let token = try await client.login()
            let (id, _) = try await ChannelRadioServerTests.station(client, token: token, work: work)
            clock.advance(30)
            let url = try #require(try await ChannelRadioServerTests.streamURL(client, id).object()["url"] as? String)
            let sequence = try #require(try await ChannelRadioServerTests.playlist(client, url).sequences.first)
            let heard = try await client.request(
                .get, ChannelRadioServerTests.base(url) + "\(sequence).ts", headers: ChannelRadioServerTests.listener)
            #expect(heard.status == .ok)
            let root = server.configuration.blobDirectory
            let segments = (FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? [])
                .map { ($0 as NSString).lastPathComponent }.filter { $0.hasSuffix(".ts") }
            #expect(!segments.isEmpty)
            for name in segments {
                let refused = try await client.request(.get, "/blobs/\(name)", headers: ChannelRadioServerTests.listener)
                #expect(refused.status == .notFound, "\(name)")
                #expect(refused.errorCode == "not_found")
            }
        }
    }

    /// A clip put on a session's stage plays through a URL minted then, for the session (12 h by
    /// default), that a second node on the same database verifies too; the deck's page images
    /// stay at `/blobs/`.
    @Test(arguments: TestStores.kinds) func aClipOnStagePlaysThroughALongerCapabilityOnEveryNode(_ kind: StoreKind)
        async throws
    {
        let first = TestServer()
        let second = first.nodeBeside()
        defer {
            first.removeData()
            second.removeData()
        }
        let (store, storeOfB, closeStores) = try await TestStores.openNodes(kind)
        let clock = TestClock()
        do {
            let blobs = try FileBlobStore(root: first.configuration.blobDirectory)
            try await first.run(store: store, now: { clock.now }) { nodeA in
                try await second.run(store: storeOfB, now: { clock.now }) { nodeB in
                    let token = try await nodeA.login()
                    let deckId = try await nodeA.readyDeck(token: token)
                    let deck = try await nodeA.request(.get, "/api/v1/decks/\(deckId)", token: token).object()
                    let page = try #require((deck["pages"] as? [[String: Any]])?.first)
                    for key in ["imageUrl", "mediumUrl", "thumbnailUrl"] {
                        let url = try #require(page[key] as? String)
                        #expect(url.hasPrefix("/blobs/"))
                        #expect(try await nodeB.request(.get, url).status == .ok, "\(key)")
                    }
                    let session = try await nodeA.startSession(deckId: deckId, token: token)
                    let code = try #require(session["code"] as? String)
                    let clip = try await Self.clip("v_stage", seed: 3, store: store, blobs: blobs, at: clock.now)
                    try await Self.expectRefusedAtBlobs(nodeB, clip.media, blobs: blobs)

                    let presenter = try await nodeA.socket(code: code)
                    _ = try await presenter.hello(["role": "presenter", "token": token])
                    try await presenter.send(#"{"type":"showVideo","id":"v1","videoId":"\#(clip.id)"}"#)
                    let shown = try #require(try await presenter.next(ofType: "playback")?["playback"] as? [String: Any])
                    let media = try #require(shown["media"] as? [String: Any])
                    let playlist = try #require(media["playlist"] as? String)
                    #expect(playlist.hasPrefix("/stream/") && playlist.hasSuffix("/\(clip.master)"))
                    let base = Self.base(playlist)
                    #expect(media["thumbnails"] as? String == base + clip.track)
                    #expect(media["poster"] as? String == "/blobs/\(clip.poster)")
                    // When it stops working, so the screen that drives can renew it before.
                    #expect(media["expiresAt"] as? Double == (clock.now + 12 * 3600).timeIntervalSince1970.rounded(.down))
                    for node in [nodeA, nodeB] {
                        for name in [clip.master, clip.variant, clip.initSegment, clip.segments[0], clip.track] {
                            #expect(try await node.request(.get, base + name).status == .ok, "\(name)")
                        }
                    }

                    // Longer than a REST link (6 h), as long as the stage's (12 h by default).
                    clock.advance(11 * 3600)
                    #expect(try await nodeB.request(.get, base + clip.segments[1]).status == .ok)
                    clock.advance(3600 + 1)
                    let expired = try await nodeB.request(.get, base + clip.segments[1])
                    #expect(expired.status == .gone && expired.errorCode == "stream_expired")
                    // Put on the stage again, it gets a fresh one.
                    try await presenter.send(#"{"type":"showVideo","id":"v2","videoId":"\#(clip.id)"}"#)
                    let again = try #require(try await presenter.next(ofType: "playback")?["playback"] as? [String: Any])
                    let fresh = try #require((again["media"] as? [String: Any])?["playlist"] as? String)
                    #expect(fresh != playlist)
                    #expect(try await nodeB.request(.get, Self.base(fresh) + clip.segments[1]).status == .ok)
                }
            }
        } catch {
            await closeStores()
            throw error
        }
        await closeStores()
    }
}
