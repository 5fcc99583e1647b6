import Foundation
import NIOCore
import Testing

@testable import PodiumServer

/// A `+` in a query string is a space, as HTML forms and `URLSearchParams` write it, for every
/// route at once (`FormQueryMiddleware`); `%2B` stays a plus, and a path keeps its `+`.
@Suite("Query strings as forms write them", .timeLimit(.minutes(3)))
struct FormQueryTests {
    @Test func onlyTheQuerysPlusSignsBecomeSpaces() {
        typealias Rewrite = FormQueryMiddleware<AppRequestContext>
        #expect(Rewrite.rewrite("/api/v1/channel/videos?search=sirloin+cream") == "/api/v1/channel/videos?search=sirloin%20cream")
        #expect(Rewrite.rewrite("/a+b/c?title=C%2B%2B+basics&x=1") == "/a+b/c?title=C%2B%2B%20basics&x=1")
        #expect(Rewrite.rewrite("/a+b/c?title=plain") == nil)
        #expect(Rewrite.rewrite("/a+b/c") == nil)
        #expect(Rewrite.rewrite(nil) == nil)
    }

    @Test func anUploadsTitleReadsPlusAsASpaceAndKeepsAnEncodedPlus() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let pdf = ByteBuffer(bytes: try Data(contentsOf: TestServer.demoDeck))
            for (query, title) in [("My+first+talk", "My first talk"), ("C%2B%2B+basics", "C++ basics")] {
                let uploaded = try await client.request(
                    .post, "/api/v1/decks?title=\(query)", token: token, headers: [.contentType: "application/pdf"], body: pdf)
                #expect(uploaded.status == .created, "\(String(buffer: uploaded.body))")
                #expect(try uploaded.object()["title"] as? String == title)
            }
        }
    }
}
