import Foundation
import PodiumCore
import SQLKit
import Synchronization
import Testing

@testable import PodiumStore

/// The store's contract on both databases: every record comes back as it went in (dates, flags,
/// optional values), a stored seq or command id is a ``SeqConflict`` that stores nothing, and on
/// PostgreSQL several stores on one database (several nodes) append, claim jobs and migrate
/// without stepping on each other.
@Suite("Store on SQLite and PostgreSQL", .timeLimit(.minutes(2)))
struct StoreTests {
    /// Dates with a fraction PostgreSQL keeps exactly (it stores microseconds).
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000.25)
    static let t1 = Date(timeIntervalSince1970: 1_700_000_060.5)
    static let t2 = Date(timeIntervalSince1970: 1_700_000_075.75)

    /// An admin, a deck with two pages, and a live session of it.
    static func seed(_ store: SQLStore) async throws -> SessionRecord {
        try await store.insertUser(
            UserRecord(id: "u1", email: "ada@example.org", name: "Ada", role: .admin, passwordHash: "h", createdAt: t0))
        try await store.insertDeck(
            DeckRecord(
                id: "d1", ownerId: "u1", folderId: nil, title: "Deck", status: .processing, sourceHash: "s",
                sourceBytes: 5_000_000_000, createdAt: t0))
        let session = SessionRecord(
            id: "s1", code: "ABCDEF", deckId: "d1", presenterId: "u1", passcodeHash: nil, allowDownload: true, createdAt: t0)
        try await store.insertSession(session)
        return session
    }

    static func event(_ seq: Int, page: Int) -> SessionEvent { SessionEvent(seq: seq, change: .page(page)) }

    @Test(arguments: TestStores.kinds) func everyRecordComesBackAsStored(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let session = try await Self.seed(store)
            #expect(try await store.userCount() == 1)
            #expect(try await store.user(email: "ada@example.org")?.createdAt == Self.t0)
            try await store.insertToken(hash: "th", userId: "u1", expiresAt: Self.t1)
            #expect(try await store.user(tokenHash: "th", now: Self.t0)?.id == "u1")
            #expect(try await store.user(tokenHash: "th", now: Self.t1) == nil)

            try await store.insertFolder(FolderRecord(id: "f1", ownerId: "u1", name: "Talks", createdAt: Self.t0))
            var deck = try #require(try await store.deck(id: "d1"))
            #expect(deck.sourceBytes == 5_000_000_000 && deck.folderId == nil && deck.roomId == nil)
            deck.folderId = "f1"
            deck.status = .ready
            deck.pageCount = 2
            let pages = (1...2).map {
                PageRecord(
                    deckId: "d1", number: $0, width: 841.89, height: 595.28, text: "page \($0)", largeImage: "l",
                    mediumImage: "m", thumbnailImage: "t")
            }
            try await store.completeDeck(deck, pages: pages)
            #expect(try await store.pages(deckId: "d1") == pages)
            #expect(try await store.decks(ownerId: "u1", folderId: "f1") == [deck])
            #expect(try await store.processingDecks().isEmpty)
            try await store.deleteFolder(id: "f1")
            #expect(try await store.deck(id: "d1")?.folderId == nil)

            #expect(try await store.session(code: "ABCDEF") == session)
            #expect(try await store.liveSessions() == [session])
            try await store.updateSessionAccess(id: "s1", passcode: "1234", passcodeHash: "ph", unlisted: true)
            try await store.markSessionEnded(id: "s1", at: Self.t1)
            let ended = try #require(try await store.session(id: "s1"))
            #expect(ended.unlisted && ended.passcode == "1234" && ended.endedAt == Self.t1 && ended.allowDownload)
            #expect(try await store.sessions(presenterId: "u1", before: Self.t1, limit: 5).map(\.id) == ["s1"])
            #expect(try await store.sessions(presenterId: "u1", before: Self.t0, limit: 5).isEmpty)

            let question = AudienceQuestion(
                id: "q1", text: "Why?", page: 2, anonymous: true, viewerId: "v1", name: nil, askedAt: Self.t0)
            try await store.append(
                sessionId: "s1",
                CommandWrite(
                    commandKey: "v1:c1", events: [Self.event(1, page: 2)],
                    records: [
                        .answer(pollId: 1, viewerId: "v1", .choices([0, 2])), .question(question),
                        .questionAnswered(questionId: "q1", true), .questionApproved(questionId: "q1", true),
                        .vote(questionId: "q1", viewerId: "v2", up: true),
                    ], seq: 1), at: Self.t1)
            let stored = try await store.events(sessionId: "s1", afterSeq: 0)
            #expect(stored.map(\.event) == [Self.event(1, page: 2)])
            #expect(stored.map(\.commandID) == ["v1:c1"])
            #expect(stored.map(\.at) == [Self.t1])
            #expect(try await store.hasEvent(sessionId: "s1", ofTypes: ["page"]))
            #expect(try await !store.hasEvent(sessionId: "s1", ofTypes: ["ended"]))
            let answers = try await store.answers(sessionId: "s1")
            #expect(answers.count == 1 && answers[0].answer == .choices([0, 2]) && answers[0].at == Self.t1)
            var answered = question
            answered.answered = true
            answered.approved = true
            #expect(try await store.questions(sessionId: "s1") == [answered])
            #expect(try await store.votes(sessionId: "s1").map(\.viewerId) == ["v2"])

            // The store numbers a newcomer (whatever number it is given); one known keeps theirs.
            #expect(
                try await store.saveViewer(sessionId: "s1", ViewerEntry(id: "v1", number: 7, name: nil), at: Self.t0)
                    == ViewerEntry(id: "v1", number: 1, name: nil))
            #expect(
                try await store.saveViewer(sessionId: "s1", ViewerEntry(id: "v1", number: 7, name: "Bo"), at: Self.t1)
                    == ViewerEntry(id: "v1", number: 1, name: "Bo"))
            // Arriving again without a name (through another node, say) keeps the name.
            #expect(
                try await store.saveViewer(sessionId: "s1", ViewerEntry(id: "v1", number: 3, name: nil), at: Self.t1)
                    == ViewerEntry(id: "v1", number: 1, name: "Bo"))
            #expect(try await store.viewers(sessionId: "s1") == [ViewerEntry(id: "v1", number: 1, name: "Bo")])
            try await store.saveNote(sessionId: "s1", viewerId: "v1", page: 2, text: "note", at: Self.t0)
            #expect(try await store.notes(sessionId: "s1", viewerId: "v1") == [2: "note"])
            try await store.visitStarted(id: "a1", sessionId: "s1", viewerId: "v1", saving: nil, at: Self.t0)
            try await store.attendanceEnded(id: "a1", at: Self.t1)
            let visits = try await store.attendance(sessionId: "s1")
            #expect(visits.count == 1 && visits[0].joinedAt == Self.t0 && visits[0].leftAt == Self.t1)
            // A newcomer's visit stores the viewer with it, numbered by the store.
            #expect(
                try await store.visitStarted(
                    id: "a2", sessionId: "s1", viewerId: "v9", saving: ViewerEntry(id: "v9", number: 1, name: "Cy"),
                    at: Self.t1) == ViewerEntry(id: "v9", number: 2, name: "Cy"))
            #expect(try await store.attendance(sessionId: "s1").map(\.viewerId).sorted() == ["v1", "v9"])
            #expect(try await store.viewers(sessionId: "s1").map(\.id) == ["v1", "v9"])

            let poll = Poll(kind: .choice, question: "Tea?", choices: ["Yes", "No"])
            try await store.saveBankQuestion(BankQuestion(id: "b1", deckId: "d1", position: 0, poll: poll, createdAt: Self.t0))
            #expect(try await store.bankQuestions(deckId: "d1").map(\.poll) == [poll])
            try await store.ping()
        }
    }

    @Test(arguments: TestStores.kinds) func aStoredSeqIsAConflictThatStoresNothing(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            _ = try await Self.seed(store)
            try await store.append(
                sessionId: "s1", CommandWrite(commandKey: nil, events: [Self.event(1, page: 2)], seq: 1), at: Self.t0)
            let late = CommandWrite(
                commandKey: "v1:x", events: [Self.event(1, page: 3)],
                records: [.answer(pollId: 1, viewerId: "v1", .choices([1]))], seq: 1)
            await #expect(throws: SeqConflict(sessionId: "s1", seq: 1)) {
                try await store.append(sessionId: "s1", late, at: Self.t1)
            }
            #expect(try await store.events(sessionId: "s1", afterSeq: 0).map(\.event) == [Self.event(1, page: 2)])
            #expect(try await store.answers(sessionId: "s1").isEmpty)
        }
    }

    @Test(arguments: TestStores.kinds) func aRetriedCommandIdCountsOnce(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            _ = try await Self.seed(store)
            let answer = CommandWrite(
                commandKey: "v1:a1", events: [], records: [.answer(pollId: 1, viewerId: "v1", .choices([0]))], seq: 0)
            try await store.append(sessionId: "s1", answer, at: Self.t0)
            var retry = answer
            retry.records = [.answer(pollId: 1, viewerId: "v1", .choices([1]))]
            await #expect(throws: SeqConflict.self) { try await store.append(sessionId: "s1", retry, at: Self.t1) }
            let answers = try await store.answers(sessionId: "s1")
            #expect(answers.map(\.answer) == [.choices([0])])
            #expect(try await store.recordedCommands(sessionId: "s1", limit: 10).map(\.key) == ["v1:a1"])
        }
    }

    @Test(arguments: TestStores.kinds) func workersClaimEveryJobOnce(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            _ = try await Self.seed(store)
            let ids = (0..<24).map { "j\($0)" }
            for (index, id) in ids.enumerated() {
                try await store.insertJob(
                    JobRecord(
                        id: id, kind: "pdf", subjectId: "d1", ownerId: "u1", payload: "{}",
                        createdAt: Self.t0.addingTimeInterval(Double(index)), updatedAt: Self.t0))
            }
            let claimed = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        var mine: [String] = []
                        while let job = try await store.claimJob(kind: "pdf", at: Self.t1, leaseUntil: Self.t2) {
                            mine.append(job.id)
                        }
                        return mine
                    }
                }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
            #expect(claimed.sorted() == ids.sorted())
            let job = try #require(try await store.job(id: "j0"))
            #expect(job.state == .running && job.attempts == 1 && job.updatedAt == Self.t1 && job.leaseUntil == Self.t2)
            try await store.finishJob(id: "j0", attempt: 1, failure: JobFailure(code: "bad", message: "no"), at: Self.t1)
            #expect(try await store.job(id: "j0")?.error == JobFailure(code: "bad", message: "no"))
            // Leased until t2: nobody takes them before, everyone after.
            #expect(try await store.requeueExpiredJobs(at: Self.t1) == 0)
            #expect(try await store.requeueExpiredJobs(at: Self.t2.addingTimeInterval(0.5)) == 23)
            #expect(try await store.job(id: "j1")?.leaseUntil == nil)
        }
    }

    @Test(.enabled(if: TestStores.databaseURL != nil))
    func twoNodesAppendingTheSameSeqOneWins() async throws {
        try await TestStores.withPostgresDatabase { url in
            let first = try await SQLStore.openPostgres(url: url, maximumConnections: 4, logger: TestServer.logger())
            let second = try await SQLStore.openPostgres(url: url, maximumConnections: 4, logger: TestServer.logger())
            do {
                _ = try await Self.seed(first)
                try await first.append(
                    sessionId: "s1", CommandWrite(commandKey: nil, events: [Self.event(1, page: 1)], seq: 1), at: Self.t0)
                let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                    for (node, store) in [first, second].enumerated() {
                        group.addTask {
                            do {
                                try await store.append(
                                    sessionId: "s1",
                                    CommandWrite(
                                        commandKey: "n\(node)", events: [Self.event(2, page: 10 + node)],
                                        records: [.answer(pollId: 1, viewerId: "v\(node)", .choices([node]))], seq: 2),
                                    at: Self.t1)
                                return (node, true)
                            } catch is SeqConflict {
                                return (node, false)
                            }
                        }
                    }
                    return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
                }
                let winners = outcomes.filter(\.value).map(\.key)
                try #require(winners.count == 1)
                let events = try await second.events(sessionId: "s1", afterSeq: 0)
                #expect(events.map(\.event) == [Self.event(1, page: 1), Self.event(2, page: 10 + winners[0])])
                #expect(try await first.answers(sessionId: "s1").map(\.viewerId) == ["v\(winners[0])"])
                // The same command id from the other node counts once too.
                await #expect(throws: SeqConflict.self) {
                    try await second.append(
                        sessionId: "s1",
                        CommandWrite(
                            commandKey: "k", events: [], records: [.answer(pollId: 2, viewerId: "v", .choices([0]))],
                            seq: 2), at: Self.t1)
                    try await first.append(
                        sessionId: "s1",
                        CommandWrite(
                            commandKey: "k", events: [], records: [.answer(pollId: 2, viewerId: "v", .choices([1]))],
                            seq: 2), at: Self.t1)
                }
                #expect(try await first.answers(sessionId: "s1").filter { $0.pollId == 2 }.map(\.answer) == [.choices([0])])
            } catch {
                try? await first.close()
                try? await second.close()
                throw error
            }
            try await first.close()
            try await second.close()
        }
    }

    @Test(.enabled(if: TestStores.databaseURL != nil))
    func nodesStartingTogetherMigrateOnce() async throws {
        try await TestStores.withPostgresDatabase { url in
            let stores = try await withThrowingTaskGroup(of: SQLStore.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await SQLStore.openPostgres(url: url, maximumConnections: 2, logger: TestServer.logger())
                    }
                }
                return try await group.reduce(into: [SQLStore]()) { $0.append($1) }
            }
            struct Row: Decodable { let version: Int }
            let applied = try await stores[0].serial { db in
                try await db.raw("SELECT version FROM podium_migrations ORDER BY version").all(decoding: Row.self)
            }
            #expect(applied.map(\.version) == Migrations.all.map(\.version))
            for store in stores { try await store.close() }
        }
    }

    @Test(.enabled(if: TestStores.databaseURL != nil))
    func aDatabaseThatCannotBeReachedFailsTheOpeningWithTheReason() async throws {
        let base = try #require(TestStores.databaseURL)
        var components = try #require(URLComponents(string: base))
        components.path = "/podium_no_such_database"
        let missing = try #require(components.string)
        let error = await #expect(throws: StoreConfigurationError.self) {
            try await SQLStore.openPostgres(url: missing, logger: TestServer.logger())
        }
        #expect(error?.description.contains(#"database "podium_no_such_database" does not exist"#) == true)
        components.path = "/postgres"
        components.port = 1
        let refused = try #require(components.string)
        await #expect(throws: StoreConfigurationError.self) {
            try await SQLStore.openPostgres(url: refused, logger: TestServer.logger())
        }
        // The test server offers no TLS: asking for it is refused, saying why.
        components.port = URLComponents(string: base)?.port
        components.query = "sslmode=require"
        let plain = try #require(components.string)
        let noTLS = await #expect(throws: StoreConfigurationError.self) {
            try await SQLStore.openPostgres(url: plain, logger: TestServer.logger())
        }
        #expect(noTLS?.description.contains("does not offer TLS") == true)
    }

    @Test func aMalformedDatabaseURLIsRefusedWithWhatToWrite() async throws {
        for url in ["mysql://u@h/db", "postgres:///db", "postgres://h/db", "postgres://u@h/db?sslmode=sometimes"] {
            #expect(throws: StoreConfigurationError.self) { try PostgresURL.clientConfiguration(url) }
        }
        #expect(throws: Never.self) { try PostgresURL.clientConfiguration("postgresql://u:p%40ss@h:6543/db?sslmode=require") }
    }

    // MARK: Several nodes

    /// A job running on one node is that node's while it renews its lease: another node looking
    /// for abandoned jobs (at its start, at every poll) leaves it alone, and takes it only once
    /// the lease ran out (the node died), counting the lost run as an attempt.
    @Test(arguments: TestStores.kinds) func aRunningJobIsRequeuedOnlyWhenItsLeaseExpired(_ kind: StoreKind) async throws {
        let (first, second, close) = try await TestStores.openNodes(kind)
        do {
            _ = try await Self.seed(first)
            try await first.insertJob(
                JobRecord(
                    id: "j1", kind: "pdf", subjectId: "d1", ownerId: "u1", payload: "{}", createdAt: Self.t0,
                    updatedAt: Self.t0))
            let claimed = try #require(try await first.claimJob(kind: "pdf", at: Self.t0, leaseUntil: Self.t1))
            #expect(claimed.attempts == 1 && claimed.leaseUntil == Self.t1)

            // The other node starts before the lease ends: the job stays with the first.
            #expect(try await second.requeueExpiredJobs(at: Self.t0.addingTimeInterval(1)) == 0)
            #expect(try await second.claimJob(kind: "pdf", at: Self.t0, leaseUntil: Self.t1) == nil)
            // The first renews it: still its own after the first lease would have ended.
            #expect(try await first.renewJobLease(id: "j1", attempt: 1, until: Self.t2))
            #expect(try await second.requeueExpiredJobs(at: Self.t1.addingTimeInterval(1)) == 0)
            #expect(try await second.job(id: "j1")?.state == .running)

            // The first stops renewing (it died): once the lease ended, the other node takes it.
            let later = Self.t2.addingTimeInterval(1)
            #expect(try await second.requeueExpiredJobs(at: later) == 1)
            let taken = try #require(
                try await second.claimJob(kind: "pdf", at: later, leaseUntil: later.addingTimeInterval(15)))
            #expect(taken.id == "j1" && taken.attempts == 2)
            // The first node's run is over: its renewal no longer holds the job.
            #expect(try await !first.renewJobLease(id: "j1", attempt: 1, until: later.addingTimeInterval(60)))
            #expect(try await second.renewJobLease(id: "j1", attempt: 2, until: later.addingTimeInterval(30)))
            #expect(try await first.job(id: "j1")?.leaseUntil == later.addingTimeInterval(30))
            // Nor does its end, its progress or its stopping: the second run's outcome will be the job's.
            try await first.saveJobProgress(id: "j1", attempt: 1, JobProgress(stage: "stale", done: 1, total: 1), at: later)
            #expect(try await !first.finishJob(id: "j1", attempt: 1, failure: nil, at: later))
            #expect(try await !first.releaseJob(id: "j1", attempt: 1, progress: .queued, at: later))
            let stillSecond = try #require(try await first.job(id: "j1"))
            #expect(stillSecond.state == .running && stillSecond.attempts == 2 && stillSecond.progress.stage != "stale")
            // A graceful stop gives it back at once, that run not counted.
            #expect(try await second.releaseJob(id: "j1", attempt: 2, progress: .queued, at: later))
            let released = try #require(try await first.job(id: "j1"))
            #expect(released.state == .queued && released.attempts == 1 && released.leaseUntil == nil)

            // A run whose lease ran out, with no later run started yet, still ends the job: its work is done.
            _ = try #require(try await second.claimJob(kind: "pdf", at: later, leaseUntil: later.addingTimeInterval(1)))
            #expect(try await first.requeueExpiredJobs(at: later.addingTimeInterval(2)) == 1)
            #expect(try await second.finishJob(id: "j1", attempt: 2, failure: nil, at: later.addingTimeInterval(3)))
            let finished = try #require(try await first.job(id: "j1"))
            #expect(finished.state == .done && finished.attempts == 2)
            #expect(try await !second.finishJob(id: "j1", attempt: 2, failure: JobFailure(code: "x", message: "y"), at: later))
        } catch {
            await close()
            throw error
        }
        await close()
    }

    /// Viewers joining one session on two nodes at once: the store numbers them, each number
    /// once, 1...N, and each node is told the number stored.
    @Test(arguments: TestStores.kinds) func viewersJoiningOnTwoNodesAtOnceGetDistinctNumbers(_ kind: StoreKind) async throws {
        let (first, second, close) = try await TestStores.openNodes(kind)
        do {
            _ = try await Self.seed(first)
            let count = 60
            let returned = try await withThrowingTaskGroup(of: ViewerEntry.self) { group in
                for index in 0..<count {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask {
                        // Each node would have picked 1 from its own roster.
                        try await store.saveViewer(
                            sessionId: "s1", ViewerEntry(id: "v\(index)", number: 1, name: nil), at: Self.t0)
                    }
                }
                return try await group.reduce(into: [ViewerEntry]()) { $0.append($1) }
            }
            #expect(returned.map(\.number).sorted() == Array(1...count))
            let stored = try await second.viewers(sessionId: "s1")
            #expect(stored.map(\.number) == Array(1...count))
            #expect(stored.sorted { $0.id < $1.id } == returned.sorted { $0.id < $1.id })
            // Joining again (renamed) keeps the number.
            let again = try await second.saveViewer(
                sessionId: "s1", ViewerEntry(id: "v0", number: 99, name: "Ada"), at: Self.t1)
            #expect(again.number == returned.first { $0.id == "v0" }?.number && again.name == "Ada")
        } catch {
            await close()
            throw error
        }
        await close()
    }

    /// Numbers two nodes gave twice before the store gave them are numbered again by the
    /// migration that makes them unique, in order of number then arrival.
    @Test(arguments: TestStores.kinds) func theMigrationRenumbersViewersGivenOneNumberTwice(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            _ = try await Self.seed(store)
            try await store.insertSession(
                SessionRecord(
                    id: "s2", code: "GHIJKL", deckId: "d1", presenterId: "u1", passcodeHash: nil, allowDownload: true,
                    createdAt: Self.t0))
            let dialect = store.dialect
            // What an earlier version could leave: the index not there yet, and duplicates.
            try await store.serial { db in
                try await db.raw("DROP INDEX session_viewers_number").run()
                try await db.raw("DELETE FROM podium_migrations WHERE version = 12").run()
                let rows: [(String, String, Int, Date)] = [
                    ("s1", "a", 1, Self.t0), ("s1", "b", 2, Self.t0), ("s1", "c", 2, Self.t1), ("s1", "d", 3, Self.t1),
                    ("s2", "x", 1, Self.t0), ("s2", "y", 2, Self.t1),
                ]
                for (session, viewer, number, seen) in rows {
                    try await db.raw(
                        """
                        INSERT INTO session_viewers (session_id, viewer_id, number, name, first_seen)
                        VALUES (\(bind: session), \(bind: viewer), \(bind: number), NULL, \(bind: seen))
                        """
                    ).run()
                }
                try await Migrations.run(on: db, dialect: dialect, logger: TestServer.logger())
            }
            #expect(try await store.viewers(sessionId: "s1").map(\.id) == ["a", "b", "c", "d"])
            #expect(try await store.viewers(sessionId: "s1").map(\.number) == [1, 2, 3, 4])
            #expect(try await store.viewers(sessionId: "s2").map(\.number) == [1, 2])
            // The index holds now: the next newcomer gets the next number.
            #expect(
                try await store.saveViewer(sessionId: "s1", ViewerEntry(id: "e", number: 1, name: nil), at: Self.t1).number
                    == 5)
        }
    }
}
