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
