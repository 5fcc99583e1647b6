import Foundation
import Logging

/// Garbage collection of blobs: deletes the blobs no row of the database names any more (a
/// deleted deck's PDF and page images, a deleted video's segments, a radio track's files), and
/// only when that is safe. Mark, then sweep:
///
/// 1. The files of the blob store are listed, then the database's reference list is read
///    (``BlobCollectionStore/referencedBlobNames()``, the list `podium check` and `backup` use).
/// 2. Each unreferenced blob is marked in the store with when a run first found it so; the mark
///    of a blob referenced again (or gone) is removed.
/// 3. A blob is deleted only when its mark is at least `grace` old, it is still unreferenced
///    (the list is read again just before deleting), and its file was not written (or put again)
///    within `grace` either. A blob is written before the row that names it, by this node or by
///    another sharing the database and the blob directory, so a blob seen without a row may be
///    one whose row is a moment away: the grace period (a day by default) is what keeps it.
/// 4. Deleting holds ``BlobStoreLock`` (shared): while a `podium backup` holds it (exclusively,
///    from its database snapshot to its last copied blob), nothing is deleted that run.
///
/// Runs are one at a time across every node on one database: a run takes the store's lease
/// (``BlobCollectionStore/claimBlobCollection(holder:at:leaseUntil:startedBefore:)``) and gives
/// it back at the end; a node that died gives it up when its lease ends. A dry run changes
/// nothing at all (no marks, no lease): it reports what a run would delete now.
public struct BlobCollector: Sendable {
    public struct Settings: Sendable {
        /// How long a blob must have been seen unreferenced, and its file unwritten, before it goes.
        public var grace: TimeInterval = 24 * 3600
        /// Report what would be deleted, delete nothing, write nothing.
        public var dryRun = false
        /// How long a run may hold the lease before another node may take it (the node died).
        public var lease: TimeInterval = 3600

        public init(grace: TimeInterval = 24 * 3600, dryRun: Bool = false) {
            self.grace = grace
            self.dryRun = dryRun
        }
    }

    public struct Report: Codable, Sendable, Equatable {
        public var startedAt: Date
        public var dryRun: Bool
        /// False when another node was collecting (or had collected within the interval): nothing was looked at.
        public var ran: Bool
        /// Files in the blob store.
        public var blobs: Int
        /// Blob names the database mentions.
        public var referenced: Int
        /// Files the database does not mention.
        public var unreferenced: Int
        /// Unreferenced blobs kept for now: within their grace period (newly marked included).
        public var waiting: Int
        /// Unreferenced for longer than the grace period, but their file was written (or put
        /// again) within it: kept.
        public var recentlyWritten: Int
        /// Referenced again between the two reads of the reference list: kept (and unmarked next run).
        public var referencedAgain: Int
        /// A backup held the blob store's lock: nothing was deleted this run.
        public var backupInProgress: Bool
        /// Deleted (a dry run: would be deleted).
        public var deleted: [String]
        /// The bytes given back (a dry run: would be given back).
        public var bytes: Int64
        public var seconds: Double
        /// Audio takes whose files were deleted (a dry run: would be): no row names them any more
        /// (their session was deleted) and nothing of theirs was written within the grace period.
        public var recordingsDeleted: [String] = []
        /// Their bytes.
        public var recordingBytes: Int64 = 0
        /// Takes with files and no row, kept for now: written within the grace period.
        public var recordingsWaiting: Int = 0

        static func empty(at date: Date, dryRun: Bool) -> Report {
            Report(
                startedAt: date, dryRun: dryRun, ran: false, blobs: 0, referenced: 0, unreferenced: 0, waiting: 0,
                recentlyWritten: 0, referencedAgain: 0, backupInProgress: false, deleted: [], bytes: 0, seconds: 0)
        }
    }

    let store: any BlobCollectionStore
    let root: URL
    let holder: String
    let logger: Logger
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - holder: who collects, for the lease (a node's name and process).
    ///   - now: the clock (tests move it on by days).
    public init(
        store: any BlobCollectionStore, root: URL, holder: String = BlobCollector.defaultHolder, logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.root = root
        self.holder = holder
        self.logger = logger
        self.now = now
    }

    /// This host and process.
    public static var defaultHolder: String {
        "\(ProcessInfo.processInfo.hostName) pid \(ProcessInfo.processInfo.processIdentifier)"
    }

    /// One run. `startedBefore`: run only if the last run (of any node) started before then (the
    /// server's schedule); nil: run unless one is under way (the command).
    public func run(_ settings: Settings, startedBefore: Date? = nil) async throws -> Report {
        let started = now()
        let clock = ContinuousClock.now
        var report = Report.empty(at: started, dryRun: settings.dryRun)
        if !settings.dryRun {
            let claimed = try await store.claimBlobCollection(
                holder: holder, at: started, leaseUntil: started.addingTimeInterval(settings.lease),
                startedBefore: startedBefore)
            guard claimed else { return report }
        }
        report.ran = true
        do {
            try await collect(settings, into: &report)
        } catch {
            if !settings.dryRun { try? await store.finishBlobCollection(holder: holder, at: now()) }
            throw error
        }
        if !settings.dryRun { try await store.finishBlobCollection(holder: holder, at: now()) }
        let elapsed = ContinuousClock.now - clock
        report.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return report
    }

    private func collect(_ settings: Settings, into report: inout Report) async throws {
        try await collectRecordings(settings, into: &report)
        let date = report.startedAt
        let cutoff = date.addingTimeInterval(-settings.grace)
        // The files first: one written after this listing is not looked at this run.
        let files = Self.files(in: root)
        let referenced = try await store.referencedBlobNames()
        let unreferenced = Set(files.keys).subtracting(referenced)
        report.blobs = files.count
        report.referenced = referenced.count
        report.unreferenced = unreferenced.count
        let marks =
            settings.dryRun
            ? try await store.blobMarks() : try await store.markUnreferencedBlobs(unreferenced, at: date)
        var candidates: [String] = []
        for name in unreferenced.sorted() {
            // A dry run does not mark: what it sees unmarked would be marked now.
            // Within a millisecond: a date read back from the database is rounded (SQLite keeps
            // a double, PostgreSQL microseconds), and a mark made this run is as old as `now`.
            guard let since = marks[name], since.timeIntervalSince(cutoff) < 0.001 else {
                report.waiting += 1
                continue
            }
            candidates.append(name)
        }
        guard !candidates.isEmpty else { return }

        let hold: BlobStoreLock?
        if settings.dryRun {
            hold = nil
        } else {
            guard let taken = try BlobStoreLock.deletingIfNoBackup(root) else {
                report.backupInProgress = true
                logger.notice("blob collection: a backup is in progress; nothing deleted this run")
                return
            }
            hold = taken
        }
        defer { hold?.release() }
        // Read again, now that no backup can start: what a row names since the first read stays.
        let stillReferenced = try await store.referencedBlobNames()
        var deleted: [String] = []
        for name in candidates {
            if stillReferenced.contains(name) {
                report.referencedAgain += 1
                continue
            }
            guard let url = files[name] else { continue }
            // Written, or put again (FileBlobStore.put touches an existing blob), within the grace period.
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            guard let attributes else { continue }  // gone meanwhile
            if let modified = attributes[.modificationDate] as? Date, modified > cutoff {
                report.recentlyWritten += 1
                continue
            }
            let bytes = (attributes[.size] as? NSNumber)?.int64Value ?? 0
            if !settings.dryRun {
                do {
                    try FileManager.default.removeItem(at: url)
                } catch {
                    logger.error("blob collection: could not delete \(name): \(error)")
                    continue
                }
            }
            deleted.append(name)
            report.bytes += bytes
        }
        report.deleted = deleted
        if !settings.dryRun { try await store.unmarkBlobs(deleted) }
    }

    /// The files of audio takes no row names any more (``RecordingFiles``: a deleted session's
    /// takes go with it by the database's cascade, their files stay): deleted once nothing of a
    /// take was written within the grace period. The files are listed before the rows are read,
    /// and the rows read again under the lock before deleting, so a take another node is
    /// starting (its file is made a moment before its row) or still sending to is kept; a take's
    /// id is never used again, so no mark is needed. A backup holding the lock defers it all.
    private func collectRecordings(_ settings: Settings, into report: inout Report) async throws {
        let directory = root.appendingPathComponent(RecordingFiles.directoryName, isDirectory: true)
        let onDisk = RecordingFiles.takesOnDisk(in: directory)
        guard !onDisk.isEmpty else { return }
        let known = try await store.recordingTakeIds()
        let cutoff = report.startedAt.addingTimeInterval(-settings.grace)
        var candidates: [(id: String, entries: [URL], bytes: Int64)] = []
        for (id, entries) in onDisk.sorted(by: { $0.key < $1.key }) where !known.contains(id) {
            let usage = RecordingFiles.usage(of: entries)
            if usage.lastWritten > cutoff {
                report.recordingsWaiting += 1
            } else {
                candidates.append((id, entries, usage.bytes))
            }
        }
        guard !candidates.isEmpty else { return }
        let hold: BlobStoreLock?
        if settings.dryRun {
            hold = nil
        } else {
            guard let taken = try BlobStoreLock.deletingIfNoBackup(root) else {
                report.backupInProgress = true
                logger.notice("blob collection: a backup is in progress; no audio take's files deleted this run")
                return
            }
            hold = taken
        }
        defer { hold?.release() }
        let stillKnown = try await store.recordingTakeIds()
        for candidate in candidates where !stillKnown.contains(candidate.id) {
            if !settings.dryRun {
                do {
                    for entry in candidate.entries where FileManager.default.fileExists(atPath: entry.path) {
                        try FileManager.default.removeItem(at: entry)
                    }
                } catch {
                    logger.error("blob collection: could not delete the files of audio take \(candidate.id): \(error)")
                    continue
                }
            }
            report.recordingsDeleted.append(candidate.id)
            report.recordingBytes += candidate.bytes
        }
    }

    /// The blob files under `root/ab/`, by name (writes under way, `.….tmp`, and other files left out).
    static func files(in root: URL) -> [String: URL] {
        let fileManager = FileManager.default
        var files: [String: URL] = [:]
        for prefix in (try? fileManager.contentsOfDirectory(atPath: root.path)) ?? [] {
            let directory = root.appendingPathComponent(prefix)
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                continue
            }
            for name in (try? fileManager.contentsOfDirectory(atPath: directory.path)) ?? [] {
                guard FileBlobStore.isValidName(name), name.hasPrefix(prefix) else { continue }
                files[name] = directory.appendingPathComponent(name)
            }
        }
        return files
    }
}

extension BlobCollector.Report {
    /// One line for a log or a terminal.
    public var summary: String {
        guard ran else { return "blob collection: another run is under way or was recent; nothing done" }
        let verb = dryRun ? "would delete" : "deleted"
        var text =
            "blob collection: \(blobs) blobs, \(referenced) referenced, \(unreferenced) unreferenced; "
            + "\(verb) \(deleted.count) (\(bytes == 0 ? "0 bytes" : ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)) given back)"
        text += ", \(waiting) waiting for their grace period"
        if recentlyWritten > 0 { text += ", \(recentlyWritten) kept as recently written" }
        if referencedAgain > 0 { text += ", \(referencedAgain) referenced again" }
        if !recordingsDeleted.isEmpty {
            text +=
                "; \(verb) the files of \(recordingsDeleted.count) deleted audio take(s) "
                + "(\(ByteCountFormatter.string(fromByteCount: recordingBytes, countStyle: .file)))"
        }
        if backupInProgress { text += "; a backup is in progress, so nothing was deleted" }
        return text
    }
}

extension BlobCollector {
    /// `podium gc`: one run on the installation at `location`, beside a running server or none.
    /// The database's schema must include the collector's tables (`podium serve` of this version
    /// applies them); nothing else is changed but the marks, the lease and the deleted blobs.
    public static func run(
        _ location: DataLocation, settings: Settings, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> Report {
        let store: SQLStore
        switch location.database {
        case .sqlite(let path):
            guard FileManager.default.fileExists(atPath: path) else {
                throw DataDirectoryRefusal("no database at \(path): is this a Podium data directory?")
            }
            store = try await SQLStore.openSQLite(path: path, migrate: false, logger: logger)
        case .postgres(let url):
            store = try await SQLStore.openPostgres(url: url, maximumConnections: 2, migrate: false, logger: logger)
        }
        do {
            let applied = try await store.serial { db in
                try await DatabaseInventory.appliedMigrations(on: db, dialect: store.dialect)
            }
            guard applied.contains(Migrations.blobCollectionMigration.version) else {
                throw DataDirectoryRefusal(
                    "the database's schema is older than this podium (migration \(Migrations.blobCollectionMigration.version) "
                        + "is not applied): start `podium serve` of this version once first")
            }
            let report = try await BlobCollector(store: store, root: location.blobRoot, logger: logger, now: now)
                .run(settings)
            try await store.close()
            return report
        } catch {
            try? await store.close()
            throw error
        }
    }
}
