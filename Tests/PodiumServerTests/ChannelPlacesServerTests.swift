import Foundation
import HTTPTypes
import NIOCore
import PodiumServer
import PodiumStore
import Synchronization
import Testing

/// The channel's places over HTTP: publishing and the archive, search, the distance sort, the
/// directions rule (members only), caching, bad input; and the offline basemap's tiles.
@Suite("Channel places", .timeLimit(.minutes(2)))
struct ChannelPlacesServerTests {
    /// A person who never signed in, with the browser's identity cookie.
    static let visitor: HTTPFields = [.cookie: "podium_viewer=v_" + String(repeating: "p", count: 24)]

    static func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    static func array(_ response: TestResponse) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]])
    }

    /// Makes a category and places (Prague Castle, Charles Bridge, Brno's Špilberk, the Met in
    /// New York, an unpublished draft); returns their ids by name.
    static func seed(_ client: Client, token: String) async throws -> [String: String] {
        var ids: [String: String] = [:]
        let category = try await client.request(
            .post, "/api/v1/channel/pois/categories", token: token, json: #"{"name":"Sights"}"#)
        #expect(category.status == .created)
        ids["Sights"] = try #require(try category.object()["id"] as? String)
        let places: [(String, Double, Double, Bool)] = [
            ("Pražský hrad", 50.0911, 14.4016, true), ("Karlův most", 50.0865, 14.4114, true),
            ("Špilberk", 49.1946, 16.5994, true), ("The Met", 40.7794, -73.9632, true), ("Draft", 50.0, 14.0, false),
        ]
        for (name, latitude, longitude, published) in places {
            let created = try await client.request(
                .post, "/api/v1/channel/pois", token: token,
                json: try json([
                    "name": name, "latitude": latitude, "longitude": longitude, "published": published,
                    "categoryId": ids["Sights"]!, "address": "\(name) street 1", "phone": "+420 224 372 423",
                    "website": "https://example.org/", "openingHours": "Daily 9–17",
                ]))
            #expect(created.status == .created, "\(String(buffer: created.body))")
            ids[name] = try #require(try created.object()["id"] as? String)
        }
        return ids
    }

    @Test func publishedPlacesAreListedSearchedAndSortedByDistance() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let ids = try await Self.seed(client, token: token)

            let all = try await client.request(.get, "/api/v1/channel/pois", headers: Self.visitor)
            #expect(all.status == .ok)
            #expect(try Self.array(all).map { $0["name"] as? String } == ["Pražský hrad", "Karlův most", "Špilberk", "The Met"])
            #expect(try Self.array(all).allSatisfy { $0["distanceMeters"] is NSNull && $0["directions"] is NSNull })

            // From Brno: Špilberk first, then Prague's two (the bridge is nearer Brno), New York last.
            let near = try await client.request(.get, "/api/v1/channel/pois?near=49.1951,16.6068", headers: Self.visitor)
            let sorted = try Self.array(near)
            #expect(sorted.map { $0["name"] as? String } == ["Špilberk", "Karlův most", "Pražský hrad", "The Met"])
            let distances = sorted.compactMap { $0["distanceMeters"] as? Double }
            #expect(distances.count == 4 && distances == distances.sorted())
            #expect(distances[0] < 1_000 && abs(distances[1] - 184_000) < 3_000)

            let search = try await client.request(.get, "/api/v1/channel/pois?search=PRAZSKY%20hrad", headers: Self.visitor)
            #expect(try Self.array(search).map { $0["id"] as? String } == [ids["Pražský hrad"]])
            // As a page's URLSearchParams writes it: `+` for the space.
            let formSearch = try await client.request(.get, "/api/v1/channel/pois?search=PRAZSKY+hrad", headers: Self.visitor)
            #expect(try Self.array(formSearch).map { $0["id"] as? String } == [ids["Pražský hrad"]])
            let paged = try await client.request(.get, "/api/v1/channel/pois?limit=2&offset=1", headers: Self.visitor)
            #expect(try Self.array(paged).map { $0["name"] as? String } == ["Karlův most", "Špilberk"])

            let categories = try Self.array(
                try await client.request(.get, "/api/v1/channel/pois/categories", headers: Self.visitor))
            #expect(categories.map { $0["name"] as? String } == ["Sights"])
            #expect(categories.first?["placeCount"] as? Int == 4)
            let inCategory = try await client.request(
                .get, "/api/v1/channel/pois/categories/\(ids["Sights"]!)", headers: Self.visitor)
            #expect(try Self.array(inCategory).count == 4)

            let one = try await client.request(.get, "/api/v1/channel/pois/\(ids["Karlův most"]!)", headers: Self.visitor)
            #expect(try one.object()["openingHours"] as? String == "Daily 9–17")
            #expect(try one.object()["latitude"] as? Double == 50.0865)
            // The draft is nobody's business but the admins'.
            #expect(
                try await client.request(.get, "/api/v1/channel/pois/\(ids["Draft"]!)", headers: Self.visitor).status == .notFound
            )
            let drafts = try await client.request(.get, "/api/v1/channel/pois?status=all", token: token)
            #expect(try Self.array(drafts).count == 5)
            #expect(
                try await client.request(.get, "/api/v1/channel/pois?status=all", headers: Self.visitor).status == .unauthorized)
        }
    }

    @Test func directionsAreForMembersOnly() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let ids = try await Self.seed(client, token: token)
            let castle = ids["Pražský hrad"]!

            let asVisitor = try await client.request(.get, "/api/v1/channel/pois/\(castle)", headers: Self.visitor)
            #expect(try asVisitor.object()["directions"] is NSNull)
            let refused = try await client.request(.get, "/api/v1/channel/pois/\(castle)/directions", headers: Self.visitor)
            #expect(refused.status == .forbidden)
            let error = try #require(try refused.object()["error"] as? [String: Any])
            #expect(error["code"] as? String == "membership_required")
            #expect(error["limit"] as? String == "directions")
            #expect((error["join"] as? String)?.isEmpty == false)

            // Admins count as members: the links are in the place itself.
            let asMember = try await client.request(.get, "/api/v1/channel/pois/\(castle)", token: token)
            let directions = try #require(try asMember.object()["directions"] as? [String: Any])
            #expect((directions["geo"] as? String)?.hasPrefix("geo:50.0911,14.4016?q=") == true)
            #expect(
                (directions["osm"] as? String)?.hasPrefix("https://www.openstreetmap.org/directions?route=%3B50.0911%2C14.4016")
                    == true)
            let links = try await client.request(.get, "/api/v1/channel/pois/\(castle)/directions", token: token)
            #expect(links.status == .ok)
            #expect(try links.object()["geo"] as? String == directions["geo"] as? String)

            // A signed-in account is not a member until an admin says so; then it gets the links too.
            let created = try await client.request(
                .post, "/api/v1/users", token: token,
                json: #"{"email":"eva@example.org","name":"Eva","password":"correct horse 42"}"#)
            let userId = try #require(try created.object()["id"] as? String)
            let eva = try await client.login(email: "eva@example.org", password: "correct horse 42")
            let before = try await client.request(.get, "/api/v1/channel/pois/\(castle)/directions", token: eva)
            #expect(before.status == .forbidden)
            #expect(try await client.request(.get, "/api/v1/channel/pois/\(castle)", token: eva).object()["directions"] is NSNull)
            let granted = try await client.request(.patch, "/api/v1/users/\(userId)", token: token, json: #"{"member":true}"#)
            #expect(granted.status == .ok)
            #expect(try await client.request(.get, "/api/v1/channel/pois/\(castle)/directions", token: eva).status == .ok)
            let asEva = try await client.request(.get, "/api/v1/channel/pois/\(castle)", token: eva)
            #expect(try asEva.object()["directions"] is [String: Any])
        }
    }

    @Test func publishedPlacesAndQuizzesAreNewAndShared() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let ids = try await Self.seed(client, token: token)
            let quiz = try await client.request(
                .post, "/api/v1/channel/quizzes", token: token, json: try ChannelQuizzesServerTests.quiz("Prague"))
            let quizId = try #require((try quiz.object()["quiz"] as? [String: Any])?["id"] as? String)

            let feed = try await client.request(.get, "/api/v1/channel/new", headers: Self.visitor)
            let items = try #require(try feed.object()["items"] as? [[String: Any]])
            let kinds = Set(items.compactMap { item in (item["kind"] as? String).map { "\($0):\(item["id"] as? String ?? "")" } })
            #expect(kinds.isSuperset(of: ["place:\(ids["Špilberk"]!)", "quiz:\(quizId)"]))
            #expect(!kinds.contains("place:\(ids["Draft"]!)"))

            let page = try await client.request(.get, "/c/place/\(ids["Špilberk"]!)")
            #expect(page.status == .ok)
            #expect(String(buffer: page.body).contains("Špilberk"))
            #expect(try await client.request(.get, "/c/place/\(ids["Draft"]!)").status == .notFound)
            let quizPage = try await client.request(.get, "/c/quiz/\(quizId)")
            #expect(String(buffer: quizPage.body).contains("Prague"))
        }
    }

    @Test func badInputIsRefusedWithAReason() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            for query in [
                "near=95,10", "near=50", "near=abc,def", "near=50,14,1", "limit=0", "limit=1000", "offset=-1", "status=gone",
            ] {
                let response = try await client.request(.get, "/api/v1/channel/pois?\(query)", headers: Self.visitor)
                #expect(response.status == .badRequest, "\(query)")
                #expect(try response.object()["error"].flatMap { ($0 as? [String: Any])?["code"] as? String } == "bad_request")
            }
            #expect(try await client.request(.get, "/api/v1/channel/pois/pl_nothing", headers: Self.visitor).status == .notFound)
            var future = Self.visitor
            future[.accept] = "application/vnd.podium.v9+json"
            #expect(try await client.request(.get, "/api/v1/channel/pois", headers: future).status == .notAcceptable)
            future[.accept] = "application/vnd.podium.v1+json"
            let v1 = try await client.request(.get, "/api/v1/channel/quizzes", headers: future)
            #expect(v1.headers[.contentType] == "application/vnd.podium.v1+json" && v1.headers[.vary] == "Accept")
            #expect(
                try await client.request(.get, "/api/v1/channel/pois/categories/pc_nothing", headers: Self.visitor).status
                    == .notFound)
            let bodies = [
                #"{"name":"X","latitude":91,"longitude":0}"#, #"{"name":"","latitude":1,"longitude":0}"#,
                #"{"name":"X","latitude":1}"#, #"{"name":"X","latitude":1,"longitude":2,"website":"javascript:alert(1)"}"#,
                #"{"name":"X","latitude":1,"longitude":2,"phone":"call me"}"#,
                #"{"name":"X","latitude":1,"longitude":2,"categoryId":"pc_nothing"}"#,
            ]
            for body in bodies {
                let response = try await client.request(.post, "/api/v1/channel/pois", token: token, json: body)
                #expect(response.status == .badRequest, "\(body)")
            }
            // Writes are for admins.
            let anonymous = try await client.request(
                .post, "/api/v1/channel/pois", headers: Self.visitor, json: #"{"name":"X","latitude":1,"longitude":2}"#)
            #expect(anonymous.status == .unauthorized)
        }
    }

    @Test func deletingArchivesAndRestoresAndMovesLastModified() async throws {
        let clock = SteppedClock()
        let server = TestServer()
        defer { server.removeData() }
        try await server.run(now: { clock.now }) { client in
            let token = try await client.login()
            let ids = try await Self.seed(client, token: token)
            let bridge = ids["Karlův most"]!
            let first = try await client.request(.get, "/api/v1/channel/pois", headers: Self.visitor)
            let lastModified = try #require(first.headers[.lastModified])
            let etag = try #require(first.headers[.eTag])
            var conditional = Self.visitor
            conditional[.ifModifiedSince] = lastModified
            #expect(try await client.request(.get, "/api/v1/channel/pois", headers: conditional).status == .notModified)

            // Only an archived place can be deleted for ever.
            let early = try await client.request(.delete, "/api/v1/channel/pois/\(bridge)?permanent=true", token: token)
            #expect(early.status == .conflict)
            #expect(try early.object()["error"].flatMap { ($0 as? [String: Any])?["code"] as? String } == "not_archived")

            clock.advance(60)
            #expect(try await client.request(.delete, "/api/v1/channel/pois/\(bridge)", token: token).status == .noContent)
            #expect(try await client.request(.get, "/api/v1/channel/pois/\(bridge)", headers: Self.visitor).status == .notFound)
            let after = try await client.request(.get, "/api/v1/channel/pois", headers: conditional)
            #expect(after.status == .ok)
            #expect(after.headers[.eTag] != etag)
            #expect(try Self.array(after).count == 3)
            let archive = try Self.array(try await client.request(.get, "/api/v1/channel/pois?status=archived", token: token))
            #expect(archive.map { $0["id"] as? String } == [bridge])

            let restored = try await client.request(.post, "/api/v1/channel/pois/\(bridge)/restore", token: token)
            #expect(restored.status == .ok)
            #expect(try Self.array(try await client.request(.get, "/api/v1/channel/pois", headers: Self.visitor)).count == 4)

            _ = try await client.request(.delete, "/api/v1/channel/pois/\(bridge)", token: token)
            #expect(
                try await client.request(.delete, "/api/v1/channel/pois/\(bridge)?permanent=true", token: token).status
                    == .noContent)
            #expect(
                try await client.request(.get, "/api/v1/channel/pois/\(bridge)?status=archived", token: token).status == .notFound
            )

            // A new order and a category archived with its places.
            let order = [ids["The Met"]!, ids["Špilberk"]!, ids["Pražský hrad"]!, ids["Draft"]!]
            let reordered = try await client.request(
                .post, "/api/v1/channel/pois/order", token: token, json: try Self.json(["ids": order]))
            #expect(reordered.status == .noContent)
            #expect(
                try Self.array(try await client.request(.get, "/api/v1/channel/pois", headers: Self.visitor))
                    .map { $0["name"] as? String } == ["The Met", "Špilberk", "Pražský hrad"])
            _ = try await client.request(.delete, "/api/v1/channel/pois/categories/\(ids["Sights"]!)", token: token)
            #expect(try Self.array(try await client.request(.get, "/api/v1/channel/pois", headers: Self.visitor)).isEmpty)
        }
    }

    @Test func aPlacePictureIsSniffedAndStored() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let ids = try await Self.seed(client, token: token)
            let path = "/api/v1/channel/pois/\(ids["Špilberk"]!)/image"
            let notImage = try await client.request(
                .put, path, token: token, headers: [.contentType: "image/png"], body: ByteBuffer(string: "<html>hi</html>"))
            #expect(notImage.status == .unsupportedMediaType)
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 32)
            let stored = try await client.request(
                .put, path, token: token, headers: [.contentType: "application/octet-stream"], body: ByteBuffer(bytes: png))
            #expect(stored.status == .ok)
            let url = try #require(try stored.object()["imageUrl"] as? String)
            #expect(url.hasSuffix(".png"))
            #expect(try await client.request(.get, url).status == .ok)

            // The venue's picture, shown above the places; a visitor may not set it.
            let venue = "/api/v1/channel/map/venue-image"
            #expect(
                try await client.request(.put, venue, headers: Self.visitor, body: ByteBuffer(bytes: png)).status == .unauthorized
            )
            #expect(try await client.request(.put, venue, token: token, body: ByteBuffer(bytes: png)).status == .noContent)
            let map = try await client.request(.get, "/api/v1/channel/map", headers: Self.visitor)
            #expect(try map.object()["venueImageUrl"] as? String == url)
            #expect(try await client.request(.delete, venue, token: token).status == .noContent)
            let cleared = try await client.request(.get, "/api/v1/channel/map", headers: Self.visitor)
            #expect(try cleared.object()["venueImageUrl"] is NSNull)
            // The place still shows the same bytes: its file stays.
            #expect(try await client.request(.get, url).status == .ok)
        }
    }
}

/// The offline basemap: tiles by XYZ address from an MBTiles file (rows flipped), cached for
/// ever, 404 outside; without a file the map says there is none.
@Suite("Channel basemap tiles", .timeLimit(.minutes(1)))
struct ChannelTileTests {
    /// A two-zoom MBTiles file whose tiles hold their own TMS address as text.
    static func makeTileSet(in directory: URL) async throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("tiles.mbtiles")
        try await MBTilesFixture.write(to: file.path)
        return file
    }

    @Test func tilesAreServedFlippedCachedAndBoundedAndAMissingBasemapIsSaid() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-tiles-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try await Self.makeTileSet(in: directory)
        let server = TestServer { $0.basemapFile = file }
        defer { server.removeData() }
        try await server.run { client in
            let map = try await client.request(.get, "/api/v1/channel/map")
            let basemap = try #require(try map.object()["basemap"] as? [String: Any])
            #expect(basemap["tileUrl"] as? String == "/tiles/{z}/{x}/{y}.png")
            #expect(basemap["maxZoom"] as? Int == 1)
            #expect(basemap["attribution"] as? String == "© OpenStreetMap contributors")

            // XYZ row 0 is the top: TMS row 1 at zoom 1.
            let tile = try await client.request(.get, "/tiles/1/1/0.png")
            #expect(tile.status == .ok)
            #expect(String(buffer: tile.body) == "1/1/1")
            #expect(tile.headers[.contentType] == "image/png")
            #expect(tile.headers[.cacheControl] == "public, max-age=31536000, immutable")
            let etag = try #require(tile.headers[.eTag])
            let again = try await client.request(.get, "/tiles/1/1/0.png", headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            #expect(String(buffer: try await client.request(.get, "/tiles/0/0/0.png").body) == "0/0/0")

            for outside in [
                "/tiles/2/0/0.png", "/tiles/1/2/0.png", "/tiles/1/0/2.png", "/tiles/-1/0/0.png", "/tiles/a/0/0.png",
                "/tiles/1/0/0x.png", "/tiles/99999999999/0/0.png",
            ] {
                #expect(try await client.request(.get, outside).status == .notFound, "\(outside)")
            }
        }

        let bare = TestServer { $0.basemapFile = nil }
        defer { bare.removeData() }
        try await bare.run { client in
            let map = try await client.request(.get, "/api/v1/channel/map")
            #expect(try map.object()["basemap"] is NSNull)
            #expect(try await client.request(.get, "/tiles/0/0/0.png").status == .notFound)
        }
    }
}
