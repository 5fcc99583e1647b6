import ChildProcesses
import Foundation
import PodiumCore
import PodiumMedia
import Testing

@testable import PodiumStore

/// `podium migrate-data`, the real binary: an SQLite installation with rows in every table is
/// copied into an empty PostgreSQL database, counted table by table; a non-empty target is refused.
@Suite("Migrate data to PostgreSQL", .timeLimit(.minutes(2)))
struct MigrateDataTests {
    /// Runs `podium` with `arguments`; returns its exit status, output and errors.
    static func podium(_ arguments: [String], environment: [String: String] = [:]) async throws -> (
        status: Int32, output: String, errors: String
    ) {
        let binary = ServerProcess.binary
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw ServerProcess.Failure("no podium binary at \(binary.path): run `swift build --product podium` first")
        }
        return try await blocking {
            let output = Pipe()
            let errors = Pipe()
            let process = ChildProcess(
                binary, arguments: arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
                standardOutput: .pipe(output), standardError: .pipe(errors))
            try process.run()
            let out = output.fileHandleForReading.readDataToEndOfFile()
            let err = errors.fileHandleForReading.readDataToEndOfFile()
            let status = process.waitUntilExit().status
            return (status, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
        }
    }

    /// Rows in every table of a store, through the store's own calls.
    static func fill(_ store: SQLStore) async throws {
        _ = try await StoreTests.seed(store)
        try await store.insertToken(hash: "th", userId: "u1", expiresAt: StoreTests.t1)
        try await store.insertFolder(FolderRecord(id: "f1", ownerId: "u1", name: "Talks", createdAt: StoreTests.t0))
        var deck = try #require(try await store.deck(id: "d1"))
        deck.status = .ready
        deck.pageCount = 1
        deck.folderId = "f1"
        try await store.completeDeck(
            deck,
            pages: [
                PageRecord(
                    deckId: "d1", number: 1, width: 841.89, height: 595.28, text: "Hello", largeImage: "l", mediumImage: "m",
                    thumbnailImage: "t")
            ])
        let question = AudienceQuestion(
            id: "q1", text: "Why?", page: 1, anonymous: true, viewerId: "v1", name: nil, askedAt: StoreTests.t0)
        try await store.append(
            sessionId: "s1",
            CommandWrite(
                commandKey: "v1:c1", events: [StoreTests.event(1, page: 1), StoreTests.event(2, page: 3)],
                records: [
                    .answer(pollId: 1, viewerId: "v1", .choices([2])), .question(question),
                    .questionApproved(questionId: "q1", true), .vote(questionId: "q1", viewerId: "v2", up: true),
                ], seq: 2), at: StoreTests.t1)
        try await store.append(
            sessionId: "s1",
            CommandWrite(
                commandKey: "v2:a1", events: [], records: [.answer(pollId: 1, viewerId: "v2", .text("tea"))], seq: 2),
            at: StoreTests.t1)
        _ = try await store.saveViewer(sessionId: "s1", ViewerEntry(id: "v1", number: 1, name: "Bo"), at: StoreTests.t0)
        try await store.saveNote(sessionId: "s1", viewerId: "v1", page: 1, text: "note", at: StoreTests.t0)
        try await store.visitStarted(id: "a1", sessionId: "s1", viewerId: "v1", saving: nil, at: StoreTests.t0)
        try await store.saveBankQuestion(
            BankQuestion(
                id: "b1", deckId: "d1", position: 0, poll: Poll(kind: .choice, question: "Tea?", choices: ["Y", "N"]),
                createdAt: StoreTests.t0))
        try await store.insertJob(
            JobRecord(
                id: "j1", kind: "pdf", subjectId: "d1", ownerId: "u1", payload: "{}", state: .done, attempts: 1,
                createdAt: StoreTests.t0, updatedAt: StoreTests.t1))
        try await store.insertVideo(
            VideoRecord(
                id: "v1", ownerId: "u1", folderId: "f1", title: "Clip", status: .ready,
                sourceHash: String(repeating: "a", count: 64) + ".video", sourceBytes: 1, hasVideo: true,
                createdAt: StoreTests.t0))
        _ = try await store.putCaptionTrack(
            CaptionTrackRecord(
                videoId: "v1", language: "en", label: "English", kind: .subtitles,
                webvtt: "WEBVTT\n\n1\n00:00:00.000 --> 00:00:01.000\nHi\n", createdAt: StoreTests.t0, updatedAt: StoreTests.t0))
        // A resumable upload under way (its bytes are a file beside the blobs).
        try await store.insertUpload(
            UploadRecord(
                id: "u1", ownerKey: "user:u1", target: "video", metadata: "{}", uploadLength: 10, uploadOffset: 4,
                expiresAt: StoreTests.t1, createdAt: StoreTests.t0))
        // A person of a single sign-on provider, linked to the account.
        _ = try await store.insertExternalIdentity(
            ExternalIdentityRecord(
                issuer: "https://idp.example", subject: "t-1", userId: "u1", email: "ada@example.org", createdAt: StoreTests.t0,
                lastSignInAt: StoreTests.t1))
        // The blob collector's bookkeeping: a mark and its lease.
        _ = try await store.markUnreferencedBlobs([String(repeating: "b", count: 64) + ".jpg"], at: StoreTests.t0)
        _ = try await store.claimBlobCollection(holder: "n1", at: StoreTests.t0, leaseUntil: StoreTests.t1, startedBefore: nil)
        try await store.updateSessionAccess(id: "s1", passcode: "1234", passcodeHash: "ph", unlisted: true)
        // A folder moved into one made after it: PostgreSQL checks the reference at commit.
        try await store.insertFolder(FolderRecord(id: "f2", ownerId: "u1", name: "Films", createdAt: StoreTests.t0))
        try await store.insertFolder(FolderRecord(id: "f3", ownerId: "u1", name: "2026", createdAt: StoreTests.t0))
        try await store.moveFolder(id: "f2", parentId: "f3")
        try await store.insertStoryboard(
            StoryboardRecord(
                id: "sb1", ownerId: "u1", folderId: "f2", title: "Chase", sceneCount: 1, shotCount: 1, createdAt: StoreTests.t0,
                updatedAt: StoreTests.t0), content: #"{"scenes":[]}"#)
        try await store.insertUser(
            UserRecord(
                id: "u9", email: "grace@example.org", name: "Grace", role: .presenter, passwordHash: "h", createdAt: StoreTests.t0
            ))
        try await store.addStoryboardEditor(storyboardId: "sb1", userId: "u9")
        try await store.appendStoryboardEdits(
            [
                StoryboardEditRecord(
                    storyboardId: "sb1", seq: 1, authorId: "u9", commandKey: "u9:e1", shotId: "sh1",
                    edit: #"{"op":"renumberShots"}"#,
                    createdAt: StoreTests.t1)
            ], summary: StoryboardSummaryChange(sceneCount: 1, shotCount: 1))
        try await store.insertStoryboardExport(
            StoryboardExportRecord(
                id: "x1", storyboardId: "sb1", ownerId: "u1", format: .sheet, layout: 4, seq: 1, status: .ready,
                blob: String(repeating: "b", count: 64) + ".pdf", bytes: 9, createdAt: StoreTests.t1))
        _ = try await store.channelSetting("stream_key", orInsert: String(repeating: "0", count: 64))
        try await store.markChannelSeen(viewerKey: "v_1", at: StoreTests.t1)
        try await store.insertPlaceCategory(
            ChannelPlaceCategoryRecord(id: "pc1", name: "Museums", position: 0, updatedAt: StoreTests.t0))
        try await store.insertPlace(ChannelPlaceStoreTests.place("p1", category: "pc1", position: 0))
        try await store.setVenueImage(String(repeating: "c", count: 64) + ".jpg", at: StoreTests.t1)
        try await store.insertQuiz(
            ChannelQuizRecord(id: "z1", name: "Prague", position: 0, publishedAt: StoreTests.t0, updatedAt: StoreTests.t0),
            questions: ChannelPlaceStoreTests.questions("m"))
        _ = try await store.recordQuizAttempt(quizId: "z1", viewerKey: "v_1", score: 1, total: 2, at: StoreTests.t1)
        try await store.insertRadio(
            ChannelRadioRecord(
                id: "r1", name: "Folk", position: 0, epoch: StoreTests.t0, publishedAt: StoreTests.t0, createdAt: StoreTests.t0,
                updatedAt: StoreTests.t0))
        try await store.insertRadioTrack(
            ChannelRadioTrackRecord(
                id: "t1", radioId: "r1", position: 0, title: "Polka", status: .ready,
                sourceBlob: String(repeating: "c", count: 64) + ".audio", sourceBytes: 5, duration: 6,
                segments: #"[{"blob":"\#(String(repeating: "d", count: 64)).ts","duration":6}]"#, createdAt: StoreTests.t0,
                updatedAt: StoreTests.t0))
        try await store.addRadioUsage([RadioUsage(viewerKey: "v_1", day: "2023-11-14", seconds: 60)])
        // The channel's videos: a sub-category inserted before its parent's row is updated, a
        // flag of each kind, a date and a null.
        _ = try await store.insertChannelVideoCategory(
            ChannelVideoCategoryRecord(id: "vc1", parentId: nil, name: "News", position: 0, updatedAt: StoreTests.t0))
        _ = try await store.insertChannelVideoCategory(
            ChannelVideoCategoryRecord(id: "vc2", parentId: "vc1", name: "Local", position: 0, updatedAt: StoreTests.t0))
        _ = try await store.insertChannelVideo(
            ChannelVideoRecord(
                id: "cv1", videoId: "v1", categoryId: "vc1", subcategoryId: "vc2", title: "Prague", free: true,
                publishedAt: StoreTests.t1, createdAt: StoreTests.t0, updatedAt: StoreTests.t1))
        try await store.addChannelFavourite(viewerKey: "u1", channelVideoId: "cv1", at: StoreTests.t1)
        try await store.saveChannelPosition(
            ChannelPositionRecord(viewerKey: "u1", channelVideoId: "cv1", seconds: 1.5, duration: 4, updatedAt: StoreTests.t1))
        // LTI 1.3: a platform, a login under way, a teacher's account, a deep link being answered.
        try await store.insertLTIPlatform(LTIStoreTests.platform("lp1"))
        try await store.insertLTILogin(
            LTILoginRecord(state: "st1", nonce: "n1", platformId: "lp1", targetLinkURI: "x", expiresAt: StoreTests.t1),
            now: StoreTests.t0)
        try await store.linkLTIUser(platformId: "lp1", subject: "sub-1", userId: "u1")
        try await store.insertLTIDeepLink(
            LTIDeepLinkRecord(
                id: "dl1", platformId: "lp1", deploymentId: "1", userId: "u1", returnURL: "https://lms.example/return",
                data: nil, acceptMultiple: false, expiresAt: StoreTests.t1, contextId: "course-1"),
            now: StoreTests.t0)
        // Session s1 placed in that course, and another teacher of it a co-host (#43).
        try await store.placeLTIContent(
            platformId: "lp1", contextId: "course-1", kind: "session", target: "s1", placedBy: "u1", at: StoreTests.t0)
        _ = try await store.addSessionHost(
            SessionHostRecord(sessionId: "s1", userId: "u9", grantedBy: nil, reason: "lti-course", createdAt: StoreTests.t1))
        // Accounts by email: an invitation waiting, and the audit log's first entries.
        try await store.insertAccountLink(
            AccountStoreTests.link("al1", .invitation, email: "grace@school.test", hash: "alh1"))
        for number in 1...2 {
            _ = try await store.appendAudit(
                AuditRecord(
                    at: StoreTests.t0 + Double(number), actorId: "u1", actorName: "Ada", action: "user.invited",
                    target: "grace@school.test", detail: "presenter", address: "10.0.0.1"))
        }
        // An audio take of session s1 with its first chunk (replay, #44).
        try await store.insertRecording(RecordingStoreTests.take("rec1", session: "s1"))
        _ = try await store.appendRecordingChunk(id: "rec1", n: 0, bytes: 1000, at: StoreTests.t1)
        // The pointer's side log of session s1 (replay, #44).
        try await store.appendReplaySamples(
            sessionId: "s1", [ReplaySample(at: StoreTests.t1, .pointer(page: 1, deck: nil, x: 0.5, y: 0.25))])
        // A replay of session s1 exported as an MP4 and published (#44).
        try await store.insertReplayExport(
            ReplayExportRecord(
                id: "rx1", sessionId: "s1", ownerId: "u1", status: .ready, durationMs: 60_000,
                blob: String(repeating: "e", count: 64) + ".mp4", bytes: 10, channelVideoId: "cv1", createdAt: StoreTests.t1))
    }

    @Test(.enabled(if: TestStores.databaseURL != nil))
    func anSQLiteInstallationIsCopiedWholeAndCountedAndANonEmptyTargetIsRefused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try await SQLStore.openSQLite(
            path: directory.appendingPathComponent("podium.sqlite").path, logger: TestServer.logger())
        do {
            try await Self.fill(sqlite)
        } catch {
            try? await sqlite.close()
            throw error
        }
        let original = try await sqlite.session(id: "s1")
        try await sqlite.close()

        try await TestStores.withPostgresDatabase { url in
            let copied = try await Self.podium(["migrate-data", "--from", directory.path, "--to", url])
            #expect(copied.status == 0, "\(copied.errors)")
            // Every table has rows, the same number on both sides.
            for table in DataMigration.tables {
                let line = try #require(copied.output.split(separator: "\n").first { $0.hasPrefix("\(table) ") })
                let numbers = line.split(separator: " ").dropFirst().compactMap { Int($0) }
                #expect(numbers.count == 2 && numbers[0] > 0 && numbers[0] == numbers[1], "\(line)")
            }

            let postgres = try await SQLStore.openPostgres(url: url, maximumConnections: 2, logger: TestServer.logger())
            do {
                #expect(try await postgres.session(id: "s1") == original)
                #expect(try await postgres.session(id: "s1")?.unlisted == true)
                #expect(
                    try await postgres.events(sessionId: "s1", afterSeq: 0).map(\.event) == [
                        StoreTests.event(1, page: 1), StoreTests.event(2, page: 3),
                    ])
                #expect(try await postgres.answers(sessionId: "s1").map(\.answer) == [.choices([2]), .text("tea")])
                #expect(try await postgres.questions(sessionId: "s1").map(\.approved) == [true])
                #expect(try await postgres.recordedCommands(sessionId: "s1", limit: 5).map(\.key) == ["v2:a1"])
                #expect(try await postgres.user(tokenHash: "th", now: StoreTests.t0)?.id == "u1")
                #expect(try await postgres.job(id: "j1")?.updatedAt == StoreTests.t1)
                #expect(try await postgres.pages(deckId: "d1").map(\.width) == [841.89])
                #expect(try await postgres.accountLink(tokenHash: "alh1")?.email == "grace@school.test")
                // The audit log's numbers go on after the copied ones (its sequence was set past them).
                let copiedAudit = try await postgres.auditEntries(before: nil, limit: 10)
                let next = try await postgres.appendAudit(
                    AuditRecord(
                        at: StoreTests.t1, actorId: "u1", actorName: "Ada", action: "user.created",
                        target: "grace@school.test", detail: "presenter", address: nil))
                #expect(copiedAudit.count == 2 && next.seq > (copiedAudit.map(\.seq).max() ?? .max))
            } catch {
                try? await postgres.close()
                throw error
            }
            try await postgres.close()

            let again = try await Self.podium(["migrate-data", "--from", directory.path, "--to", url])
            #expect(again.status != 0)
            #expect(again.errors.contains("not empty"), "\(again.errors)")
        }
    }

    /// `serve --database` (or `PODIUM_DATABASE_URL`) that cannot work stops the start at once, saying why.
    @Test func aServerWhoseDatabaseCannotBeReachedDoesNotStart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-nodb-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let web = TestServer.repositoryRoot.appendingPathComponent("Public").path
        let common = ["serve", "--port", "0", "--data-dir", directory.path, "--web-root", web]
        let refused = try await Self.podium(common + ["--database", "postgres://podium@127.0.0.1:1/podium"])
        #expect(refused.status != 0)
        #expect(refused.errors.contains("cannot connect to PostgreSQL at 127.0.0.1:1/podium"), "\(refused.errors)")
        let malformed = try await Self.podium(common, environment: ["PODIUM_DATABASE_URL": "mysql://podium@db/podium"])
        #expect(malformed.status != 0)
        #expect(malformed.errors.contains("postgres://user:password@host:5432/database"), "\(malformed.errors)")
    }

    @Test func aMissingSourceIsRefusedBeforeAnythingIsCreated() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("podium-none-\(UUID().uuidString)")
        let result = try await Self.podium(["migrate-data", "--from", missing.path, "--to", "postgres://u@127.0.0.1:1/db"])
        #expect(result.status != 0)
        #expect(result.errors.contains("No SQLite database or data directory"), "\(result.errors)")
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }
}
