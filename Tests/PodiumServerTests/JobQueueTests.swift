import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import Testing

@testable import PodiumServer
@testable import PodiumStore

/// Ingest as a job queue kept in the store: progress while a job runs, a job cut short by a
/// restart finished after it, a job the server keeps dying on given up, unknown kinds and store
/// failures ending in a clear error, a room upload that joins its room across a restart, and two
/// nodes: a live node's job left alone, a dead node's taken over once its lease expired. Real
/// SQLite, real Poppler; a `ToolGate` holds `pdftoppm` where a job must be caught mid-way.
@Suite("Job queue", .timeLimit(.minutes(3)))
struct JobQueueTests {
    static let slides = TestServer.fixtures.appendingPathComponent("cairo-slides.pdf")

    /// A data directory with its database open beside the server, as tests that restart need:
    /// SQLite in the directory, or a PostgreSQL database of its own (dropped with `cleanUp`).
    static func storeInNewDirectory() async throws -> (URL, SQLStore) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-jobs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try await SQLStore.openSQLite(
            path: directory.appendingPathComponent("podium.sqlite").path, logger: TestServer.logger())
        return (directory, store)
    }

    static func storeInNewDirectory(_ kind: StoreKind) async throws -> (URL, SQLStore, @Sendable () async -> Void) {
        guard kind == .postgres else {
            let (directory, store) = try await storeInNewDirectory()
            return (directory, store, {})
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-jobs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (store, cleanUp) = try await TestStores.open(.postgres)
        return (directory, store, cleanUp)
    }

    @Test func progressIsVisibleWhileTheJobRunsAndOnlyToItsOwner() async throws {
        let gate = ToolGate(holding: "pdftoppm")
        let server = TestServer {
            $0.toolRunner = gate
            $0.jobProgressSaveInterval = .milliseconds(20)
        }
        defer { server.removeData() }
        let store = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
        try await closing(store) {
            try await server.run(store: store) { client in
                let token = try await client.login()
                let uploaded = try await client.upload(Self.slides, token: token).object()
                let deckId = try #require(uploaded["id"] as? String)
                let jobId = try #require(uploaded["jobId"] as? String)
                #expect(uploaded["status"] as? String == "processing")
                await gate.arrival()

                // Rendering is held: the deck and its job both say so, from memory.
                let deck = try await client.request(.get, "/api/v1/decks/\(deckId)", token: token).object()
                let deckProgress = try #require(deck["progress"] as? [String: Any])
                #expect(deckProgress["stage"] as? String == "rendering")
                #expect((deckProgress["total"] as? Int ?? 0) > 0)
                let job = try await client.request(.get, "/api/v1/jobs/\(jobId)", token: token).object()
                #expect(job["kind"] as? String == "pdf")
                #expect(job["subjectId"] as? String == deckId)
                #expect(job["state"] as? String == "running")
                #expect(job["attempts"] as? Int == 1)
                #expect((job["progress"] as? [String: Any])?["stage"] as? String == "rendering")
                #expect((job["progress"] as? [String: Any])?["total"] as? Int == deckProgress["total"] as? Int)
                #expect(job["error"] == nil)
                // And the store hears of it soon, for a restart to show.
                while try await store.job(id: jobId)?.progress.stage != "rendering" {
                    try await ContinuousClock().sleep(for: .milliseconds(10))
                }

                // Nobody else sees it: not signed in, another user, no such job.
                try await Self.addUser(to: store)
                let other = try await client.login(email: "other@example.org", password: "other-password")
                #expect(try await client.request(.get, "/api/v1/jobs/\(jobId)").status == .unauthorized)
                let hidden = try await client.request(.get, "/api/v1/jobs/\(jobId)", token: other)
                #expect(hidden.status == .notFound && hidden.errorCode == "not_found")
                #expect(try await client.request(.get, "/api/v1/jobs/j_nosuchjob", token: token).status == .notFound)

                gate.open()
                let done = try await Self.waitForJob(jobId, client: client, token: token)
                #expect(done["state"] as? String == "done")
                #expect(done["progress"] == nil && done["error"] == nil)
                let ready = try await client.request(.get, "/api/v1/decks/\(deckId)", token: token).object()
                #expect(ready["status"] as? String == "ready")
                #expect((ready["pageCount"] as? Int ?? 0) > 0)
                #expect(ready["progress"] == nil)
            }
        }
    }

    @Test(arguments: TestStores.kinds) func aJobCutShortByARestartIsDoneAfterIt(_ kind: StoreKind) async throws {
        let (directory, store, cleanUp) = try await Self.storeInNewDirectory(kind)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await closing(store, then: cleanUp) {
            let gate = ToolGate(holding: "pdftoppm")
            let ids = Mutex<(deck: String, job: String)?>(nil)
            try await TestServer(dataDirectory: directory) { $0.toolRunner = gate }.run(store: store) { client in
                let token = try await client.login()
                let uploaded = try await client.upload(Self.slides, token: token).object()
                let deckId = try #require(uploaded["id"] as? String)
                let jobId = try #require(uploaded["jobId"] as? String)
                ids.withLock { $0 = (deckId, jobId) }
                await gate.arrival()
                // Renamed while it is processing: the rename is kept whatever happens next.
                let renamed = try await client.request(
                    .patch, "/api/v1/decks/\(deckId)", token: token, json: #"{"title":"Renamed meanwhile"}"#)
                #expect(renamed.status == .ok)
            }
            let (deckId, jobId) = try #require(ids.withLock { $0 })

            // The server stopped mid-way: the job waits in the queue with its last progress, and
            // the run it lost is not counted against it.
            let left = try #require(try await store.job(id: jobId))
            #expect(left.state == .queued)
            #expect(left.attempts == 0)
            #expect(left.progress.stage == "rendering")

            try await TestServer(dataDirectory: directory).run(store: store) { client in
                let token = try await client.login()
                let job = try await Self.waitForJob(jobId, client: client, token: token)
                #expect(job["state"] as? String == "done")
                #expect(job["attempts"] as? Int == 1)
                let deck = try await client.request(.get, "/api/v1/decks/\(deckId)", token: token).object()
                #expect(deck["status"] as? String == "ready")
                #expect(deck["title"] as? String == "Renamed meanwhile")
                #expect((deck["pageCount"] as? Int ?? 0) > 0)
            }
        }
    }

    @Test func aJobTheServerKeepsDyingOnIsRetriedThenGivenUp() async throws {
        let (directory, store) = try await Self.storeInNewDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await closing(store) {
            let ids = Mutex<(deck: String, job: String)?>(nil)
            let firstGate = ToolGate(holding: "pdftoppm")
            try await TestServer(dataDirectory: directory) { $0.toolRunner = firstGate }.run(store: store) { client in
                let token = try await client.login()
                let uploaded = try await client.upload(Self.slides, token: token).object()
                let uploadedIds = (try #require(uploaded["id"] as? String), try #require(uploaded["jobId"] as? String))
                ids.withLock { $0 = uploadedIds }
                await firstGate.arrival()
            }
            let (deckId, jobId) = try #require(ids.withLock { $0 })
            // A killed server leaves its job running, that run counted, and its lease runs out:
            // what a claim whose lease ended leaves.
            #expect(try await store.claimJob(kind: "pdf", at: Date(), leaseUntil: Date())?.attempts == 1)

            // The next start takes it up again (its second run) and is killed in turn.
            let secondGate = ToolGate(holding: "pdftoppm")
            let limited: (inout ServerConfiguration) -> Void = { $0.jobAttempts = 2 }
            try await TestServer(dataDirectory: directory) {
                limited(&$0)
                $0.toolRunner = secondGate
            }.run(store: store) { client in
                let token = try await client.login()
                await secondGate.arrival()
                let job = try await client.request(.get, "/api/v1/jobs/\(jobId)", token: token).object()
                #expect(job["state"] as? String == "running")
                #expect(job["attempts"] as? Int == 2)
            }
            #expect(try await store.claimJob(kind: "pdf", at: Date(), leaseUntil: Date())?.attempts == 2)

            // Two runs cut short: the third start gives up with a clear reason, on the job and the deck.
            try await TestServer(dataDirectory: directory, configure: limited).run(store: store) { client in
                let token = try await client.login()
                let job = try await Self.waitForJob(jobId, client: client, token: token)
                #expect(job["state"] as? String == "failed")
                let error = try #require(job["error"] as? [String: Any])
                #expect(error["code"] as? String == "interrupted")
                #expect((error["message"] as? String)?.contains("stopped 2 times") == true)
                let deck = try await client.request(.get, "/api/v1/decks/\(deckId)", token: token).object()
                #expect(deck["status"] as? String == "failed")
                #expect((deck["error"] as? [String: Any])?["code"] as? String == "interrupted")
            }
        }
    }

    @Test func aJobOfAKindNoWorkerTakesFails() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let store = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
        try await closing(store) {
            try await server.run(store: store) { client in _ = try await client.login() }
            let admin = try #require(try await store.user(email: "admin"))
            try await store.insertJob(
                JobRecord(
                    id: "j_fromthefuture", kind: "hologram", subjectId: "x_1", ownerId: admin.id, payload: "{}",
                    createdAt: Date(), updatedAt: Date()))

            try await server.run(store: store) { client in
                let token = try await client.login()
                let job = try await Self.waitForJob("j_fromthefuture", client: client, token: token)
                #expect(job["state"] as? String == "failed")
                #expect((job["error"] as? [String: Any])?["code"] as? String == "unknown_kind")
                #expect(((job["error"] as? [String: Any])?["message"] as? String)?.contains("hologram") == true)
            }
        }
    }

    @Test func aStoreFailureDuringIngestFailsTheDeckWithAReason() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let base = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
        try await closing(base) {
            let decks = FailingDeckReads(base)
            var stores = Stores(base)
            stores.decks = decks
            try await server.run(stores: stores) { client in
                let token = try await client.login()
                // The first read of the deck is the ingest's: the database fails it.
                decks.failures.store(1, ordering: .relaxed)
                let uploaded = try await client.upload(TestServer.demoDeck, token: token).object()
                let deckId = try #require(uploaded["id"] as? String)
                let job = try await Self.waitForJob(try #require(uploaded["jobId"] as? String), client: client, token: token)
                #expect(job["state"] as? String == "failed")
                #expect((job["error"] as? [String: Any])?["code"] as? String == "unavailable")
                let deck = try await client.request(.get, "/api/v1/decks/\(deckId)", token: token).object()
                #expect(deck["status"] as? String == "failed")
                let error = try #require(deck["error"] as? [String: Any])
                #expect(error["code"] as? String == "unavailable")
                #expect((error["message"] as? String)?.contains("database") == true)
            }
        }
    }

    @Test func aDeckUploadedIntoARoomJoinsItAfterARestart() async throws {
        let (directory, store) = try await Self.storeInNewDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await closing(store) {
            let gate = ToolGate(holding: "pdftoppm")
            let left = Mutex<(code: String, deck: String, job: String, presenter: String)?>(nil)
            try await TestServer(dataDirectory: directory) { $0.toolRunner = gate }.run(store: store) { client in
                let token = try await client.login()
                let code = try await RoomTests.openRoom(client, token: token)
                let ann = try await client.socket(code: code, headers: [.cookie: RoomTests.identity("ann")])
                let joined = try await ann.hello(["role": "presenter", "name": "Ann"])
                let presenterId = try #require(joined["presenterId"] as? String)
                let response = try await client.request(
                    .post, "/api/v1/sessions/\(code)/decks",
                    headers: [
                        .contentType: "application/pdf", .cookie: RoomTests.identity("ann"),
                        HTTPField.Name("X-Podium-Request")!: "1",
                    ],
                    body: ByteBuffer(bytes: try Data(contentsOf: Self.slides)))
                #expect(response.status == .created)
                let body = try response.object()
                #expect(body["status"] as? String == "processing")
                let deckId = try #require(body["deckId"] as? String)
                let jobId = try #require(body["jobId"] as? String)
                left.withLock { $0 = (code, deckId, jobId, presenterId) }
                await gate.arrival()
            }
            let (code, deckId, jobId, presenterId) = try #require(left.withLock { $0 })

            try await TestServer(dataDirectory: directory).run(store: store) { client in
                let token = try await client.login()
                // The room is remembered by the job: the deck joins it when ready, as Ann's.
                #expect(try await Self.waitForJob(jobId, client: client, token: token)["state"] as? String == "done")
                let moderator = try await client.socket(code: code)
                let welcome = try await moderator.hello(["role": "moderator", "token": token])
                let room = try #require((welcome["snapshot"] as? [String: Any])?["room"] as? [String: Any])
                let decks = try #require(room["decks"] as? [[String: Any]])
                let deck = try #require(decks.first { $0["id"] as? String == deckId })
                #expect(deck["owner"] as? String == presenterId)
                #expect(((deck["pages"] as? [Any])?.count ?? 0) > 0)
            }
        }
    }

    @Test func decksAnOlderServerLeftProcessingGetAJobAtTheUpgrade() async throws {
        let (directory, store) = try await Self.storeInNewDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // What the version before the job queue left: a deck processing, and no job for it.
        let blobs = try FileBlobStore(root: directory.appendingPathComponent("blobs"))
        let deck = Mutex<DeckRecord?>(nil)
        try await closing(store) {
            try await TestServer(dataDirectory: directory).run(store: store) { client in _ = try await client.login() }
            let admin = try #require(try await store.user(email: "admin"))
            let left = DeckRecord(
                id: "d_leftbehind", ownerId: admin.id, folderId: nil, title: "Left behind", status: .processing,
                sourceHash: try blobs.put(fileAt: Self.slides, fileExtension: "pdf"), sourceBytes: 1, createdAt: Date())
            try await store.insertDeck(left)
            try await store.serial { db in
                // The job queue's migrations, then, had not run: the table and its lease column.
                try await db.raw("DELETE FROM podium_migrations WHERE version IN (8, 11)").run()
                try await db.raw("DROP TABLE jobs").run()
            }
            deck.withLock { $0 = left }
        }
        let leftDeck = try #require(deck.withLock { $0 })

        let upgraded = try await SQLStore.openSQLite(
            path: directory.appendingPathComponent("podium.sqlite").path, logger: TestServer.logger())
        try await closing(upgraded) {
            #expect(try await upgraded.unfinishedJobs().map(\.subjectId) == [leftDeck.id])
            try await TestServer(dataDirectory: directory).run(store: upgraded) { client in
                let token = try await client.login()
                #expect(try await client.waitForDeck(leftDeck.id, token: token)["status"] as? String == "ready")
            }
        }
    }

    @Test func workersOfAKindRunAsManyAtOnceAsAllowedAndTheirErrorsEndTheirJobs() async throws {
        let worker = HeldWorker()
        let server = TestServer {
            $0.additionalJobWorkers = [worker]
            $0.jobConcurrency[HeldWorker.testKind] = 2
        }
        defer { server.removeData() }
        let store = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
        try await closing(store) {
            // Three jobs, oldest first: one that succeeds, one that fails as workers should, one
            // whose worker throws something else.
            for (n, outcome) in ["succeed", "fail", "crash"].enumerated() {
                let at = Date(timeIntervalSince1970: 1_000 + Double(n))
                try await store.insertJob(
                    JobRecord(
                        id: "j_\(outcome)", kind: HeldWorker.testKind, subjectId: "x_\(n)", ownerId: nil,
                        payload: #""\#(outcome)""#,
                        createdAt: at, updatedAt: at))
            }
            try await server.run(store: store) { client in
                let token = try await client.login()
                var started = worker.started.makeAsyncIterator()
                #expect(Set([await started.next(), await started.next()]) == ["j_succeed", "j_fail"])
                #expect(try await store.job(id: "j_crash")?.state == .queued)
                let running = try await client.request(.get, "/api/v1/jobs/j_succeed", token: token).object()
                #expect(running["state"] as? String == "running")
                #expect((running["progress"] as? [String: Any])?["stage"] as? String == "testing")

                // A slot frees: the third starts.
                worker.release("j_succeed")
                #expect(await started.next() == "j_crash")
                worker.release("j_fail")
                worker.release("j_crash")
                #expect(try await Self.waitForJob("j_succeed", client: client, token: token)["state"] as? String == "done")
                let failed = try await Self.waitForJob("j_fail", client: client, token: token)
                #expect(failed["state"] as? String == "failed")
                #expect(failed["error"] as? [String: String] == ["code": "bad_input", "message": "The input is bad."])
                let crashed = try await Self.waitForJob("j_crash", client: client, token: token)
                #expect((crashed["error"] as? [String: Any])?["code"] as? String == "internal")
                #expect(worker.failures.withLock { $0 } == ["j_fail": "bad_input", "j_crash": "internal"])
            }
        }
    }

    /// Several nodes on one database: a node starting leaves alone the jobs other nodes run
    /// (their leases hold, renewed by their heartbeat), and takes a job whose node died once its
    /// lease ran out, that lost run counted. The nodes share one clock, moved by the test.
    @Test(arguments: TestStores.kinds) func aDeadNodesJobIsTakenOverAndALiveNodesIsNot(_ kind: StoreKind) async throws {
        let (first, second, close) = try await TestStores.openNodes(kind)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let clock = Mutex(start)
        // Leases of 150 ms of the test's clock, renewed every 50 ms of real time and at every poll.
        let settings = JobQueue.Settings(pollInterval: .milliseconds(20), heartbeatInterval: .milliseconds(50))
        let lease = 0.15
        let (workerA, workerB) = (HeldWorker(), HeldWorker())
        let nodeA = JobQueue(
            store: first, workers: [workerA], settings: settings, logger: TestServer.logger(),
            now: { clock.withLock { $0 } })
        let nodeB = JobQueue(
            store: second, workers: [workerB], settings: settings, logger: TestServer.logger(),
            now: { clock.withLock { $0 } })
        var runs: [Task<Void, any Error>] = []
        do {
            for id in ["j_dead", "j_live"] {
                try await first.insertJob(
                    JobRecord(
                        id: id, kind: HeldWorker.testKind, subjectId: "x_\(id)", ownerId: nil, payload: #""succeed""#,
                        createdAt: start, updatedAt: start))
            }
            // A node claimed the first job, then died: nobody renews its lease.
            let deadLeaseEnds = start.addingTimeInterval(0.25)
            let dead = try await second.claimJob(kind: HeldWorker.testKind, at: start, leaseUntil: deadLeaseEnds)
            #expect(dead?.id == "j_dead")

            // Node A starts (the dead node's lease still holds) and runs the other job.
            runs.append(Task { try await nodeA.run() })
            var startedA = workerA.started.makeAsyncIterator()
            #expect(await startedA.next() == "j_live")
            // Node B starts: it takes neither.
            runs.append(Task { try await nodeB.run() })
            try await waitUntil("node B started") { nodeB.progress(jobId: "j_live") != nil }
            #expect(try await first.job(id: "j_dead")?.state == .running)
            #expect(try await first.job(id: "j_live")?.state == .running)

            // Time passes in steps shorter than a lease. After each, the test waits for A to
            // renew its lease from the new time, as a live node does, so A's lease never runs
            // out, whatever the machine's load; the dead node's does.
            var now = start
            while now <= deadLeaseEnds {
                now = now.addingTimeInterval(0.1)
                clock.withLock { $0 = now }
                let renewedFromNow = now.addingTimeInterval(lease - 0.01)
                try await waitUntil("node A renewed its lease") {
                    try await second.job(id: "j_live")?.leaseUntil.map { $0 >= renewedFromNow } == true
                }
            }
            // B finds the dead node's lease expired and runs the job, its second run; A keeps its own.
            var startedB = workerB.started.makeAsyncIterator()
            #expect(await startedB.next() == "j_dead")
            #expect(try await second.job(id: "j_dead")?.attempts == 2)
            let live = try #require(try await second.job(id: "j_live"))
            #expect(live.state == .running && live.attempts == 1)

            workerA.release("j_live")
            workerB.release("j_dead")
            for id in ["j_live", "j_dead"] {
                try await waitUntil("\(id) done") { try await first.job(id: id)?.state == .done }
            }
            #expect(try await first.job(id: "j_live")?.attempts == 1)
            #expect(try await first.job(id: "j_dead")?.attempts == 2)
        } catch {
            await stop(runs)
            throw error
        }
        await stop(runs)

        // However the test ends, no held run outlives it: a run waiting for its release would
        // keep its node from stopping, even cancelled.
        func stop(_ runs: [Task<Void, any Error>]) async {
            workerA.openForGood()
            workerB.openForGood()
            for run in runs { run.cancel() }
            for run in runs { _ = await run.result }
            await close()
        }
    }

    // MARK: Helpers

    static func addUser(to store: SQLStore) async throws {
        let accounts = Accounts(store: store, cost: 4, tokenLifetime: 3600, now: { Date() })
        try await store.insertUser(
            UserRecord(
                id: "u_other", email: "other@example.org", name: "Other", role: .presenter,
                passwordHash: try await accounts.hash("other-password"), createdAt: Date()))
    }

    /// Polls the job until it is done or failed, as a client would.
    static func waitForJob(_ id: String, client: Client, token: String) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let job = try await client.request(.get, "/api/v1/jobs/\(id)", token: token).object()
            if let state = job["state"] as? String, state == "done" || state == "failed" { return job }
            try await ContinuousClock().sleep(for: .milliseconds(50))
        }
        Issue.record("job \(id) unfinished after 60 s")
        return [:]
    }
}

/// A worker of the test kind: reports progress, then waits until the test releases its job, then
/// does what the payload says (`"succeed"`, `"fail"` with a `JobFailure`, `"crash"` with another error).
final class HeldWorker: JobWorker {
    static let testKind = "test"
    let kind = HeldWorker.testKind
    /// The id of each job as it starts.
    let started: AsyncStream<String>
    private let startedContinuation: AsyncStream<String>.Continuation
    private let gates = Mutex<(released: Set<String>, all: Bool, waiting: [String: CheckedContinuation<Void, Never>])>(
        ([], false, [:]))
    /// The failures `failed` was told of, by job.
    let failures = Mutex<[String: String]>([:])

    init() {
        (started, startedContinuation) = AsyncStream.makeStream(of: String.self)
    }

    func release(_ jobId: String) {
        let waiting = gates.withLock { gates in
            gates.released.insert(jobId)
            return gates.waiting.removeValue(forKey: jobId)
        }
        waiting?.resume()
    }

    /// Lets every held job go on, and every later one through: for the end of a test, passed or
    /// failed, so that no held job keeps its server (or job queue) from stopping.
    func openForGood() {
        let waiting = gates.withLock { gates in
            gates.all = true
            defer { gates.waiting = [:] }
            return Array(gates.waiting.values)
        }
        for continuation in waiting { continuation.resume() }
    }

    func run(_ job: JobRecord, progress: @escaping @Sendable (JobProgress) -> Void) async throws {
        progress(JobProgress(stage: "testing", done: 1, total: 2))
        startedContinuation.yield(job.id)
        await withCheckedContinuation { continuation in
            let now = gates.withLock { gates in
                if gates.all || gates.released.contains(job.id) { return true }
                gates.waiting[job.id] = continuation
                return false
            }
            if now { continuation.resume() }
        }
        switch job.payload {
        case #""fail""#: throw JobFailure(code: "bad_input", message: "The input is bad.")
        case #""crash""#: throw CocoaError(.fileReadCorruptFile)
        default: return
        }
    }

    func failed(_ job: JobRecord, because failure: JobFailure) async {
        failures.withLock { $0[job.id] = failure.code }
    }
}
