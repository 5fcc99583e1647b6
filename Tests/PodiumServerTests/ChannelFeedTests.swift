import Foundation
import HTTPTypes
import PodiumStore
import Testing

@testable import PodiumServer

/// What is new since a person's last visit, and the share links' previews.
@Suite struct ChannelFeedTests {
    @Test func aPersonsLastVisitIsKeptAndTheFeedStartsAfterIt() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let first = try await client.request(.get, "/api/v1/channel/new")
            let cookie = String(try #require(first.headers[.setCookie]).split(separator: ";")[0])
            let never = try first.object()
            #expect(never["lastSeenAt"] is NSNull && (never["items"] as? [Any])?.isEmpty == true)
            let seen = try await client.request(.post, "/api/v1/channel/new/seen", headers: [.cookie: cookie])
            #expect(seen.status == .noContent)
            let after = try await client.request(.get, "/api/v1/channel/new", headers: [.cookie: cookie]).object()
            #expect(after["lastSeenAt"] is String)
            #expect(try await client.request(.get, "/c/video/v_nothing").status == .notFound)
            #expect(try await client.request(.get, "/c/unknown/x").status == .notFound)
        }
    }

    @Test func whatIsPublishedIsNewUntilSeenAndEachHasASharePage() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let visitor: HTTPFields = [.cookie: "podium_viewer=v_" + String(repeating: "f", count: 24)]
            let place = try await client.request(
                .post, "/api/v1/channel/pois", token: token,
                json:
                    #"{"name":"Pražský hrad","description":"The castle <of> Prague.","latitude":50.09,"longitude":14.40,"published":true}"#
            )
            let placeId = try #require(try place.object()["id"] as? String)
            let draft = try await client.request(
                .post, "/api/v1/channel/pois", token: token,
                json: #"{"name":"Draft","latitude":1,"longitude":2,"published":false}"#)
            let draftId = try #require(try draft.object()["id"] as? String)
            let quiz = try await client.request(
                .post, "/api/v1/channel/quizzes", token: token,
                json:
                    #"{"name":"Prague","published":true,"questions":[{"text":"Capital?","answers":[{"text":"Praha","correct":true},{"text":"Brno","correct":false}]}]}"#
            )
            let quizId = try #require((try quiz.object()["quiz"] as? [String: Any])?["id"] as? String)

            let feed = try await client.request(.get, "/api/v1/channel/new", headers: visitor).object()
            let items = try #require(feed["items"] as? [[String: Any]])
            #expect(items.map { $0["id"] as? String } == [quizId, placeId], "newest first, drafts left out")
            #expect(items[1]["url"] as? String == "/channel#places/\(placeId)")
            #expect(items[1]["shareUrl"] as? String == "/c/place/\(placeId)")
            #expect(items[1]["imageUrl"] is NSNull)

            _ = try await client.request(.post, "/api/v1/channel/new/seen", headers: visitor)
            let seen = try await client.request(.get, "/api/v1/channel/new", headers: visitor).object()
            #expect((seen["items"] as? [Any])?.isEmpty == true)

            let share = try await client.request(.get, "/c/place/\(placeId)")
            #expect(share.status == .ok && share.headers[.contentType] == "text/html; charset=utf-8")
            let html = String(buffer: share.body)
            #expect(html.contains(#"<meta property="og:title" content="Pražský hrad">"#))
            #expect(html.contains(#"<meta property="og:description" content="The castle &lt;of&gt; Prague.">"#))
            #expect(html.contains(#"/c/place/\#(placeId)">"#) && html.contains(#"<meta property="og:url" content="http://"#))
            #expect(try await client.request(.get, "/c/quiz/\(quizId)").status == .ok)
            // HEAD, as link-preview fetchers ask first: the GET's status and headers, no body.
            let head = try await client.request(.head, "/c/place/\(placeId)")
            #expect(head.status == .ok && head.headers[.contentType] == "text/html; charset=utf-8")
            #expect(head.headers[.contentLength] == String(share.body.readableBytes) && head.body.readableBytes == 0)
            #expect(try await client.request(.head, "/c/place/\(draftId)").status == .notFound)
            #expect(try await client.request(.get, "/c/place/\(draftId)").status == .notFound)
            _ = try await client.request(.delete, "/api/v1/channel/pois/\(placeId)", token: token)
            #expect(try await client.request(.get, "/c/place/\(placeId)").status == .notFound, "archived")
        }
    }

    @Test func theLastVisitIsStoredPerPersonAndALaterOneReplacesIt() async throws {
        for kind in TestStores.kinds {
            try await TestStores.with(kind) { store in
                #expect(try await store.channelLastSeen(viewerKey: "v_a") == nil)
                let first = Date(timeIntervalSince1970: 1_800_000_000)
                try await store.markChannelSeen(viewerKey: "v_a", at: first)
                try await store.markChannelSeen(viewerKey: "u_b", at: first + 5)
                try await store.markChannelSeen(viewerKey: "v_a", at: first + 60)
                #expect(try await store.channelLastSeen(viewerKey: "v_a") == first + 60)
                #expect(try await store.channelLastSeen(viewerKey: "u_b") == first + 5)
            }
        }
    }

    @Test func aSharePageCarriesThePreviewAndLeadsToTheItem() {
        let item = ChannelPublication(
            kind: "video", id: "cv_1", title: "Svíčková <with> \"cream\"", description: "A Czech dish & more.",
            imagePath: "/blobs/abc.jpg", publishedAt: Date())
        let html = SharePageController.html(item, channelName: "CATV", base: "https://tv.example.org")
        #expect(html.contains(#"<meta property="og:title" content="Svíčková &lt;with&gt; &quot;cream&quot;">"#))
        #expect(html.contains(#"<meta property="og:image" content="https://tv.example.org/blobs/abc.jpg">"#))
        #expect(html.contains(#"<meta property="og:url" content="https://tv.example.org/c/video/cv_1">"#))
        #expect(html.contains(#"<meta property="og:type" content="video.other">"#))
        #expect(html.contains(#"content="0; url=/channel#videos/cv_1""#))
        #expect(!html.contains("<with>") && !html.contains("<script"))
    }
}
