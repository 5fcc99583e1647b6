import Foundation
import Logging
import SQLKit

/// `podium check`: the database's integrity and the blob store's, listed; nothing is changed.
///
/// The database: SQLite's `PRAGMA integrity_check` and `foreign_key_check`; on PostgreSQL (which
/// keeps its pages checksummed and its references enforced) the foreign keys left unvalidated;
/// on both, that the migrations applied are the ones this version knows. The blob store: every
/// blob the database mentions is there and its bytes hash to its name; every file's bytes match
/// its name; files nothing mentions are listed as orphans with their bytes (not a problem: a
/// blob is written before the row that names it, and a deleted deck's images are kept until the
/// blob collector, ``BlobCollector`` — `podium gc` or the server's schedule — deletes them after
/// their grace period), never deleted here. The reference list is ``DatabaseInventory``'s, the
/// one the collector and `podium backup` use.
public enum DataDirectoryCheck {
    public struct Problem: Codable, Sendable, Equatable {
        /// `database`, `migrations` or `blobs`.
        public var area: String
        public var message: String
    }

    public struct Report: Encodable, Sendable {
        public var ok: Bool { problems.isEmpty }
        public var database: String
        public var schemaVersion: Int?
        public var counts: [String: Int]
        public var blobsReferenced: Int
        public var blobsChecked: Int
        public var problems: [Problem]
        public var orphans: [String]
        /// The orphans' bytes: what the blob collector would give back once their grace period is over.
        public var orphanBytes: Int64
        /// Audio takes in the database (their files under `<blob-dir>/recordings` are checked).
        public var recordingTakes: Int = 0
        /// Takes with files on disk and no row (their session deleted): the blob collector
        /// deletes them after its grace period.
        public var recordingOrphans: [String] = []
        public var recordingOrphanBytes: Int64 = 0

        enum CodingKeys: String, CodingKey {
            case ok, database, schemaVersion, counts, blobsReferenced, blobsChecked, problems, orphans, orphanBytes
            case recordingTakes, recordingOrphans, recordingOrphanBytes
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(ok, forKey: .ok)
            try container.encode(database, forKey: .database)
            try container.encodeIfPresent(schemaVersion, forKey: .schemaVersion)
            try container.encode(counts, forKey: .counts)
            try container.encode(blobsReferenced, forKey: .blobsReferenced)
            try container.encode(blobsChecked, forKey: .blobsChecked)
            try container.encode(problems, forKey: .problems)
            try container.encode(orphans, forKey: .orphans)
            try container.encode(orphanBytes, forKey: .orphanBytes)
            try container.encode(recordingTakes, forKey: .recordingTakes)
            try container.encode(recordingOrphans, forKey: .recordingOrphans)
            try container.encode(recordingOrphanBytes, forKey: .recordingOrphanBytes)
        }
    }

    /// Longest list of one kind of database problem reported (a damaged file can yield thousands).
    static let listLimit = 50

    public static func run(
        _ location: DataLocation, logger: Logger, progress: @escaping @Sendable (DataDirectoryProgress) -> Void = { _ in }
    ) async -> Report {
        var problems: [Problem] = []
        var inventory: DatabaseInventory?
        let kind: String
        switch location.database {
        case .sqlite(let path):
            kind = "sqlite"
            if FileManager.default.fileExists(atPath: path) {
                do {
                    let (found, read) = try await checkSQLite(path: path, logger: logger)
                    problems += found
                    inventory = read
                } catch {
                    problems.append(Problem(area: "database", message: "\(path) cannot be read: \(describe(error))"))
                }
            } else {
                problems.append(Problem(area: "database", message: "no database at \(path)"))
            }
        case .postgres(let url):
            kind = "postgres"
            do {
                let (found, read) = try await checkPostgres(url: url, logger: logger)
                problems += found
                inventory = read
            } catch {
                problems.append(Problem(area: "database", message: "the database cannot be read: \(describe(error))"))
            }
        }
        if let inventory {
            let known = Set(DatabaseInventory.knownMigrations)
            let applied = Set(inventory.appliedMigrations)
            let newer = applied.subtracting(known).sorted()
            let pending = known.subtracting(applied).sorted()
            if !newer.isEmpty {
                problems.append(
                    Problem(
                        area: "migrations",
                        message: "migrations \(newer.map(String.init).joined(separator: ", ")) were applied by a newer Podium"))
            }
            if !pending.isEmpty {
                problems.append(
                    Problem(
                        area: "migrations",
                        message:
                            "migrations \(pending.map(String.init).joined(separator: ", ")) are not applied (`podium serve` applies them at start)"
                    ))
            }
        }
        let (blobProblems, orphans, checked, orphanBytes) = checkBlobs(
            root: location.blobRoot, referenced: inventory.map { Set($0.blobs) }, progress: progress)
        problems += blobProblems
        var report = Report(
            database: kind, schemaVersion: inventory?.schemaVersion, counts: inventory?.counts ?? [:],
            blobsReferenced: inventory?.blobs.count ?? 0, blobsChecked: checked, problems: problems, orphans: orphans,
            orphanBytes: orphanBytes)
        if let inventory { checkRecordings(root: location.blobRoot, takes: inventory.recordings, into: &report) }
        return report
    }

    /// The audio takes' files: a packaged take has its playlist, a take recording or packaging
    /// with chunks has its chunks file; files of takes with no row are orphans.
    static func checkRecordings(root: URL, takes: [String: String], into report: inout Report) {
        let directory = root.appendingPathComponent(RecordingFiles.directoryName, isDirectory: true)
        report.recordingTakes = takes.count
        for (id, status) in takes.sorted(by: { $0.key < $1.key }) {
            let files = Set(RecordingFiles.files(of: id, in: directory))
            switch status {
            case RecordingRecord.Status.ready.rawValue where !files.contains("\(id)/index.m3u8"):
                report.problems.append(
                    Problem(area: "recordings", message: "audio take \(id) is ready but its HLS files are missing"))
            case RecordingRecord.Status.recording.rawValue, RecordingRecord.Status.packaging.rawValue:
                if !files.contains("\(id).webm") {
                    report.problems.append(
                        Problem(area: "recordings", message: "audio take \(id) is \(status) but its chunks file is missing"))
                }
            default: break
            }
        }
        for (id, entries) in RecordingFiles.takesOnDisk(in: directory).sorted(by: { $0.key < $1.key })
        where takes[id] == nil {
            report.recordingOrphans.append(id)
            report.recordingOrphanBytes += RecordingFiles.usage(of: entries).bytes
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? any CustomStringConvertible { return error.description }
        return String(describing: error)
    }

    private static func checkSQLite(path: String, logger: Logger) async throws -> ([Problem], DatabaseInventory?) {
        let store = try await SQLStore.openSQLite(path: path, migrate: false, logger: logger)
        do {
            let result = try await store.serial(limit: nil) { db -> ([Problem], DatabaseInventory?) in
                var problems: [Problem] = []
                struct Integrity: Decodable { let integrityCheck: String }
                let integrity = try await db.raw("PRAGMA integrity_check(\(literal: Self.listLimit))")
                    .all(decoding: Integrity.self, with: SQLStore.decoding).map(\.integrityCheck)
                if integrity != ["ok"] {
                    problems += integrity.map { Problem(area: "database", message: "integrity: \($0)") }
                }
                struct Reference: Decodable {
                    let table: String
                    let rowid: Int?
                    let parent: String
                }
                let references = try await db.raw("PRAGMA foreign_key_check").all(decoding: Reference.self)
                for reference in references.prefix(Self.listLimit) {
                    problems.append(
                        Problem(
                            area: "database",
                            message:
                                "\(reference.table) row \(reference.rowid.map(String.init) ?? "?") refers to a missing row of \(reference.parent)"
                        ))
                }
                if references.count > Self.listLimit {
                    problems.append(
                        Problem(area: "database", message: "… and \(references.count - Self.listLimit) more broken references"))
                }
                // The rows are read only when the pages hold together.
                guard integrity == ["ok"] else { return (problems, nil) }
                return (problems, try await DatabaseInventory.read(on: db, dialect: .sqlite))
            }
            try await store.close()
            return result
        } catch {
            try? await store.close()
            throw error
        }
    }

    private static func checkPostgres(url: String, logger: Logger) async throws -> ([Problem], DatabaseInventory?) {
        let store = try await SQLStore.openPostgres(url: url, maximumConnections: 2, migrate: false, logger: logger)
        do {
            let result = try await store.serial(limit: nil) { db -> ([Problem], DatabaseInventory?) in
                try await db.raw("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").run()
                do {
                    let result = try await Self.readPostgres(on: db)
                    try await db.raw("ROLLBACK").run()
                    return result
                } catch {
                    try? await db.raw("ROLLBACK").run()
                    throw error
                }
            }
            try await store.close()
            return result
        } catch {
            try? await store.close()
            throw error
        }
    }

    /// Inside one read-only transaction, so counts and names are of one moment.
    private static func readPostgres(on db: any SQLDatabase) async throws -> ([Problem], DatabaseInventory?) {
        struct Constraint: Decodable {
            let tableName: String
            let constraintName: String
        }
        // References PostgreSQL has not checked (added NOT VALID, or left so by a restore).
        let unchecked = try await db.raw(
            """
            SELECT conrelid::regclass::text AS table_name, conname AS constraint_name FROM pg_constraint
            WHERE contype = 'f' AND NOT convalidated AND connamespace = current_schema()::regnamespace
            """
        ).all(decoding: Constraint.self, with: SQLStore.decoding)
        let problems = unchecked.map {
            Problem(area: "database", message: "\($0.tableName): reference \($0.constraintName) is not validated")
        }
        let inventory = try await DatabaseInventory.read(on: db, dialect: .postgres)
        return (problems, inventory)
    }

    /// Every file of the blob store hashed; `referenced` nil when the database could not be read
    /// (then nothing is called missing or orphaned).
    static func checkBlobs(
        root: URL, referenced: Set<String>?, progress: @Sendable (DataDirectoryProgress) -> Void
    ) -> ([Problem], [String], Int, Int64) {
        var problems: [Problem] = []
        var present = Set<String>()
        var files: [(name: String, url: URL, bytes: Int64)] = []
        let fileManager = FileManager.default
        for prefix in ((try? fileManager.contentsOfDirectory(atPath: root.path)) ?? []).sorted() {
            // Resumable uploads' partial bytes, not blobs.
            if prefix == UploadFiles.directoryName { continue }
            // Audio takes' chunks and their HLS, not blobs: checked by checkRecordings.
            if prefix == RecordingFiles.directoryName { continue }
            let directory = root.appendingPathComponent(prefix)
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                continue
            }
            for name in ((try? fileManager.contentsOfDirectory(atPath: directory.path)) ?? []).sorted() {
                let url = directory.appendingPathComponent(name)
                if name.hasSuffix(".tmp") && name.hasPrefix(".") { continue }  // a write under way
                guard FileBlobStore.isValidName(name), name.hasPrefix(prefix) else {
                    problems.append(Problem(area: "blobs", message: "\(prefix)/\(name) is not a blob name"))
                    continue
                }
                let bytes = (try? fileManager.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value ?? 0
                files.append((name, url, bytes))
            }
        }
        let total = files.reduce(Int64(0)) { $0 + $1.bytes }
        var done: Int64 = 0
        for file in files {
            present.insert(file.name)
            if let hash = try? FileBlobStore.sha256(of: file.url) {
                if !file.name.hasPrefix(hash + ".") {
                    problems.append(Problem(area: "blobs", message: "\(file.name) is damaged: its bytes hash to \(hash)"))
                }
            } else {
                problems.append(Problem(area: "blobs", message: "\(file.name) cannot be read"))
            }
            done += file.bytes
            progress(DataDirectoryProgress(phase: "blobs", done: done, total: max(total, 1)))
        }
        guard let referenced else { return (problems, [], files.count, 0) }
        for name in referenced.subtracting(present).sorted() {
            problems.append(Problem(area: "blobs", message: "\(name) is referenced by the database but missing"))
        }
        let orphans = present.subtracting(referenced)
        let orphanBytes = files.filter { orphans.contains($0.name) }.reduce(Int64(0)) { $0 + $1.bytes }
        return (problems, orphans.sorted(), files.count, orphanBytes)
    }
}
