import Foundation
import Logging
import PodiumCore
import Synchronization
import Testing

@testable import PodiumServer
@testable import PodiumStore

/// Garbage collection of blobs (BlobCollector, `podium gc`, the server's schedule) on SQLite and
/// PostgreSQL, with the clock moved by hand: a deleted deck's PDF and page images go only after
/// the grace period; what a row names never goes; a blob named again between mark and sweep, a
/// blob written a moment ago, and everything while a backup runs, survive; a dry run deletes
/// nothing; the bytes given back are reported.
@Suite("Blob collection", .timeLimit(.minutes(2)))
struct BlobCollectionTests {
    static let hour: TimeInterval = 3600
    static let grace: TimeInterval = 24 * hour

    /// A blob store in a new directory, removed afterwards.
    static func withBlobs<T>(_ body: (FileBlobStore) async throws -> T) async throws -> T {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("podium-gc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        return try await body(try FileBlobStore(root: root))
    }

    /// Stores `bytes` random bytes as a blob.
    static func put(_ blobs: FileBlobStore, bytes: Int, ext: String) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("podium-gc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data((0..<bytes).map { _ in UInt8.random(in: 0...255) }).write(to: file)
        return try blobs.put(fileAt: file, fileExtension: ext)
    }

    static func size(_ blobs: FileBlobStore, _ name: String) throws -> Int64 {
        let url = try #require(blobs.file(named: name))
        return (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// A user and a ready deck `id` whose source is `pdf` and whose pages show `images`.
    static func insertDeck(_ store: SQLStore, id: String, pdf: String, images: [String]) async throws {
        if try await store.userCount() == 0 {
            try await store.insertUser(
                UserRecord(id: "u1", email: "ada@example.org", name: "Ada", role: .admin, passwordHash: "h", createdAt: Date()))
        }
        var deck = DeckRecord(
            id: id, ownerId: "u1", folderId: nil, title: "Deck", status: .processing, sourceHash: pdf, sourceBytes: 10,
            createdAt: Date())
        try await store.insertDeck(deck)
        deck.status = .ready
        deck.pageCount = images.count
        let pages = images.enumerated().map { index, image in
            PageRecord(
                deckId: id, number: index + 1, width: 800, height: 600, text: "", largeImage: image, mediumImage: image,
                thumbnailImage: image)
        }
        try await store.completeDeck(deck, pages: pages)
    }

    static func collector(_ store: SQLStore, _ blobs: FileBlobStore, clock: SteppedClock, holder: String = "test")
        -> BlobCollector
    {
        BlobCollector(store: store, root: blobs.root, holder: holder, logger: Logger(label: "gc"), now: { clock.now })
    }

    /// Now, to the microsecond PostgreSQL keeps.
    static func start() -> Date { Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1e6).rounded() / 1e6) }

    @Test(arguments: TestStores.kinds) func aDeletedDecksBlobsGoOnlyAfterTheGracePeriod(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await Self.withBlobs { blobs in
                let pdf = try Self.put(blobs, bytes: 3000, ext: "pdf")
                let images = try (1...3).map { _ in try Self.put(blobs, bytes: 1000, ext: "jpg") }
                let kept = try Self.put(blobs, bytes: 500, ext: "pdf")
                let keptImage = try Self.put(blobs, bytes: 700, ext: "jpg")
                try await Self.insertDeck(store, id: "gone", pdf: pdf, images: images)
                try await Self.insertDeck(store, id: "kept", pdf: kept, images: [keptImage])
                let clock = SteppedClock(Self.start())
                let collector = Self.collector(store, blobs, clock: clock)
                let settings = BlobCollector.Settings(grace: Self.grace)

                var report = try await collector.run(settings)
                #expect(report.ran && report.blobs == 6 && report.referenced == 6 && report.unreferenced == 0)
                #expect(report.deleted.isEmpty)

                try await store.deleteDeck(id: "gone")
                clock.advance(Self.hour)
                report = try await collector.run(settings)  // marks them
                #expect(report.unreferenced == 4 && report.waiting == 4 && report.deleted.isEmpty)
                #expect(Set(try await store.blobMarks().keys) == Set([pdf] + images))

                clock.advance(Self.grace - 60)  // not quite a day since they were marked
                report = try await collector.run(settings)
                #expect(report.deleted.isEmpty && report.waiting == 4)
                for name in [pdf] + images { #expect(blobs.file(named: name) != nil) }

                clock.advance(120)
                report = try await collector.run(settings)
                #expect(Set(report.deleted) == Set([pdf] + images))
                #expect(report.bytes == 3000 + 3 * 1000)
                for name in [pdf] + images { #expect(blobs.file(named: name) == nil) }
                // What the other deck names is never touched.
                #expect(blobs.file(named: kept) != nil && blobs.file(named: keptImage) != nil)
                #expect(try await store.blobMarks().isEmpty)
                #expect(report.summary.contains("deleted 4"), "\(report.summary)")

                clock.advance(30 * 24 * Self.hour)
                report = try await collector.run(settings)
                #expect(report.deleted.isEmpty && report.blobs == 2 && report.unreferenced == 0)
            }
        }
    }

    @Test(arguments: TestStores.kinds) func aBlobNamedAgainBetweenMarkAndSweepSurvives(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await Self.withBlobs { blobs in
                let pdf = try Self.put(blobs, bytes: 2000, ext: "pdf")
                let image = try Self.put(blobs, bytes: 800, ext: "png")
                let clock = SteppedClock(Self.start())
                let collector = Self.collector(store, blobs, clock: clock)
                let settings = BlobCollector.Settings(grace: Self.grace)

                var report = try await collector.run(settings)  // no row names them yet: marked
                #expect(report.waiting == 2)
                #expect(Set(try await store.blobMarks().keys) == [pdf, image])
                // The same file uploaded again: a new deck names both.
                try await Self.insertDeck(store, id: "again", pdf: pdf, images: [image])
                clock.advance(Self.grace + Self.hour)
                report = try await collector.run(settings)
                #expect(report.deleted.isEmpty && report.unreferenced == 0)
                #expect(try await store.blobMarks().isEmpty)  // unmarked
                #expect(blobs.file(named: pdf) != nil && blobs.file(named: image) != nil)

                // Deleted again: the grace period starts over.
                try await store.deleteDeck(id: "again")
                clock.advance(Self.hour)
                report = try await collector.run(settings)
                #expect(report.deleted.isEmpty && report.waiting == 2)
                clock.advance(Self.grace - 60)
                report = try await collector.run(settings)
                #expect(report.deleted.isEmpty && report.waiting == 2)
                clock.advance(120)
                report = try await collector.run(settings)
                #expect(Set(report.deleted) == [pdf, image] && report.bytes == 2800)
            }
        }
    }

    /// A row that names a blob between the run's two reads of the reference list (another node
    /// finishing an upload while this one collects): the second read keeps it.
    @Test(arguments: TestStores.kinds) func aBlobNamedDuringTheRunSurvives(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { base in
            try await Self.withBlobs { blobs in
                let pdf = try Self.put(blobs, bytes: 1500, ext: "pdf")
                let clock = SteppedClock(Self.start())
                _ = try await Self.collector(base, blobs, clock: clock).run(.init(grace: Self.grace))
                clock.advance(Self.grace + Self.hour)
                let store = NamingStore(base: base) { try await Self.insertDeck(base, id: "late", pdf: pdf, images: []) }
                let report = try await BlobCollector(
                    store: store, root: blobs.root, holder: "test", logger: Logger(label: "gc"), now: { clock.now }
                ).run(.init(grace: Self.grace))
                #expect(report.deleted.isEmpty && report.referencedAgain == 1)
                #expect(blobs.file(named: pdf) != nil)
            }
        }
    }

    @Test(arguments: TestStores.kinds) func aFreshBlobWithNoRowYetSurvives(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await Self.withBlobs { blobs in
                let settings = BlobCollector.Settings(grace: Self.grace)
                // Written a moment ago, its row not yet stored: marked, kept.
                let upload = try Self.put(blobs, bytes: 1200, ext: "pdf")
                let now = Self.start()
                var report = try await Self.collector(store, blobs, clock: SteppedClock(now)).run(settings)
                #expect(report.unreferenced == 1 && report.waiting == 1 && report.deleted.isEmpty)

                // Marked long ago (a deck deleted two days ago), then the same bytes put again a
                // moment ago, its row not yet written: the file's time keeps it.
                let old = try Self.put(blobs, bytes: 900, ext: "jpg")
                let file = try #require(blobs.file(named: old))
                try FileManager.default.setAttributes(
                    [.modificationDate: Date().addingTimeInterval(-3 * Self.grace)], ofItemAtPath: file.path)
                _ = try await store.markUnreferencedBlobs([upload, old], at: now.addingTimeInterval(-2 * Self.grace))
                let source = FileManager.default.temporaryDirectory.appendingPathComponent("podium-gc-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: source) }
                try FileManager.default.copyItem(at: file, to: source)
                #expect(try blobs.put(fileAt: source, fileExtension: "jpg") == old)  // put again

                report = try await Self.collector(store, blobs, clock: SteppedClock(now.addingTimeInterval(60))).run(settings)
                #expect(report.deleted.isEmpty, "\(report)")
                #expect(report.recentlyWritten == 1)  // the blob put again
                #expect(report.waiting == 1)  // the upload: its mark (from the first run) keeps its time
                #expect(blobs.file(named: old) != nil && blobs.file(named: upload) != nil)
            }
        }
    }

    @Test(arguments: TestStores.kinds) func nothingIsDeletedWhileABackupRuns(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await Self.withBlobs { blobs in
                let orphan = try Self.put(blobs, bytes: 4096, ext: "mp4")
                let clock = SteppedClock(Self.start())
                let collector = Self.collector(store, blobs, clock: clock)
                _ = try await collector.run(.init(grace: Self.grace))
                clock.advance(Self.grace + Self.hour)

                let backup = try BlobStoreLock.backup(blobs.root)
                // A deleted video's removal leaves it too (for the collector).
                try blobs.remove(named: orphan)
                #expect(blobs.file(named: orphan) != nil)
                var report = try await collector.run(.init(grace: Self.grace))
                #expect(report.backupInProgress && report.deleted.isEmpty && report.bytes == 0)
                #expect(blobs.file(named: orphan) != nil)
                #expect(report.summary.contains("backup is in progress"))
                backup.release()

                clock.advance(Self.hour)
                report = try await collector.run(.init(grace: Self.grace))
                #expect(!report.backupInProgress && report.deleted == [orphan] && report.bytes == 4096)
            }
        }
    }

    /// `podium backup` holds the blob store's lock from its snapshot to its last blob.
    @Test func aBackupHoldsTheCollectorOff() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("podium-gc-backup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let data = root.appendingPathComponent("data")
        let blobs = try FileBlobStore(root: data.appendingPathComponent("blobs"))
        let path = data.appendingPathComponent(DataLocation.sqliteFileName).path
        let store = try await SQLStore.openSQLite(path: path, logger: Logger(label: "gc"))
        do {
            try await Self.insertDeck(
                store, id: "d", pdf: try Self.put(blobs, bytes: 100, ext: "pdf"),
                images: [try Self.put(blobs, bytes: 100, ext: "jpg")])
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
        let heldDuringBlobs = Mutex<[Bool]>([])
        let location = DataLocation(database: .sqlite(path: path), blobRoot: blobs.root, dataDirectory: data)
        _ = try await DataDirectoryBackup.run(
            from: location, to: root.appendingPathComponent("backup"), logger: Logger(label: "gc"),
            progress: { step in
                guard step.phase == "blobs" || step.phase == "database" else { return }
                let free = (try? BlobStoreLock.deletingIfNoBackup(blobs.root)).flatMap { $0 }
                free?.release()
                heldDuringBlobs.withLock { $0.append(free == nil) }
            })
        let held = heldDuringBlobs.withLock { $0 }
        #expect(!held.isEmpty && held.allSatisfy { $0 }, "\(held)")
        // Afterwards it is free again, and deleters do not hold each other off.
        let after = try #require(try BlobStoreLock.deletingIfNoBackup(blobs.root))
        let another = try #require(try BlobStoreLock.deletingIfNoBackup(blobs.root))
        after.release()
        another.release()
    }

    @Test(arguments: TestStores.kinds) func aDryRunDeletesNothing(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await Self.withBlobs { blobs in
                let orphan = try Self.put(blobs, bytes: 2048, ext: "jpg")
                let clock = SteppedClock(Self.start())
                let collector = Self.collector(store, blobs, clock: clock)
                var report = try await collector.run(.init(grace: Self.grace, dryRun: true))
                #expect(report.ran && report.dryRun && report.unreferenced == 1 && report.waiting == 1)
                #expect(try await store.blobMarks().isEmpty)  // a dry run marks nothing

                _ = try await collector.run(.init(grace: Self.grace))  // marks
                clock.advance(Self.grace + Self.hour)
                report = try await collector.run(.init(grace: Self.grace, dryRun: true))
                #expect(report.deleted == [orphan] && report.bytes == 2048)
                #expect(report.summary.contains("would delete 1"), "\(report.summary)")
                #expect(blobs.file(named: orphan) != nil)
                #expect(try await store.blobMarks().keys.contains(orphan))
            }
        }
    }

    /// Nodes on one database: one collects at a time, and the schedule's interval counts from the
    /// last run of any node.
    @Test(arguments: TestStores.kinds) func oneNodeCollectsAtATime(_ kind: StoreKind) async throws {
        let (first, second, close) = try await TestStores.openNodes(kind)
        defer { Task { await close() } }
        let t0 = Self.start()
        let later = t0.addingTimeInterval(60)
        #expect(try await first.claimBlobCollection(holder: "a", at: t0, leaseUntil: t0 + Self.hour, startedBefore: nil))
        #expect(
            !(try await second.claimBlobCollection(holder: "b", at: later, leaseUntil: later + Self.hour, startedBefore: nil)))
        try await second.finishBlobCollection(holder: "b", at: later)  // not b's to give back
        #expect(
            !(try await second.claimBlobCollection(holder: "b", at: later, leaseUntil: later + Self.hour, startedBefore: nil)))
        try await first.finishBlobCollection(holder: "a", at: later)
        // Due only once the last run started before the interval.
        #expect(!(try await second.claimBlobCollection(holder: "b", at: later, leaseUntil: later + Self.hour, startedBefore: t0)))
        #expect(try await second.claimBlobCollection(holder: "b", at: later, leaseUntil: later + Self.hour, startedBefore: later))
        // A node that died holding it: its lease ends.
        let dead = later.addingTimeInterval(Self.hour + 1)
        #expect(try await first.claimBlobCollection(holder: "a", at: dead, leaseUntil: dead + Self.hour, startedBefore: nil))
        await close()
    }

    /// The server's schedule: runs when due (the last run, by any node, an interval ago), logs and
    /// counts what it gave back.
    @Test(arguments: TestStores.kinds) func theScheduleRunsWhenDueAndCountsWhatItGaveBack(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await Self.withBlobs { blobs in
                let orphan = try Self.put(blobs, bytes: 3333, ext: "ts")
                let clock = SteppedClock(Self.start())
                let service = BlobCollectionService(
                    store: store, root: blobs.root,
                    settings: .init(interval: Self.grace, check: .seconds(60), collector: .init(grace: Self.grace)),
                    logger: Logger(label: "gc"), now: { clock.now })
                let first = try #require(await service.runIfDue())
                #expect(first.waiting == 1)
                clock.advance(Self.hour)
                #expect(await service.runIfDue() == nil)  // ran an hour ago
                let counted = Self.counter("podium_blob_bytes_collected_total")
                clock.advance(Self.grace)
                let second = try #require(await service.runIfDue())
                #expect(second.deleted == [orphan] && second.bytes == 3333)
                #expect(Self.counter("podium_blob_bytes_collected_total") >= counted + 3333)
            }
        }
    }

    /// The reference list is `podium check`'s, over every table: with a row in each (the
    /// migrate-data fixture), it names a video's source, a storyboard export, the channel venue's
    /// image, a radio track's source and the segments in its JSON, and a deck's pages; never a
    /// name only the collector's own marks hold.
    @Test(arguments: TestStores.kinds) func theReferenceListCoversEveryTable(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await MigrateDataTests.fill(store)
            try await Self.insertDeck(
                store, id: "dx", pdf: String(repeating: "e", count: 64) + ".pdf",
                images: [String(repeating: "f", count: 64) + ".jpg"])
            let names = try await store.referencedBlobNames()
            let expected = [("a", "video"), ("b", "pdf"), ("c", "jpg"), ("c", "audio"), ("d", "ts"), ("e", "pdf"), ("f", "jpg")]
            for (digit, ext) in expected {
                let name = String(repeating: digit, count: 64) + "." + ext
                #expect(names.contains(name), "\(name) is not in the reference list")
            }
            #expect(try await store.blobMarks().keys.contains(String(repeating: "b", count: 64) + ".jpg"))
            #expect(!names.contains(String(repeating: "b", count: 64) + ".jpg"))  // only marked
        }
    }

    /// `buildApplication` runs the schedule as one of the server's services, as configured.
    @Test(arguments: TestStores.kinds) func theServerCollectsOnItsSchedule(_ kind: StoreKind) async throws {
        let server = TestServer(store: kind) {
            $0.blobCollectionInterval = Self.grace
            $0.blobCollectionCheck = .milliseconds(50)
            $0.blobCollectionGrace = 0  // delete at once: this tests the wiring, not the grace period
        }
        defer { server.removeData() }
        let blobs = try FileBlobStore(root: server.configuration.blobDirectory)
        let orphan = try Self.put(blobs, bytes: 1000, ext: "jpg")
        try await server.run { _ in
            try await waitUntil("the server collects the orphan", seconds: 15) { blobs.file(named: orphan) == nil }
        }
    }

    /// A counter's value in the metrics' exposition (0 when absent).
    static func counter(_ name: String) -> Int64 {
        for line in PodiumMetrics.shared.exposition().split(separator: "\n") where line.hasPrefix(name + " ") {
            return Int64(line.split(separator: " ").last.flatMap { Double($0) } ?? 0)
        }
        return 0
    }

    /// A database file read beside the server's own connection (SQLite's collector reads on a
    /// connection of its own): the same list.
    @Test func aSQLiteFileIsReadOnAConnectionOfItsOwn() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("podium-gc-file-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let blobs = try FileBlobStore(root: root.appendingPathComponent("blobs"))
        let store = try await SQLStore.openSQLite(
            path: root.appendingPathComponent("podium.sqlite").path, logger: Logger(label: "gc"))
        do {
            let pdf = try Self.put(blobs, bytes: 100, ext: "pdf")
            let image = try Self.put(blobs, bytes: 100, ext: "jpg")
            try await Self.insertDeck(store, id: "d", pdf: pdf, images: [image])
            #expect(try await store.referencedBlobNames() == [pdf, image])
            // Marks are bookkeeping, not references.
            _ = try await store.markUnreferencedBlobs([String(repeating: "a", count: 64) + ".jpg"], at: Date())
            #expect(try await store.referencedBlobNames() == [pdf, image])
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    /// `podium gc`: marks, then (its grace period over) deletes and prints the space given back;
    /// `--dry-run` deletes nothing.
    @Test func theCommandShowsTheSpaceGivenBack() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("podium-gc-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let blobs = try FileBlobStore(root: data.appendingPathComponent("blobs"))
        let store = try await SQLStore.openSQLite(
            path: data.appendingPathComponent(DataLocation.sqliteFileName).path, logger: Logger(label: "gc"))
        let kept = try Self.put(blobs, bytes: 100, ext: "pdf")
        do {
            try await Self.insertDeck(store, id: "d", pdf: kept, images: [])
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
        let orphan = try Self.put(blobs, bytes: 5000, ext: "jpg")
        let file = try #require(blobs.file(named: orphan))
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-3 * Self.grace)], ofItemAtPath: file.path)

        var result = try await MigrateDataTests.podium(["gc", "--data-dir", data.path])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("deleted 0"), "\(result.output)")
        // Nothing old enough marked yet: the grace period counts from the first run that saw it.
        result = try await MigrateDataTests.podium(["gc", "--data-dir", data.path, "--grace-hours", "0", "--dry-run", "--json"])
        #expect(result.status == 0, "\(result.errors)")
        let dry = try DataDirectoryTests.json(result.output)
        #expect(dry["deleted"] as? [String] == [orphan] && dry["bytes"] as? Int == 5000 && dry["dryRun"] as? Bool == true)
        #expect(blobs.file(named: orphan) != nil)

        result = try await MigrateDataTests.podium(["gc", "--data-dir", data.path, "--grace-hours", "0"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("deleted 1 (5 KB given back)"), "\(result.output)")
        #expect(blobs.file(named: orphan) == nil && blobs.file(named: kept) != nil)

        let check = try await MigrateDataTests.podium(["check", "--data-dir", data.path, "--json"])
        #expect(try DataDirectoryTests.json(check.output)["orphans"] as? [String] == [])
    }
}

/// The real store, except that the second read of the reference list comes after `between` ran
/// (a row another node stores while this one collects).
final class NamingStore: BlobCollectionStore {
    let base: SQLStore
    let between: @Sendable () async throws -> Void
    private let reads = Atomic<Int>(0)

    init(base: SQLStore, between: @escaping @Sendable () async throws -> Void) {
        self.base = base
        self.between = between
    }

    func referencedBlobNames() async throws -> Set<String> {
        if reads.add(1, ordering: .relaxed).newValue == 2 { try await between() }
        return try await base.referencedBlobNames()
    }

    func recordingTakeIds() async throws -> Set<String> { try await base.recordingTakeIds() }

    func blobMarks() async throws -> [String: Date] { try await base.blobMarks() }

    func markUnreferencedBlobs(_ names: Set<String>, at now: Date) async throws -> [String: Date] {
        try await base.markUnreferencedBlobs(names, at: now)
    }

    func unmarkBlobs(_ names: [String]) async throws { try await base.unmarkBlobs(names) }

    func claimBlobCollection(holder: String, at now: Date, leaseUntil: Date, startedBefore: Date?) async throws -> Bool {
        try await base.claimBlobCollection(holder: holder, at: now, leaseUntil: leaseUntil, startedBefore: startedBefore)
    }

    func finishBlobCollection(holder: String, at now: Date) async throws {
        try await base.finishBlobCollection(holder: holder, at: now)
    }
}
