import Foundation
import HTTPTypes
import PodiumClient
import PodiumCore
import Synchronization
import Testing

@testable import PodiumStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `podium backup`, `restore` and `check`, the real binary on real data directories: a backup
/// taken while a presenter moves pages and viewers answer, restored into a new directory and
/// served; `check` finding a damaged blob, a missing one and a damaged database file; `restore`
/// refusing a tampered backup, a non-empty target and a directory a server holds.
@Suite("Backup, restore and check", .timeLimit(.minutes(2)))
struct DataDirectoryTests {
    static func podium(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        try await MigrateDataTests.podium(arguments)
    }

    static func temporaryDirectory(_ label: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("podium-\(label)-\(UUID().uuidString)")
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// GET `path` with the token; the status and body.
    static func get(_ base: String, _ path: String, token: String?) async throws -> (Int, Data) {
        var request = URLRequest(url: URL(string: base + path)!)
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await Self.plainSession.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        var isSet: Bool { value.load(ordering: .acquiring) }
        func set() { value.store(true, ordering: .releasing) }
    }

    /// Requests as a script would make them: no cookies kept.
    static let plainSession = URLSession(configuration: PodiumClient.cookielessConfiguration())

    @Test func backupWhileASessionRunsThenRestoreAndServe() async throws {
        let root = Self.temporaryDirectory("backup")
        defer { try? FileManager.default.removeItem(at: root) }
        let live = root.appendingPathComponent("live")
        let server = ServerProcess(dataDirectory: live, environment: ["PODIUM_NO_DISCOVERY": "1"])
        try await server.start()
        defer { server.kill(SIGTERM) }
        let api = PodiumClient(baseURL: URL(string: server.url + "/")!)
        try await api.signIn(email: "admin", password: TestServer.adminPassword)
        let deck = try await api.waitUntilReady(
            deck: try await api.uploadDeck(pdf: Data(contentsOf: TestServer.demoDeck)).item.id)
        let code = try await api.startSession(deckId: deck.id).code
        let token = try #require(api.token)
        let path = "/api/v1/sessions/\(code)/live"
        let presenter = try await TestSocket.connect(port: server.port, path: path)
        _ = try await presenter.hello(["role": "presenter", "token": token])
        try await presenter.send(#"{"type":"openPoll","id":"p1","poll":{"kind":"choice","question":"Q","choices":["A","B"]}}"#)
        _ = try await presenter.next(ofType: "ack")
        var viewers: [TestSocket] = []
        for n in 1...2 {
            let viewer = try await TestSocket.connect(
                port: server.port, path: path, headers: [.cookie: "podium_viewer=\(InteractionTests.identity(n))"])
            _ = try await viewer.hello(["role": "viewer"])
            viewers.append(viewer)
        }

        // The backup runs while the presenter moves pages and viewers answer, each write acknowledged.
        let target = root.appendingPathComponent("backup")
        let finished = Flag()
        let backup = Task {
            defer { finished.set() }
            return try await Self.podium(["backup", target.path, "--data-dir", live.path, "--json"])
        }
        var writes = 0
        repeat {
            writes += 1
            try await presenter.send(#"{"type":"goto","id":"g\#(writes)","page":\#(writes % deck.pageCount + 1)}"#)
            _ = try await presenter.next(ofType: "ack")
            let viewer = viewers[writes % 2]
            try await viewer.send(#"{"type":"answer","id":"a\#(writes)","pollId":1,"choices":[\#(writes % 2)]}"#)
            _ = try await viewer.next(ofType: "ack")
        } while !finished.isSet && writes < 2000
        let result = try await backup.value
        #expect(result.status == 0, "\(result.errors)")
        let summary = try Self.json(result.output)
        let blobs = try #require(summary["blobs"] as? [String: Any])
        #expect((blobs["missing"] as? [String])?.isEmpty == true)
        #expect((blobs["copied"] as? Int ?? 0) > deck.pageCount)  // the PDF and its pages' images
        let counts = try #require(summary["counts"] as? [String: Int])
        #expect(counts["sessions"] == 1 && (counts["decks"] ?? 0) >= 1 && (counts["session_events"] ?? 0) >= 1)
        print("backup: \(writes) acknowledged writes while it ran, \(summary["seconds"] ?? "?") s")

        // Online check of the live directory: consistent while the server runs.
        let check = try await Self.podium(["check", "--data-dir", live.path, "--json"])
        #expect(check.status == 0, "\(check.output) \(check.errors)")

        // The live directory is the server's: refused even with --force.
        let busy = try await Self.podium(["restore", target.path, "--data-dir", live.path, "--force"])
        #expect(busy.status == 2)
        #expect(busy.errors.contains("in use by another Podium process"), "\(busy.errors)")

        let restored = root.appendingPathComponent("restored")
        let restore = try await Self.podium(["restore", target.path, "--data-dir", restored.path, "--json"])
        #expect(restore.status == 0, "\(restore.errors)")
        let restoredCheck = try await Self.podium(["check", "--data-dir", restored.path, "--json"])
        #expect(restoredCheck.status == 0, "\(restoredCheck.output)")

        // The restored directory serves the same deck, session, report and images.
        let second = ServerProcess(dataDirectory: restored, environment: ["PODIUM_NO_DISCOVERY": "1"])
        try await second.start()
        defer { second.kill(SIGTERM) }
        let again = PodiumClient(baseURL: URL(string: second.url + "/")!)
        try await again.signIn(email: "admin", password: TestServer.adminPassword)
        let restoredDeck = try await again.deck(id: deck.id)
        #expect(restoredDeck.status == "ready" && restoredDeck.pageCount == deck.pageCount)
        #expect(try await again.liveSessions().map(\.code) == [code])
        let (reportStatus, reportBody) = try await Self.get(second.url, "/api/v1/sessions/\(code)/report", token: again.token)
        #expect(reportStatus == 200)
        let report = try Self.json(String(decoding: reportBody, as: UTF8.self))
        let poll = try #require((report["polls"] as? [[String: Any]])?.first)
        #expect((poll["answered"] as? Int ?? 0) >= 1)
        for page in try #require(restoredDeck.pages) {
            let (status, image) = try await Self.get(second.url, page.imageUrl, token: again.token)
            #expect(status == 200 && !image.isEmpty, "\(page.imageUrl)")
        }
        // The session goes on where the snapshot left it.
        let back = try await TestSocket.connect(port: second.port, path: path)
        let welcome = try await back.hello(["role": "presenter", "token": try #require(again.token)])
        #expect((welcome["seq"] as? Int ?? 0) >= 1)
    }

    /// A data directory made through the store: a deck whose pages are real blobs, one orphan.
    static func makeDataDirectory(_ directory: URL) async throws -> (blobs: [String], orphan: String) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (names, orphan) = try makeBlobs(directory.appendingPathComponent("blobs"))
        let store = try await SQLStore.openSQLite(
            path: directory.appendingPathComponent("podium.sqlite").path, logger: TestServer.logger())
        do {
            try await fill(store, blobs: names)
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
        return (names, orphan)
    }

    /// Four blobs (a PDF and three images) and an orphan in `root`.
    static func makeBlobs(_ root: URL) throws -> (blobs: [String], orphan: String) {
        let blobStore = try FileBlobStore(root: root)
        func put(_ data: Data, _ fileExtension: String) throws -> String {
            let file = root.appendingPathComponent("in-\(UUID().uuidString)")
            try data.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            return try blobStore.put(fileAt: file, fileExtension: fileExtension)
        }
        let names = try (0..<4).map { n in
            try put(Data("blob \(n) ".utf8 + Data(repeating: UInt8(n), count: 10_000)), n == 0 ? "pdf" : "jpg")
        }
        return (names, try put(Data("nobody's".utf8), "jpg"))
    }

    /// A user, a deck of one page whose files are `blobs` (PDF, large, medium, thumbnail), a session.
    static func fill(_ store: SQLStore, blobs names: [String]) async throws {
        try await store.insertUser(
            UserRecord(id: "u1", email: "ada@example.org", name: "Ada", role: .admin, passwordHash: "h", createdAt: StoreTests.t0)
        )
        try await store.insertDeck(
            DeckRecord(
                id: "d1", ownerId: "u1", folderId: nil, title: "Deck", status: .processing, sourceHash: names[0],
                sourceBytes: 10, createdAt: StoreTests.t0))
        try await store.insertSession(
            SessionRecord(
                id: "s1", code: "ABCDEF", deckId: "d1", presenterId: "u1", passcodeHash: nil, allowDownload: true,
                createdAt: StoreTests.t0))
        var deck = try #require(try await store.deck(id: "d1"))
        deck.status = .ready
        deck.pageCount = 1
        try await store.completeDeck(
            deck,
            pages: [
                PageRecord(
                    deckId: "d1", number: 1, width: 800, height: 600, text: "Hello", largeImage: names[1],
                    mediumImage: names[2], thumbnailImage: names[3])
            ])
    }

    /// PostgreSQL: `pg_dump` on a snapshot while events are appended, restored into an empty
    /// database (refused into a non-empty one), checked, every row and blob there.
    @Test(.enabled(if: TestStores.databaseURL != nil, "PODIUM_TEST_DATABASE_URL is not set: no PostgreSQL to test on"))
    func postgresBackupWhileWritingRestoresIntoAnEmptyDatabase() async throws {
        let root = Self.temporaryDirectory("pg-backup")
        defer { try? FileManager.default.removeItem(at: root) }
        let url = try await TestStores.createDatabase()
        defer { TestStores.dropDatabaseNow(url) }
        let blobs = root.appendingPathComponent("blobs")
        let (names, _) = try Self.makeBlobs(blobs)
        let store = try await SQLStore.openPostgres(url: url, maximumConnections: 4, logger: TestServer.logger())
        let target = root.appendingPathComponent("backup")
        let result: (status: Int32, output: String, errors: String)
        var appended = 0
        do {
            try await Self.fill(store, blobs: names)
            let finished = Flag()
            let backup = Task {
                defer { finished.set() }
                return try await Self.podium(["backup", target.path, "--database-url", url, "--blob-dir", blobs.path, "--json"])
            }
            repeat {
                appended += 1
                try await store.append(
                    sessionId: "s1",
                    CommandWrite(
                        commandKey: "p:\(appended)", events: [StoreTests.event(appended, page: appended % 5 + 1)], seq: appended),
                    at: StoreTests.t1)
            } while !finished.isSet && appended < 5000
            result = try await backup.value
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
        #expect(result.status == 0, "\(result.errors)")
        let summary = try Self.json(result.output)
        let counts = try #require(summary["counts"] as? [String: Int])
        let events = try #require(counts["session_events"])
        #expect(events >= 0 && events <= appended)
        #expect((summary["database"] as? [String: String])?["kind"] == "postgres")
        print("postgres backup: \(appended) events appended while it ran, \(events) in the snapshot")

        let restoredURL = try await TestStores.createDatabase()
        defer { TestStores.dropDatabaseNow(restoredURL) }
        let restoredBlobs = root.appendingPathComponent("restored-blobs")
        let restore = try await Self.podium([
            "restore", target.path, "--database-url", restoredURL, "--blob-dir", restoredBlobs.path, "--json",
        ])
        #expect(restore.status == 0, "\(restore.errors)")
        let again = try await Self.podium([
            "restore", target.path, "--database-url", restoredURL, "--blob-dir", restoredBlobs.path,
        ])
        #expect(again.status == 2)
        #expect(again.errors.contains("not empty"), "\(again.errors)")
        // An SQLite target for a PostgreSQL backup: refused with what to do.
        let wrongKind = try await Self.podium(["restore", target.path, "--data-dir", root.appendingPathComponent("x").path])
        #expect(wrongKind.status == 2)

        let check = try await Self.podium(["check", "--database-url", restoredURL, "--blob-dir", restoredBlobs.path, "--json"])
        #expect(check.status == 0, "\(check.output) \(check.errors)")
        let report = try Self.json(check.output)
        #expect(report["blobsReferenced"] as? Int == 4)
        #expect((report["counts"] as? [String: Int])?["session_events"] == events)
        let restored = try await SQLStore.openPostgres(url: restoredURL, maximumConnections: 2, logger: TestServer.logger())
        let pages = try await restored.pages(deckId: "d1")
        try await restored.close()
        #expect(pages.first?.largeImage == names[1])
    }

    static func blobFile(_ directory: URL, _ name: String) -> URL {
        directory.appendingPathComponent("blobs").appendingPathComponent(String(name.prefix(2))).appendingPathComponent(name)
    }

    @Test func checkFindsADamagedBlobAMissingBlobAndADamagedDatabase() async throws {
        let directory = Self.temporaryDirectory("check")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (names, orphan) = try await Self.makeDataDirectory(directory)
        // A resumable upload's partial bytes beside the blobs are none of the check's business.
        let uploads = directory.appendingPathComponent("blobs").appendingPathComponent(UploadFiles.directoryName)
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        try Data(count: 10).write(to: uploads.appendingPathComponent("u0123456789abcdef0123456789abcdef.part"))

        let clean = try await Self.podium(["check", "--data-dir", directory.path, "--json"])
        #expect(clean.status == 0, "\(clean.output) \(clean.errors)")
        let report = try Self.json(clean.output)
        #expect(report["ok"] as? Bool == true)
        #expect(report["orphans"] as? [String] == [orphan])  // listed, not a problem
        #expect(report["blobsReferenced"] as? Int == 4)
        #expect(FileManager.default.fileExists(atPath: Self.blobFile(directory, orphan).path))  // not deleted

        // One blob's bytes changed, another gone.
        let damaged = Self.blobFile(directory, names[1])
        var bytes = try Data(contentsOf: damaged)
        bytes[10] ^= 0xFF
        try bytes.write(to: damaged)
        try FileManager.default.removeItem(at: Self.blobFile(directory, names[2]))
        let broken = try await Self.podium(["check", "--data-dir", directory.path])
        #expect(broken.status == 2)
        #expect(broken.output.contains("\(names[1]) is damaged"), "\(broken.output)")
        #expect(broken.output.contains("\(names[2]) is referenced by the database but missing"), "\(broken.output)")
        #expect(broken.output.contains("2 problems found"))

        // The database file's pages overwritten past its header.
        let database = directory.appendingPathComponent("podium.sqlite")
        let handle = try FileHandle(forUpdating: database)
        let size = try handle.seekToEnd()
        #expect(size > 8192)
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data(repeating: 0x5A, count: Int(size) - 4096))
        try handle.close()
        let damagedDatabase = try await Self.podium(["check", "--data-dir", directory.path, "--json"])
        #expect(damagedDatabase.status == 2)
        let problems = try #require(try Self.json(damagedDatabase.output)["problems"] as? [[String: String]])
        #expect(problems.contains { $0["area"] == "database" }, "\(problems)")
    }

    @Test func restoreRefusesATamperedBackupAndANonEmptyTarget() async throws {
        let root = Self.temporaryDirectory("restore")
        defer { try? FileManager.default.removeItem(at: root) }
        let source = root.appendingPathComponent("source")
        let (names, _) = try await Self.makeDataDirectory(source)
        let backup = root.appendingPathComponent("backup")
        let made = try await Self.podium(["backup", backup.path, "--data-dir", source.path])
        #expect(made.status == 0, "\(made.errors)")
        #expect(made.output.contains("4 blobs"), "\(made.output)")
        // Into a non-empty directory: refused, and the directory left as it was.
        let again = try await Self.podium(["backup", backup.path, "--data-dir", source.path])
        #expect(again.status == 2)

        // A blob of the backup changed: nothing restored.
        let tampered = backup.appendingPathComponent("blobs/\(names[3].prefix(2))/\(names[3])")
        let original = try Data(contentsOf: tampered)
        try Data("not the same bytes".utf8).write(to: tampered)
        let target = root.appendingPathComponent("target")
        let refused = try await Self.podium(["restore", backup.path, "--data-dir", target.path])
        #expect(refused.status == 2)
        #expect(refused.errors.contains("does not match its manifest"), "\(refused.errors)")
        #expect(refused.errors.contains(names[3]))
        #expect(!FileManager.default.fileExists(atPath: target.appendingPathComponent("podium.sqlite").path))
        try original.write(to: tampered)

        // Not a backup at all.
        let notBackup = try await Self.podium(["restore", source.path, "--data-dir", target.path])
        #expect(notBackup.status == 2)
        #expect(notBackup.errors.contains("not a Podium backup"))

        // Into the source itself: not empty, refused; with --force, replaced.
        let nonEmpty = try await Self.podium(["restore", backup.path, "--data-dir", source.path])
        #expect(nonEmpty.status == 2)
        #expect(nonEmpty.errors.contains("not empty"), "\(nonEmpty.errors)")
        let forced = try await Self.podium(["restore", backup.path, "--data-dir", source.path, "--force", "--json"])
        #expect(forced.status == 0, "\(forced.errors)")
        #expect(try Self.json(forced.output)["blobsAlreadyPresent"] as? Int == 4)

        let restored = try await Self.podium(["restore", backup.path, "--data-dir", target.path])
        #expect(restored.status == 0, "\(restored.errors)")
        #expect(try await Self.podium(["check", "--data-dir", target.path]).status == 0)
    }

    @Test func aBlobMissingWhenTheBackupRunsIsReportedNotSkippedInSilence() async throws {
        let root = Self.temporaryDirectory("missing")
        defer { try? FileManager.default.removeItem(at: root) }
        let source = root.appendingPathComponent("source")
        let (names, _) = try await Self.makeDataDirectory(source)
        try FileManager.default.removeItem(at: Self.blobFile(source, names[2]))
        let backup = root.appendingPathComponent("backup")
        let made = try await Self.podium(["backup", backup.path, "--data-dir", source.path, "--json"])
        #expect(made.status == 3, "\(made.errors)")
        let blobs = try #require(try Self.json(made.output)["blobs"] as? [String: Any])
        #expect(blobs["missing"] as? [String] == [names[2]])
        #expect(blobs["copied"] as? Int == 3)
        // Still a backup that verifies and restores (without that blob, as the source was).
        let target = root.appendingPathComponent("target")
        let restored = try await Self.podium(["restore", backup.path, "--data-dir", target.path])
        #expect(restored.status == 0, "\(restored.errors)")
        #expect(restored.output.contains(names[2]))
    }

    @Test func blobNamesAreFoundInTextAndJSON() {
        let name = String(repeating: "ab", count: 32) + ".jpg"
        #expect(BlobNameScanner.names(in: name) == [name])
        #expect(BlobNameScanner.names(in: #"{"files":["\#(name)","x"],"poster":"\#(name)"}"#) == [name])
        #expect(BlobNameScanner.names(in: "a" + name).isEmpty)  // 65 hex digits
        #expect(BlobNameScanner.names(in: String(repeating: "ab", count: 32)).isEmpty)  // no extension
        #expect(BlobNameScanner.names(in: String(repeating: "ab", count: 32) + ".jpegxx").isEmpty)
        #expect(BlobNameScanner.names(in: String(repeating: "AB", count: 32) + ".jpg").isEmpty)
        #expect(BlobNameScanner.names(in: "g" + name).isEmpty)
    }
}
