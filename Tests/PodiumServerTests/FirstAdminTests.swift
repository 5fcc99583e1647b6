import Foundation
import Testing

@testable import PodiumServer
@testable import PodiumStore

/// Several nodes starting together on one empty database each find no account and try to create
/// the first admin: one does, the others start with its account instead of failing.
@Suite("The first admin, with nodes starting together")
struct FirstAdminTests {
    @Test(arguments: TestStores.kinds) func nodesStartingTogetherCreateOneAdmin(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let accounts = Accounts(store: store, cost: 4, tokenLifetime: 3600, now: { Date() })
                        return try await accounts.ensureAdmin(password: "pw", logger: TestServer.logger()).created
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 1)
            #expect(try await store.userCount() == 1)
        }
    }
}
