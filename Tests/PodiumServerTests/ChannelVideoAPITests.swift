import Foundation
import HTTPTypes
import NIOCore
import PodiumStore
import Synchronization
import Testing

@testable import PodiumServer

/// The channel's video catalogue through the real server: the admin's writes, the public reads
/// with their caching, versioning and bad input, the membership rule on the stream URL, the
/// stream's per-video blobs and token checks, favourites and positions kept per person and
/// adopted at sign-in, archive and restore.
@Suite("Channel videos API", .timeLimit(.minutes(3)))
struct ChannelVideoAPITests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A clock the test moves.
    final class TestClock: Sendable {
        private let current = Mutex<Date>(ChannelVideoAPITests.start)
        var now: Date { current.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { current.withLock { $0 += seconds } }
    }

    /// A ready library video with real blob files (a master, a variant playlist, two segments and
    /// a poster), stored without packaging: what a packaged upload leaves.
    struct LibraryVideo {
        let id: String
        let master: String
        let segments: [String]
        let poster: String
    }

    static func libraryVideo(_ id: String, seed: UInt8, store: SQLStore, blobs: FileBlobStore, at date: Date) async throws
        -> LibraryVideo
    {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cv-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        func put(_ data: Data, _ ext: String) throws -> String {
            let file = scratch.appendingPathComponent(UUID().uuidString)
            try data.write(to: file)
            return try blobs.put(fileAt: file, fileExtension: ext)
        }
        let segments = try (0..<2).map { n in
            try put(Data([seed, UInt8(n)] + (0..<4000).map { UInt8($0 % 251) }), "m4s")
        }
        let variant = try put(
            Data(
                "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n\(segments[0])\n#EXTINF:2,\n\(segments[1])\n#EXT-X-ENDLIST\n".utf8),
            "m3u8")
        let master = try put(Data("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=\(1000 + Int(seed))\n\(variant)\n".utf8), "m3u8")
        let poster = try put(Data([0xFF, 0xD8, 0xFF, seed]), "jpg")
        let files = [master, variant, poster] + segments
        let json = String(decoding: try JSONEncoder().encode(files), as: UTF8.self)
        try await store.insertVideo(
            VideoRecord(
                id: id, ownerId: try #require(try await store.user(email: "admin")?.id), folderId: nil, title: "Library \(id)",
                status: .ready, sourceHash: segments[0], sourceBytes: 4000, duration: 4, width: 320, height: 240,
                hasVideo: true, hasAudio: false, masterPlaylist: master, poster: poster, files: json, createdAt: date))
        return LibraryVideo(id: id, master: master, segments: segments, poster: poster)
    }

    static func json(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// Runs `body` with a server on `kind`, its store, its blob store, the clock and an admin token.
    static func withServer(
        _ kind: StoreKind,
        _ body: @escaping @Sendable (Client, SQLStore, FileBlobStore, TestClock, String) async throws -> Void
    ) async throws {
        let server = TestServer()
        defer { server.removeData() }
        let (store, cleanUp) = try await TestStores.open(kind)
        let clock = TestClock()
        do {
            let blobs = try FileBlobStore(root: server.configuration.blobDirectory)
            try await server.run(store: store, now: { clock.now }) { client in
                let token = try await client.login()
                try await body(client, store, blobs, clock, token)
            }
            try await store.close()
        } catch {
            try? await store.close()
            await cleanUp()
            throw error
        }
        await cleanUp()
    }

    /// Categories news (with sub-category local) and kitchen; videos: `old` (news, members only),
    /// `free` (kitchen, free), `newest` (news/local, published last); returns their ids.
    static func seedCatalogue(_ client: Client, _ store: SQLStore, _ blobs: FileBlobStore, _ clock: TestClock, token: String)
        async throws -> (
            news: String, local: String, kitchen: String, old: String, free: String, newest: String,
            videos: [String: LibraryVideo]
        )
    {
        func post(_ path: String, _ body: [String: Any]) async throws -> [String: Any] {
            let response = try await client.request(.post, "/api/v1/channel" + path, token: token, json: try json(body))
            try #require(response.status == .created, "\(path): \(String(buffer: response.body))")
            return try response.object()
        }
        let news = try #require(try await post("/videos/categories", ["name": "News"])["id"] as? String)
        let local = try #require(try await post("/videos/categories", ["name": "Local", "parentId": news])["id"] as? String)
        let kitchen = try #require(try await post("/videos/categories", ["name": "Czech kitchen"])["id"] as? String)
        var library: [String: LibraryVideo] = [:]
        for (n, name) in ["old", "free", "newest"].enumerated() {
            library[name] = try await libraryVideo("v_lib\(n)", seed: UInt8(n), store: store, blobs: blobs, at: clock.now)
        }
        let old = try #require(
            try await post(
                "/videos",
                [
                    "videoId": library["old"]!.id, "categoryId": news, "title": "Prague at night",
                    "description": "Lights over the Vltava", "published": true,
                    "chapters": [["start": 2, "title": "Bridge"], ["start": 0, "title": "Start"]],
                ])["id"] as? String)
        clock.advance(60)
        let free = try #require(
            try await post(
                "/videos",
                [
                    "videoId": library["free"]!.id, "categoryId": kitchen, "title": "Dumplings", "free": true,
                    "published": true,
                ])["id"] as? String)
        clock.advance(60)
        let newest = try #require(
            try await post(
                "/videos",
                [
                    "videoId": library["newest"]!.id, "categoryId": news, "subcategoryId": local, "title": "Brno today",
                    "published": true,
                ])["id"] as? String)
        return (news, local, kitchen, old, free, newest, library)
    }

    @Test(arguments: TestStores.kinds) func theCatalogueIsCachedVersionedAndRefusesBadInput(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { client, store, blobs, clock, token in
            let seeded = try await Self.seedCatalogue(client, store, blobs, clock, token: token)

            let list = try await client.request(.get, "/api/v1/channel/videos")
            #expect(list.status == .ok)
            let videos = try list.array()
            #expect(videos.map { $0["id"] as? String } == [seeded.old, seeded.free, seeded.newest])
            let old = try #require(videos.first)
            #expect(old["membersOnly"] as? Bool == true && old["new"] as? Bool == true)
            #expect((old["chapters"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Start", "Bridge"])
            #expect(old["posterUrl"] as? String == "/blobs/\(seeded.videos["old"]!.poster)")
            #expect(old["duration"] as? Double == 4)
            #expect(old["subcategoryId"] is NSNull)
            #expect(videos[1]["membersOnly"] as? Bool == false)  // free
            #expect(videos[2]["membersOnly"] as? Bool == false)  // the newest
            #expect(list.headers[.vary] == "Accept")
            #expect(list.headers[.cacheControl] == "no-cache")

            // Revalidation: either validator gives 304.
            let tag = try #require(list.headers[.eTag])
            let modified = try #require(list.headers[.lastModified])
            #expect(try await client.request(.get, "/api/v1/channel/videos", headers: [.ifNoneMatch: tag]).status == .notModified)
            #expect(
                try await client.request(.get, "/api/v1/channel/videos", headers: [.ifModifiedSince: modified]).status
                    == .notModified)
            // Answered before the list is read, but never past a version it does not speak.
            #expect(
                try await client.request(
                    .get, "/api/v1/channel/videos?search=vltava",
                    headers: [.ifModifiedSince: modified, .accept: "application/vnd.podium.v9+json"]
                ).status == .notAcceptable)
            let categories = try await client.request(.get, "/api/v1/channel/videos/categories")
            #expect(try categories.array().map { $0["name"] as? String } == ["News", "Local", "Czech kitchen"])
            #expect(try categories.array()[1]["level"] as? Int == 1)
            #expect(
                try await client.request(
                    .get, "/api/v1/channel/videos/categories",
                    headers: [.ifModifiedSince: try #require(categories.headers[.lastModified])]
                ).status == .notModified)
            // A change makes the list modified again.
            clock.advance(5)
            let renamed = try await client.request(
                .patch, "/api/v1/channel/videos/categories/\(seeded.kitchen)", token: token, json: #"{"name":"Kitchen"}"#)
            #expect(renamed.status == .ok)
            #expect(
                try await client.request(.get, "/api/v1/channel/videos/categories", headers: [.ifModifiedSince: modified]).status
                    == .ok)

            // Versions by Accept.
            let v1 = try await client.request(
                .get, "/api/v1/channel/videos", headers: [.accept: "application/vnd.podium.v1+json"])
            #expect(v1.status == .ok && v1.headers[.contentType] == "application/vnd.podium.v1+json")
            let v9 = try await client.request(
                .get, "/api/v1/channel/videos", headers: [.accept: "application/vnd.podium.v9+json"])
            #expect(v9.status == .notAcceptable)
            #expect((try v9.object()["error"] as? [String: Any])?["code"] as? String == "unsupported_version")

            // Category, search and paging.
            let inNews = try await client.request(.get, "/api/v1/channel/videos/categories/\(seeded.news)/videos").array()
            #expect(inNews.map { $0["id"] as? String } == [seeded.old, seeded.newest])
            let inLocal = try await client.request(.get, "/api/v1/channel/videos?categoryId=\(seeded.local)").array()
            #expect(inLocal.map { $0["id"] as? String } == [seeded.newest])
            let found = try await client.request(.get, "/api/v1/channel/videos?search=vltava").array()
            #expect(found.map { $0["id"] as? String } == [seeded.old])
            // Several words, as a page's URLSearchParams writes them (`+` for a space).
            let words = try await client.request(.get, "/api/v1/channel/videos?search=over+the+vltava").array()
            #expect(words.map { $0["id"] as? String } == [seeded.old])
            let page = try await client.request(.get, "/api/v1/channel/videos?limit=1&offset=1").array()
            #expect(page.map { $0["id"] as? String } == [seeded.free])
            #expect(
                try await client.request(.get, "/api/v1/channel/videos/categories/\(seeded.kitchen)").object()["name"] as? String
                    == "Kitchen")
            let one = try await client.request(.get, "/api/v1/channel/videos/\(seeded.newest)").object()
            #expect(one["subcategoryId"] as? String == seeded.local)

            // Bad input: 400 with a message; unknown ids: 404.
            for path in [
                "/videos?limit=0", "/videos?limit=101", "/videos?limit=abc", "/videos?offset=-1", "/videos?status=bogus",
                "/videos?search=" + String(repeating: "a", count: 201),
            ] {
                let response = try await client.request(.get, "/api/v1/channel" + path)
                #expect(response.status == .badRequest, "\(path)")
                #expect((try response.object()["error"] as? [String: Any])?["message"] as? String != nil)
            }
            for path in [
                "/videos/cv_nope", "/videos/categories/vc_nope", "/videos/categories/vc_nope/videos", "/videos/cv_nope/stream",
            ] {
                let response = try await client.request(.get, "/api/v1/channel" + path)
                #expect(response.status == .notFound, "\(path)")
                #expect((try response.object()["error"] as? [String: Any])?["code"] as? String == "not_found")
            }
            // The admin's views are the admin's.
            #expect(try await client.request(.get, "/api/v1/channel/videos?status=all").status == .forbidden)
            #expect(
                try await client.request(.post, "/api/v1/channel/videos/categories", json: #"{"name":"X"}"#).status.code >= 400)
        }
    }

    @Test func aStreamIsForItsPersonItsVideoAndItsTime() async throws {
        try await Self.withServer(.sqlite) { client, store, blobs, clock, token in
            let seeded = try await Self.seedCatalogue(client, store, blobs, clock, token: token)
            let anonymous: HTTPFields = [.cookie: "podium_viewer=\(InteractionTests.identity(7))"]

            // A non-member: the members-only video is refused with how to become a member.
            let refused = try await client.request(.get, "/api/v1/channel/videos/\(seeded.old)/stream", headers: anonymous)
            #expect(refused.status == .forbidden)
            let error = try #require(try refused.object()["error"] as? [String: Any])
            #expect(error["code"] as? String == "membership_required")
            #expect(error["limit"] as? String == "video")
            #expect((error["join"] as? String)?.isEmpty == false)

            // The free one and the newest play.
            for id in [seeded.free, seeded.newest] {
                #expect(
                    try await client.request(.get, "/api/v1/channel/videos/\(id)/stream", headers: anonymous).status == .ok)
            }
            // A member (the admin counts as one) plays the members-only video.
            let stream = try await client.request(.get, "/api/v1/channel/videos/\(seeded.old)/stream", token: token).object()
            let url = try #require(stream["url"] as? String)
            let master = seeded.videos["old"]!.master
            #expect(url.hasSuffix("/\(master)"))
            #expect(stream["resumeAt"] is NSNull)
            let base = String(url.dropLast(master.count))

            let playlist = try await client.request(.get, url)
            #expect(playlist.status == .ok)
            #expect(playlist.headers[.contentType] == "application/vnd.apple.mpegurl")
            let segment = seeded.videos["old"]!.segments[1]
            let part = try await client.request(.get, base + segment, headers: [.range: "bytes=10-19"])
            #expect(part.status == .partialContent && part.body.readableBytes == 10)
            #expect(part.headers[.cacheControl]?.contains("immutable") == true)
            // Another video's blob is not this token's, nor is a name that is no blob.
            #expect(try await client.request(.get, base + seeded.videos["free"]!.segments[0]).status == .notFound)
            #expect(try await client.request(.get, base + "..%2F..%2Fetc%2Fpasswd").status == .notFound)

            // Forged: a changed MAC, or a token made up.
            var forged = Array(base.dropFirst("/stream/".count).dropLast())
            forged[forged.count - 2] = forged[forged.count - 2] == "A" ? "B" : "A"
            let forgedResponse = try await client.request(.get, "/stream/\(String(forged))/\(master)")
            #expect(forgedResponse.status == .forbidden)
            #expect((try forgedResponse.object()["error"] as? [String: Any])?["code"] as? String == "stream_forbidden")
            #expect(try await client.request(.get, "/stream/abc.def/\(master)").status == .forbidden)

            // Archived: its stream stops at once (the blob set cache is dropped).
            #expect(try await client.request(.delete, "/api/v1/channel/videos/\(seeded.old)", token: token).status == .noContent)
            #expect(try await client.request(.get, base + segment).status == .notFound)
            _ = try await client.request(.post, "/api/v1/channel/videos/\(seeded.old)/restore", token: token)
            #expect(try await client.request(.get, base + segment).status == .ok)

            // Expired: 410, so the page asks for a new link.
            clock.advance(6 * 3600 + 1)
            let expired = try await client.request(.get, base + segment)
            #expect(expired.status == .gone)
            #expect((try expired.object()["error"] as? [String: Any])?["code"] as? String == "stream_expired")
        }
    }

    @Test func favouritesAndPositionsFollowThePersonToTheirAccount() async throws {
        try await Self.withServer(.sqlite) { client, store, blobs, clock, token in
            let seeded = try await Self.seedCatalogue(client, store, blobs, clock, token: token)
            let browser: HTTPFields = [.cookie: "podium_viewer=\(InteractionTests.identity(3))"]
            let other: HTTPFields = [.cookie: "podium_viewer=\(InteractionTests.identity(4))"]

            #expect(
                try await client.request(.put, "/api/v1/channel/me/favourites/\(seeded.free)", headers: browser).status
                    == .noContent)
            #expect(
                try await client.request(.put, "/api/v1/channel/me/favourites/cv_nope", headers: browser).status == .notFound)
            let saved = try await client.request(
                .put, "/api/v1/channel/me/positions/\(seeded.free)", headers: browser, json: #"{"seconds":2}"#)
            #expect(saved.status == .noContent)
            for bad in [#"{"seconds":-1}"#, #"{"seconds":"x"}"#, "{}"] {
                #expect(
                    try await client.request(.put, "/api/v1/channel/me/positions/\(seeded.free)", headers: browser, json: bad)
                        .status == .badRequest)
            }
            let favourites = try await client.request(.get, "/api/v1/channel/me/favourites", headers: browser)
            #expect(favourites.headers[.cacheControl] == "private, no-store")
            #expect(try favourites.array().map { $0["id"] as? String } == [seeded.free])
            let watching = try await client.request(.get, "/api/v1/channel/me/continue", headers: browser).array()
            #expect(watching.map { ($0["video"] as? [String: Any])?["id"] as? String } == [seeded.free])
            #expect(watching.first?["seconds"] as? Double == 2)
            let resume = try await client.request(.get, "/api/v1/channel/videos/\(seeded.free)/stream", headers: browser)
            #expect(try resume.object()["resumeAt"] as? Double == 2)
            // Another browser is another person.
            #expect(try await client.request(.get, "/api/v1/channel/me/favourites", headers: other).array().isEmpty)

            // Signing in on this browser takes what it kept to the account, seen from anywhere.
            clock.advance(10)
            var signIn = browser
            signIn[.contentType] = "application/json"
            let login = try await client.http.execute(
                .post, "/api/v1/auth/login", headers: signIn,
                body: ByteBuffer(string: #"{"email":"admin","password":"\#(TestServer.adminPassword)"}"#))
            #expect(login.status == .ok)
            let account = try #require(try login.object()["token"] as? String)
            #expect(
                try await client.request(.get, "/api/v1/channel/me/favourites", token: account).array().map {
                    $0["id"] as? String
                }
                    == [seeded.free])
            #expect(
                try await client.request(.get, "/api/v1/channel/me/continue", token: token).array().first?["seconds"] as? Double
                    == 2)
            #expect(try await client.request(.get, "/api/v1/channel/me/favourites", headers: browser).array().isEmpty)

            #expect(
                try await client.request(.delete, "/api/v1/channel/me/favourites/\(seeded.free)", token: token).status
                    == .noContent)
            #expect(try await client.request(.get, "/api/v1/channel/me/favourites", token: token).array().isEmpty)
        }
    }

    @Test func theAdminArchivesRestoresReordersAndDeletesForEver() async throws {
        try await Self.withServer(.sqlite) { client, store, blobs, clock, token in
            let seeded = try await Self.seedCatalogue(client, store, blobs, clock, token: token)
            let path = "/api/v1/channel/videos/\(seeded.free)"

            // Deleting for ever is for the archive only.
            let early = try await client.request(.delete, path + "?permanent=true", token: token)
            #expect(early.status == .conflict)
            #expect((try early.object()["error"] as? [String: Any])?["code"] as? String == "not_archived")

            #expect(try await client.request(.delete, path, token: token).status == .noContent)
            #expect(try await client.request(.get, path).status == .notFound)
            let archived = try await client.request(.get, "/api/v1/channel/videos?status=archived", token: token).array()
            #expect(archived.map { $0["id"] as? String } == [seeded.free])
            #expect(archived.first?["archivedAt"] as? String != nil)
            let restored = try await client.request(.post, path + "/restore", token: token)
            #expect(restored.status == .ok)
            #expect(try restored.object()["archivedAt"] is NSNull)
            #expect(try await client.request(.get, path).status == .ok)

            // Unpublished: out of the public list, in the admin's.
            #expect(try await client.request(.patch, path, token: token, json: #"{"published":false}"#).status == .ok)
            #expect(try await client.request(.get, "/api/v1/channel/videos").array().count == 2)
            #expect(try await client.request(.get, "/api/v1/channel/videos?status=all", token: token).array().count == 3)

            // Reorder by a list, and one by its position.
            let order = [seeded.newest, seeded.free, seeded.old]
            #expect(
                try await client.request(
                    .put, "/api/v1/channel/videos/order", token: token, json: try Self.json(["ids": order])
                ).status == .noContent)
            #expect(
                try await client.request(.get, "/api/v1/channel/videos?status=all", token: token).array().map {
                    $0["id"] as? String
                } == order)
            _ = try await client.request(.patch, "/api/v1/channel/videos/\(seeded.old)", token: token, json: #"{"position":0}"#)
            #expect(
                try await client.request(.get, "/api/v1/channel/videos?status=all", token: token).array().map {
                    $0["id"] as? String
                } == [seeded.old, seeded.newest, seeded.free])
            #expect(
                try await client.request(.put, "/api/v1/channel/videos/order", token: token, json: #"{"ids":["cv_x"]}"#).status
                    == .badRequest)

            // Bad edits are refused with a reason.
            for bad in [
                #"{"title":"  "}"#, #"{"categoryId":"vc_nope"}"#, #"{"subcategoryId":"\#(seeded.local)"}"#,
                #"{"chapters":[{"start":99,"title":"Past the end"}]}"#, #"{"chapters":[{"start":0,"title":""}]}"#,
            ] {
                #expect(try await client.request(.patch, path, token: token, json: bad).status == .badRequest, "\(bad)")
            }
            // A category in use is not deleted for ever; an archived category hides its videos.
            let category = "/api/v1/channel/videos/categories/\(seeded.kitchen)"
            #expect(try await client.request(.delete, category, token: token).status == .noContent)
            #expect(try await client.request(.get, "/api/v1/channel/videos/\(seeded.free)", token: nil).status == .notFound)
            let inUse = try await client.request(.delete, category + "?permanent=true", token: token)
            #expect(inUse.status == .conflict)
            #expect((try inUse.object()["error"] as? [String: Any])?["code"] as? String == "category_in_use")
            #expect(try await client.request(.post, category + "/restore", token: token).status == .ok)

            // Archived, then deleted for ever.
            _ = try await client.request(.delete, path, token: token)
            #expect(try await client.request(.delete, path + "?permanent=true", token: token).status == .noContent)
            #expect(try await client.request(.get, path + "?status=all", token: token).status == .notFound)
            // The library lists what may be published.
            let library = try await client.request(.get, "/api/v1/channel/videos/library", token: token).array()
            #expect(library.count == 3)
        }
    }
}
