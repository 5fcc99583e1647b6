import Foundation
import Logging
import Testing

@testable import PodiumStore

/// Audio takes' files (`<blob-dir>/recordings`, issue #44) kept with the data: `podium backup`
/// copies them and `restore` puts them back (a restored server replays with its voice); `podium
/// check` finds a take's missing files and the files of takes with no row; the blob collector
/// deletes the files of a deleted session's takes after its grace period, and never those of a
/// take with a row or of one another node is starting. On SQLite and PostgreSQL.
@Suite("Audio takes' files: backup, restore, check, collection", .timeLimit(.minutes(2)))
struct RecordingFilesTests {
    static let hour: TimeInterval = 3600

    /// Writes a take's files as the server leaves them: its chunks and, when `packaged`, its HLS.
    static func writeTake(_ id: String, in recordings: URL, packaged: Bool) throws {
        try FileManager.default.createDirectory(at: recordings, withIntermediateDirectories: true)
        try Data("webm \(id) ".utf8 + Data(repeating: 7, count: 3000)).write(to: recordings.appendingPathComponent("\(id).webm"))
        guard packaged else { return }
        let package = recordings.appendingPathComponent(id, isDirectory: true)
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try Data("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=70000,CODECS=\"mp4a.40.2\"\nindex.m3u8\n".utf8)
            .write(to: package.appendingPathComponent("master.m3u8"))
        try Data("#EXTM3U\n#EXT-X-MAP:URI=\"init.mp4\"\n#EXTINF:6.0,\nseg-00000.m4s\n#EXT-X-ENDLIST\n".utf8)
            .write(to: package.appendingPathComponent("index.m3u8"))
        try Data(repeating: 1, count: 800).write(to: package.appendingPathComponent("init.mp4"))
        try Data(repeating: 2, count: 5000).write(to: package.appendingPathComponent("seg-00000.m4s"))
    }

    static func insertTake(_ store: SQLStore, _ id: String, session: String, status: RecordingRecord.Status) async throws {
        try await store.insertRecording(RecordingStoreTests.take(id, session: session))
        if status != .recording {
            _ = try await store.stopRecording(id: id, at: StoreTests.t0)
            if status == .ready {
                try await store.finishRecording(
                    id: id, status: .ready, durationMs: 6000, hlsBytes: 6000, errorCode: nil, errorMessage: nil)
            }
        }
    }

    static func insertSession(_ store: SQLStore, id: String, code: String) async throws {
        try await store.insertSession(
            SessionRecord(
                id: id, code: code, deckId: "d1", presenterId: "u1", passcodeHash: nil, allowDownload: true,
                createdAt: StoreTests.t0))
    }

    static func setModified(_ url: URL, _ date: Date) throws {
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: url.path)
    }

    @Test(arguments: TestStores.kinds) func aDeletedSessionsTakeFilesGoAfterTheGracePeriod(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await BlobCollectionTests.withBlobs { blobs in
                let recordings = blobs.root.appendingPathComponent("recordings", isDirectory: true)
                _ = try await StoreTests.seed(store)
                try await Self.insertSession(store, id: "s2", code: "GHJKLM")
                try await Self.insertTake(store, "rec_kept", session: "s1", status: .ready)
                try await Self.insertTake(store, "rec_gone", session: "s2", status: .ready)
                try await Self.insertTake(store, "rec_gone2", session: "s2", status: .packaging)
                try Self.writeTake("rec_kept", in: recordings, packaged: true)
                try Self.writeTake("rec_gone", in: recordings, packaged: true)
                try Self.writeTake("rec_gone2", in: recordings, packaged: false)
                // rec_gone2 was being packaged when its session went: its work directory too.
                let work = recordings.appendingPathComponent(".rec_gone2.work", isDirectory: true)
                try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
                try Data(repeating: 3, count: 100).write(to: work.appendingPathComponent("seg-00000.m4s"))
                let clock = SteppedClock(BlobCollectionTests.start())
                let collector = BlobCollectionTests.collector(store, blobs, clock: clock)
                let settings = BlobCollector.Settings(grace: BlobCollectionTests.grace)

                var report = try await collector.run(settings)
                #expect(report.recordingsDeleted.isEmpty && report.recordingsWaiting == 0)

                // The session is deleted: its takes' rows go with it (the database's cascade).
                try await store.serial { db in try await db.raw("DELETE FROM sessions WHERE id = 's2'").run() }
                #expect(try await store.recording(id: "rec_gone") == nil)
                #expect(try await store.recording(id: "rec_kept") != nil)
                report = try await collector.run(settings)
                // Written a moment ago: kept for the grace period (another node may be starting it).
                #expect(report.recordingsDeleted.isEmpty && report.recordingsWaiting == 2, "\(report)")

                clock.advance(BlobCollectionTests.grace + 60)
                // A take another node has just begun (its file before its row): written "now".
                try Self.writeTake("rec_starting", in: recordings, packaged: false)
                try Self.setModified(recordings.appendingPathComponent("rec_starting.webm"), clock.now)
                let dry = try await collector.run(BlobCollector.Settings(grace: BlobCollectionTests.grace, dryRun: true))
                #expect(Set(dry.recordingsDeleted) == ["rec_gone", "rec_gone2"])
                #expect(FileManager.default.fileExists(atPath: recordings.appendingPathComponent("rec_gone.webm").path))

                report = try await collector.run(settings)
                #expect(Set(report.recordingsDeleted) == ["rec_gone", "rec_gone2"], "\(report)")
                #expect(report.recordingsWaiting == 1)
                // Chunks of both, the HLS of one (playlists, init, segment), the other's work directory.
                #expect(report.recordingBytes == 3014 + 3015 + 72 + 76 + 800 + 5000 + 100, "\(report.recordingBytes)")
                #expect(report.summary.contains("2 deleted audio take(s)"), "\(report.summary)")
                let left = Set(try FileManager.default.contentsOfDirectory(atPath: recordings.path))
                #expect(left == ["rec_kept.webm", "rec_kept", "rec_starting.webm"], "\(left)")
                #expect(RecordingFiles.files(of: "rec_kept", in: recordings).count == 5)
            }
        }
    }

    /// The backup, restore and check of a data directory (SQLite) or a database (PostgreSQL) with
    /// a packaged take and one still recording: the real `podium` binary.
    @Test(arguments: TestStores.kinds) func backupAndRestoreBringTheTakesFilesBack(_ kind: StoreKind) async throws {
        let root = DataDirectoryTests.temporaryDirectory("recordings-backup")
        defer { try? FileManager.default.removeItem(at: root) }
        let (names, _) = try DataDirectoryTests.makeBlobs(root.appendingPathComponent("live/blobs"))
        let blobs = root.appendingPathComponent("live/blobs")
        let recordings = blobs.appendingPathComponent("recordings")
        var databases: [String] = []
        defer { databases.forEach(TestStores.dropDatabaseNow) }
        func location(_ name: String, blobs: URL) async throws -> [String] {
            switch kind {
            case .sqlite: return ["--data-dir", root.appendingPathComponent(name).path]
            case .postgres:
                let url = try await TestStores.createDatabase()
                databases.append(url)
                return ["--database-url", url, "--blob-dir", blobs.path]
            }
        }
        let live = try await location("live", blobs: blobs)
        let store: SQLStore
        switch kind {
        case .sqlite:
            store = try await SQLStore.openSQLite(
                path: root.appendingPathComponent("live/podium.sqlite").path, logger: TestServer.logger())
        case .postgres: store = try await SQLStore.openPostgres(url: live[1], maximumConnections: 2, logger: TestServer.logger())
        }
        do {
            try await DataDirectoryTests.fill(store, blobs: names)
            try await Self.insertTake(store, "rec_ready", session: "s1", status: .ready)
            try await Self.insertTake(store, "rec_live", session: "s1", status: .recording)
            try await store.close()
        } catch {
            try? await store.close()
            throw error
        }
        try Self.writeTake("rec_ready", in: recordings, packaged: true)
        try Self.writeTake("rec_live", in: recordings, packaged: false)
        // A deleted session's take, not in the database: not backed up.
        try Self.writeTake("rec_orphan", in: recordings, packaged: true)

        let target = root.appendingPathComponent("backup")
        let backup = try await DataDirectoryTests.podium(["backup", target.path, "--json"] + live)
        #expect(backup.status == 0, "\(backup.errors)")
        let summary = try DataDirectoryTests.json(backup.output)
        let counted = try #require(summary["recordings"] as? [String: Any], "\(summary)")
        #expect(counted["takes"] as? Int == 2 && counted["files"] as? Int == 6, "\(counted)")
        #expect(FileManager.default.fileExists(atPath: target.appendingPathComponent("recordings/rec_ready/seg-00000.m4s").path))
        #expect(!FileManager.default.fileExists(atPath: target.appendingPathComponent("recordings/rec_orphan.webm").path))

        let restoredBlobs = root.appendingPathComponent("restored/blobs")
        let restoredAt = try await location("restored", blobs: restoredBlobs)
        let restore = try await DataDirectoryTests.podium(["restore", target.path, "--json"] + restoredAt)
        #expect(restore.status == 0, "\(restore.errors)")
        #expect(try DataDirectoryTests.json(restore.output)["recordingFilesRestored"] as? Int == 6)
        let restoredRecordings = restoredBlobs.appendingPathComponent("recordings")
        for file in [
            "rec_ready.webm", "rec_ready/master.m3u8", "rec_ready/index.m3u8", "rec_ready/init.mp4",
            "rec_ready/seg-00000.m4s", "rec_live.webm",
        ] {
            #expect(
                FileManager.default.contents(atPath: restoredRecordings.appendingPathComponent(file).path)
                    == FileManager.default.contents(atPath: recordings.appendingPathComponent(file).path), "\(file)")
        }

        var check = try await DataDirectoryTests.podium(["check", "--json"] + restoredAt)
        var report = try DataDirectoryTests.json(check.output)
        #expect(check.status == 0, "\(check.output) \(check.errors)")
        #expect(report["recordingTakes"] as? Int == 2 && report["recordingOrphans"] as? [String] == [])
        // The live installation: the orphan is listed with its bytes, nothing is a problem.
        check = try await DataDirectoryTests.podium(["check", "--json"] + live)
        report = try DataDirectoryTests.json(check.output)
        #expect(report["recordingOrphans"] as? [String] == ["rec_orphan"], "\(report)")
        #expect(report["recordingOrphanBytes"] as? Int == 3016 + 72 + 76 + 800 + 5000, "\(report)")
        // A packaged take whose files are lost, and a take recording without its chunks: problems.
        try FileManager.default.removeItem(at: restoredRecordings.appendingPathComponent("rec_ready"))
        try FileManager.default.removeItem(at: restoredRecordings.appendingPathComponent("rec_live.webm"))
        check = try await DataDirectoryTests.podium(["check", "--json"] + restoredAt)
        report = try DataDirectoryTests.json(check.output)
        #expect(check.status != 0)
        let problems = (report["problems"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
        #expect(problems.contains("audio take rec_ready is ready but its HLS files are missing"), "\(problems)")
        #expect(problems.contains("audio take rec_live is recording but its chunks file is missing"), "\(problems)")
    }
}
