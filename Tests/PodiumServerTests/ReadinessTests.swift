import Foundation
import Synchronization
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

    /// A node whose store does not answer its job queue's first read (the database went away as it
    /// started) keeps serving and reads again, instead of its job queue's error ending the whole
    /// server: a node that had answered `/readyz` once stopped listening that way.
    @Test func aStartUpReadThatFailsIsTriedAgainAndTheNodeKeepsServing() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let (base, cleanUp) = try await TestStores.open(.sqlite)
        let jobs = FailingFirstReads(base, failures: 2)
        var stores = Stores(base)
        stores.jobs = jobs
        try await server.run(stores: stores) { client in
            try await waitUntil("the unfinished jobs are read after two failures") {
                jobs.reads.load(ordering: .relaxed) >= 3
            }
            #expect(try await client.request(.get, "/healthz").status == .ok)
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

/// Jobs whose first `failures` reads of the unfinished jobs fail; everything else is the store's.
final class FailingFirstReads: JobStore {
    let base: any JobStore
    let failures: Int
    let reads = Atomic<Int>(0)

    init(_ base: any JobStore, failures: Int) {
        self.base = base
        self.failures = failures
    }

    func unfinishedJobs() async throws -> [JobRecord] {
        let read = reads.add(1, ordering: .relaxed).newValue
        if read <= failures { throw StoreDoubleFailure() }
        return try await base.unfinishedJobs()
    }

    func insertJob(_ job: JobRecord) async throws { try await base.insertJob(job) }
    func job(id: String) async throws -> JobRecord? { try await base.job(id: id) }
    func claimJob(kind: String, at: Date, leaseUntil: Date) async throws -> JobRecord? {
        try await base.claimJob(kind: kind, at: at, leaseUntil: leaseUntil)
    }
    func renewJobLease(id: String, attempt: Int, until: Date) async throws -> Bool {
        try await base.renewJobLease(id: id, attempt: attempt, until: until)
    }
    func saveJobProgress(id: String, attempt: Int, _ progress: JobProgress, at: Date) async throws {
        try await base.saveJobProgress(id: id, attempt: attempt, progress, at: at)
    }
    func finishJob(id: String, attempt: Int, failure: JobFailure?, at: Date) async throws -> Bool {
        try await base.finishJob(id: id, attempt: attempt, failure: failure, at: at)
    }
    func releaseJob(id: String, attempt: Int, progress: JobProgress, at: Date) async throws -> Bool {
        try await base.releaseJob(id: id, attempt: attempt, progress: progress, at: at)
    }
    func requeueExpiredJobs(at: Date) async throws -> Int { try await base.requeueExpiredJobs(at: at) }
}
