import Foundation
import HTTPTypes
import Synchronization
import Testing

@testable import PodiumServer

/// The archive of every part of the channel (``ArchivableRoutes``), one contract for all: DELETE
/// archives (again: nothing changes), restore brings back (a current item: nothing changes), delete
/// for ever only from the archive (409 `not_archived`), `permanent` true or false (400 otherwise),
/// 404 for an unknown id, admins only. Videos, which need a packaged library video, are in
/// ChannelVideoAPITests.
@Suite("Channel archive", .timeLimit(.minutes(2)))
struct ChannelArchiveTests {
    /// A clock the test moves, so that a change shows in `updatedAt` (ISO 8601, whole seconds).
    final class Clock: Sendable {
        private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { current.withLock { $0 } }
        func advance() { current.withLock { $0 += 60 } }
    }

    /// One part of the channel: where its items live (and its lists, `?status=all|archived`), how
    /// one is made, and what archiving answers.
    struct Part: Sendable {
        let path: String
        let create: String
        var archiveAnswers: HTTPResponse.Status = .noContent
    }

    static let parts: [Part] = [
        Part(path: "/api/v1/channel/pois", create: #"{"name":"Bridge","latitude":50.08,"longitude":14.41,"published":true}"#),
        Part(path: "/api/v1/channel/pois/categories", create: #"{"name":"Sights"}"#),
        Part(path: "/api/v1/channel/quizzes", create: #"{"name":"Rivers","published":true}"#),
        Part(path: "/api/v1/channel/videos/categories", create: #"{"name":"Kitchen"}"#),
        // Archiving a station answers the station.
        Part(path: "/api/v1/channel/radios", create: #"{"name":"Folk","published":true}"#, archiveAnswers: .ok),
    ]

    @Test(arguments: TestStores.kinds)
    func everyPartArchivesRestoresAndDeletesForEverAlike(_ kind: StoreKind) async throws {
        let server = TestServer(store: kind)
        defer { server.removeData() }
        let clock = Clock()
        try await server.run(now: { clock.now }) { client in
            let token = try await client.login()
            for part in Self.parts {
                try await Self.check(part, client: client, token: token, clock: clock)
            }
        }
    }

    static func check(_ part: Part, client: Client, token: String, clock: Clock) async throws {
        let created = try await client.request(.post, part.path, token: token, json: part.create)
        #expect(created.status == .created, "\(part.path): \(String(buffer: created.body))")
        // A quiz comes with its questions: `{quiz, questions}`.
        let object = try created.object()
        let id = try #require(object["id"] as? String ?? (object["quiz"] as? [String: Any])?["id"] as? String)
        let item = "\(part.path)/\(id)"
        /// The item as a list of the admin's shows it, nil while it is not there.
        func listed(_ status: String) async throws -> [String: Any]? {
            let list = try await client.request(.get, "\(part.path)?status=\(status)", token: token)
            #expect(list.status == .ok, "\(part.path)?status=\(status)")
            return try list.array().first { $0["id"] as? String == id }
        }
        func archived() async throws -> [String: Any]? { try await listed("archived") }

        // Signed out: 401; an unknown id: 404; `permanent` neither true nor false: 400.
        #expect(try await client.request(.delete, item).status == .unauthorized, "\(part.path)")
        #expect(try await client.request(.post, item + "/restore").status == .unauthorized, "\(part.path)")
        let unknown = try await client.request(.delete, "\(part.path)/x_nope", token: token)
        #expect(unknown.status == .notFound && unknown.errorCode == "not_found", "\(part.path)")
        #expect(try await client.request(.post, "\(part.path)/x_nope/restore", token: token).status == .notFound)
        #expect(try await client.request(.delete, item + "?permanent=yes", token: token).status == .badRequest, "\(part.path)")
        #expect(try await archived() == nil, "\(part.path): a refused request archives nothing")

        // Not archived: not deleted for ever.
        let early = try await client.request(.delete, item + "?permanent=true", token: token)
        #expect(early.status == .conflict && early.errorCode == "not_archived", "\(part.path)")

        // Restoring a current item changes nothing.
        let current = try #require(try await listed("all"), "\(part.path): listed")
        clock.advance()
        #expect(try await client.request(.post, item + "/restore", token: token).status == .ok, "\(part.path)")
        #expect(try await archived() == nil)
        #expect(try await listed("all")?["updatedAt"] as? String == current["updatedAt"] as? String, "\(part.path)")

        // Archived once: a second DELETE changes nothing.
        clock.advance()
        #expect(try await client.request(.delete, item, token: token).status == part.archiveAnswers, "\(part.path)")
        let first = try #require(try await archived(), "\(part.path): in the archive")
        #expect(first["archivedAt"] as? String != nil && first["updatedAt"] as? String == first["archivedAt"] as? String)
        clock.advance()
        #expect(try await client.request(.delete, item, token: token).status == part.archiveAnswers, "\(part.path)")
        let again = try #require(try await archived())
        #expect(again["archivedAt"] as? String == first["archivedAt"] as? String, "\(part.path)")
        #expect(again["updatedAt"] as? String == first["updatedAt"] as? String, "\(part.path): archived again, unchanged")

        // Restored: out of the archive, changed now.
        clock.advance()
        #expect(try await client.request(.post, item + "/restore", token: token).status == .ok, "\(part.path)")
        #expect(try await archived() == nil, "\(part.path): out of the archive")
        let back = try #require(try await listed("all"), "\(part.path): current again")
        #expect(back["archivedAt"] is NSNull && back["updatedAt"] as? String != first["updatedAt"] as? String)

        // Archived, then deleted for ever: gone.
        #expect(try await client.request(.delete, item, token: token).status == part.archiveAnswers)
        #expect(try await client.request(.delete, item + "?permanent=true", token: token).status == .noContent, "\(part.path)")
        #expect(try await archived() == nil)
        #expect(try await client.request(.post, item + "/restore", token: token).status == .notFound, "\(part.path)")
    }
}
