import Foundation
import Testing

/// A test that fails half-way stops its server by cancellation, not by a graceful shutdown. The
/// server must still close its database then: an open SQLite connection dropped at deinit is an
/// assertion failure in debug builds, which would take every other test in the process with it.
@Suite struct TeardownTests {
    struct Interrupted: Error {}

    @Test func aServerStoppedByAFailingTestClosesItsDatabase() async throws {
        let server = TestServer()
        defer { server.removeData() }
        for _ in 0..<3 {
            await #expect(throws: Interrupted.self) {
                try await server.run { client in
                    // The store is busy when the failure comes: a live session has written to it.
                    _ = try await client.presentSession()
                    throw Interrupted()
                }
            }
        }
        // Still here, and the data the failed runs wrote is intact for the next server.
        try await server.run { client in
            let token = try await client.login()
            let sessions = try await client.request(.get, "/api/v1/sessions", token: token).array()
            #expect(sessions.count == 3)
        }
    }
}
