import Foundation
import Testing

@testable import PodiumStore

/// `/readyz` says whether this node's database answers; `/healthz` only that the process does.
@Suite("Readiness", .timeLimit(.minutes(2)))
struct ReadinessTests {
    @Test(arguments: TestStores.kinds) func readyWhileTheStoreAnswersAndUnavailableWhenItDoesNot(_ kind: StoreKind)
        async throws
    {
        let server = TestServer()
        defer { server.removeData() }
        let (base, cleanUp) = try await TestStores.open(kind)
        let health = FailingPings(base)
        var stores = Stores(base)
        stores.health = health
        try await server.run(stores: stores) { client in
            let ready = try await client.request(.get, "/readyz")
            #expect(ready.status == .ok)
            #expect(try ready.object()["status"] as? String == "ready")

            health.failing.store(true, ordering: .relaxed)
            let unavailable = try await client.request(.get, "/readyz")
            #expect(unavailable.status == .serviceUnavailable)
            #expect(unavailable.errorCode == "store_unavailable")
            #expect(try await client.request(.get, "/healthz").status == .ok)

            health.failing.store(false, ordering: .relaxed)
            #expect(try await client.request(.get, "/readyz").status == .ok)
        }
        try await base.close()
        await cleanUp()
    }

    /// The real failure: the node's PostgreSQL database goes away under it (dropped, its
    /// connections closed by the server), opened by `buildApplication` from the configuration.
    @Test(.enabled(if: TestStores.databaseURL != nil))
    func aNodeWhoseDatabaseIsGoneIsNotReady() async throws {
        let server = TestServer(store: .postgres) { $0.readinessTimeout = .seconds(1) }
        defer { server.removeData() }
        let url = try #require(server.configuration.databaseURL)
        try await server.run { client in
            #expect(try await client.request(.get, "/readyz").status == .ok)
            try await blocking { TestStores.dropDatabaseNow(url) }
            let unavailable = try await client.request(.get, "/readyz")
            #expect(unavailable.status == .serviceUnavailable)
            #expect(unavailable.errorCode == "store_unavailable")
            #expect(try await client.request(.get, "/healthz").status == .ok)
        }
    }
}
