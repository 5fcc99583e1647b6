import Foundation
import PodiumServer
import Testing

/// Two nodes as `podium serve --database … --blob-dir …` runs them: each opens the one PostgreSQL
/// database itself (`buildApplication` from the configuration) and keeps blobs in one shared
/// directory. What one node takes in, the other serves.
@Suite("Nodes sharing a database and a blob directory", .timeLimit(.minutes(2)))
struct SharedStorageTests {
    @Test(.enabled(if: TestStores.databaseURL != nil))
    func aDeckUploadedToOneNodeIsServedByTheOther() async throws {
        let url = try await TestStores.createDatabase()
        let blobs = FileManager.default.temporaryDirectory.appendingPathComponent("podium-shared-blobs-\(UUID().uuidString)")
        let shared: (inout ServerConfiguration) -> Void = {
            $0.databaseURL = url
            $0.blobDirectory = blobs
        }
        let nodeA = TestServer(configure: shared)
        let nodeB = TestServer(configure: shared)
        defer {
            nodeA.removeData()
            nodeB.removeData()
            try? FileManager.default.removeItem(at: blobs)
        }
        try await nodeA.run { a in
            try await nodeB.run { b in
                // Signed in on A, the token works on B: tokens are rows of the one database.
                let token = try await a.login()
                let deckId = try await a.readyDeck(token: token)
                let deck = try await b.request(.get, "/api/v1/decks/\(deckId)", token: token).object()
                #expect(deck["status"] as? String == "ready")
                let pages = try #require(deck["pages"] as? [[String: Any]])
                let image = try await b.request(.get, try #require(pages.first?["imageUrl"] as? String))
                #expect(image.status == .ok)
                #expect(image.body.readableBytesView.starts(with: [0xFF, 0xD8]))
                // The blobs are in the shared directory, not in either node's data directory.
                let name = try #require((pages.first?["imageUrl"] as? String)?.split(separator: "/").last)
                #expect(
                    FileManager.default.fileExists(
                        atPath: blobs.appendingPathComponent(String(name.prefix(2))).appendingPathComponent(String(name)).path))
                for node in [nodeA, nodeB] {
                    #expect(
                        !FileManager.default.fileExists(
                            atPath: node.configuration.dataDirectory.appendingPathComponent("blobs").path))
                }
                #expect(try await b.request(.get, "/readyz").status == .ok)
            }
        }
    }
}
