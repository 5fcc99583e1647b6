import Crypto
import Foundation
import Logging
import SQLKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where an installation keeps its data: the database and the blob store.
public struct DataLocation: Sendable {
    public enum Database: Sendable {
        /// The SQLite file (`<data-dir>/podium.sqlite`).
        case sqlite(path: String)
        /// A PostgreSQL URL.
        case postgres(url: String)
    }

    public var database: Database
    public var blobRoot: URL
    /// The data directory, when there is one (its lock is taken by restore).
    public var dataDirectory: URL?

    public init(database: Database, blobRoot: URL, dataDirectory: URL?) {
        self.database = database
        self.blobRoot = blobRoot
        self.dataDirectory = dataDirectory
    }

    /// The data directory's database file name.
    public static let sqliteFileName = "podium.sqlite"
}

/// `podium backup`: a consistent copy of a running installation.
///
/// The database first, as of one moment while the server keeps writing: SQLite's `VACUUM INTO`
/// reads inside one transaction (WAL lets it run beside the server's writes; a plain file copy
/// could take half a transaction), PostgreSQL's `pg_dump` runs on a snapshot exported from a
/// transaction of our own that stays open, so the blob names are read from exactly the rows the
/// dump holds. Then the blobs that snapshot mentions: they are immutable and named by their
/// SHA-256, so a copy made later is the same file; one written later is not needed; one deleted
/// meanwhile is listed as missing in the manifest and the summary (never skipped in silence);
/// the blob collector deletes none while a backup runs (``BlobStoreLock``). Then the files of
/// the audio takes the snapshot has (``RecordingFiles``: chunks and HLS, under `recordings/`).
/// The manifest last, with every file's SHA-256.
public enum DataDirectoryBackup {
    public static func run(
        from source: DataLocation, to target: URL, link: Bool = false, logger: Logger,
        progress: @escaping @Sendable (DataDirectoryProgress) -> Void = { _ in }
    ) async throws -> BackupManifest {
        try prepareTarget(target)
        do {
            return try await write(from: source, to: target, link: link, logger: logger, progress: progress)
        } catch {
            // Half a backup is no backup: nothing is left to be mistaken for one.
            try? FileManager.default.removeItem(at: target)
            throw error
        }
    }

    /// The target must be new or an empty directory.
    static func prepareTarget(_ target: URL) throws {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: target.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw DataDirectoryRefusal("\(target.path) exists and is not a directory") }
            guard (try fileManager.contentsOfDirectory(atPath: target.path)).isEmpty else {
                throw DataDirectoryRefusal("\(target.path) is not empty: a backup goes into a new or empty directory")
            }
        }
        try fileManager.createDirectory(at: target, withIntermediateDirectories: true)
    }

    private static func write(
        from source: DataLocation, to target: URL, link: Bool, logger: Logger,
        progress: @escaping @Sendable (DataDirectoryProgress) -> Void
    ) async throws -> BackupManifest {
        // Held from before the snapshot to the last blob copied: no blob is deleted meanwhile,
        // by the blob collector or a deleted video's removal (see BlobStoreLock). A blob
        // directory this user cannot write holds no lock; no one deletes there as this user.
        let hold: BlobStoreLock?
        do {
            hold = try BlobStoreLock.backup(source.blobRoot)
        } catch {
            logger.warning("backup: \(error); the blob collector is not held off")
            hold = nil
        }
        defer { hold?.release() }
        progress(DataDirectoryProgress(phase: "database", done: 0, total: 1))
        let database: BackupManifest.Database
        let inventory: DatabaseInventory
        switch source.database {
        case .sqlite(let path):
            guard FileManager.default.fileExists(atPath: path) else {
                throw DataDirectoryRefusal("no database at \(path): is this a Podium data directory?")
            }
            database = BackupManifest.Database(kind: "sqlite", file: DataLocation.sqliteFileName)
            let copy = target.appendingPathComponent(database.file).path
            let live = try await SQLStore.openSQLite(path: path, migrate: false, logger: logger)
            do {
                try await live.serial(limit: nil) { db in try await db.raw("VACUUM INTO \(bind: copy)").run() }
            } catch {
                try? await live.close()
                throw error
            }
            try await live.close()
            // Read from the copy: the blob names of exactly the snapshot.
            let snapshot = try await SQLStore.openSQLite(path: copy, migrate: false, logger: logger)
            do {
                inventory = try await snapshot.serial(limit: nil) { db in
                    try await DatabaseInventory.read(on: db, dialect: .sqlite)
                }
            } catch {
                try? await snapshot.close()
                throw error
            }
            try await snapshot.close()
        case .postgres(let url):
            database = BackupManifest.Database(kind: "postgres", file: "podium.pgdump")
            let dump = target.appendingPathComponent(database.file).path
            let store = try await SQLStore.openPostgres(url: url, maximumConnections: 2, migrate: false, logger: logger)
            do {
                inventory = try await store.serial(limit: nil) { db in
                    try await db.raw("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").run()
                    do {
                        struct Row: Decodable { let snapshot: String }
                        guard let snapshot = try await db.raw("SELECT pg_export_snapshot() AS snapshot").first(decoding: Row.self)
                        else { throw PostgresTools.Failure(description: "PostgreSQL exported no snapshot") }
                        // The dump sees what this transaction sees, whatever commits meanwhile.
                        try await PostgresTools.run(
                            "pg_dump", ["--format=custom", "--file=\(dump)", "--snapshot=\(snapshot.snapshot)", "--no-sync"],
                            url: url)
                        let inventory = try await DatabaseInventory.read(on: db, dialect: .postgres)
                        try await db.raw("COMMIT").run()
                        return inventory
                    } catch {
                        try? await db.raw("ROLLBACK").run()
                        throw error
                    }
                }
            } catch {
                try? await store.close()
                throw error
            }
            try await store.close()
        }
        var files = [try fileEntry(target, database.file)]
        progress(DataDirectoryProgress(phase: "database", done: 1, total: 1))

        var missing: [String] = []
        var damaged: [String] = []
        var bytes: Int64 = 0
        let sizes = inventory.blobs.map { name in
            (try? FileManager.default.attributesOfItem(atPath: blobPath(source.blobRoot, name).path)[.size] as? NSNumber)?
                .int64Value ?? 0
        }
        let total = sizes.reduce(0, +)
        var done: Int64 = 0
        for (index, name) in inventory.blobs.enumerated() {
            let from = blobPath(source.blobRoot, name)
            let relative = "blobs/\(name.prefix(2))/\(name)"
            let to = target.appendingPathComponent(relative)
            guard FileManager.default.fileExists(atPath: from.path) else {
                logger.warning("blob \(name) is mentioned by the database but missing from \(source.blobRoot.path)")
                missing.append(name)
                continue
            }
            try FileManager.default.createDirectory(at: to.deletingLastPathComponent(), withIntermediateDirectories: true)
            let copied: (bytes: Int64, sha256: String)
            do {
                copied = try copy(from, to: to, link: link)
            } catch CocoaError.fileNoSuchFile, CocoaError.fileReadNoSuchFile {
                // Deleted between the look and the copy.
                missing.append(name)
                continue
            }
            if !name.hasPrefix(copied.sha256 + ".") {
                logger.error("blob \(name) is damaged: its bytes hash to \(copied.sha256); left out of the backup")
                try? FileManager.default.removeItem(at: to)
                damaged.append(name)
                continue
            }
            bytes += copied.bytes
            files.append(BackupManifest.File(path: relative, bytes: copied.bytes, sha256: copied.sha256))
            done += sizes[index]
            progress(DataDirectoryProgress(phase: "blobs", done: done, total: max(total, 1)))
        }
        let blobsCopied = files.count - 1
        let recordings = try copyRecordings(of: inventory, from: source.blobRoot, to: target, logger: logger)
        files += recordings.files
        let manifest = BackupManifest(
            podiumVersion: PodiumVersion.current, schemaVersion: inventory.schemaVersion, createdAt: Date(),
            database: database, counts: inventory.counts,
            blobs: BackupManifest.Blobs(
                referenced: inventory.blobs.count, copied: blobsCopied, bytes: bytes, missing: missing, damaged: damaged),
            recordings: BackupManifest.Recordings(
                takes: inventory.recordings.count, files: recordings.files.count, bytes: recordings.bytes),
            files: files)
        try manifest.write(into: target)
        return manifest
    }

    /// The files of the snapshot's audio takes (`<blob-dir>/recordings/<id>.webm` and
    /// `<id>/…`) into `recordings/` of the backup. Always copied, never linked: a take still
    /// recording grows, and packaging cuts its chunks file to the length counted. A take's file
    /// that is gone meanwhile (packaged again, its session deleted) is left out.
    static func copyRecordings(
        of inventory: DatabaseInventory, from blobRoot: URL, to target: URL, logger: Logger
    ) throws -> (files: [BackupManifest.File], bytes: Int64) {
        let directory = blobRoot.appendingPathComponent(RecordingFiles.directoryName, isDirectory: true)
        var files: [BackupManifest.File] = []
        var bytes: Int64 = 0
        for id in inventory.recordings.keys.sorted() {
            for relative in RecordingFiles.files(of: id, in: directory) {
                let path = "\(RecordingFiles.directoryName)/\(relative)"
                let to = target.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: to.deletingLastPathComponent(), withIntermediateDirectories: true)
                let copied: (bytes: Int64, sha256: String)
                do {
                    copied = try copy(directory.appendingPathComponent(relative), to: to, link: false)
                } catch CocoaError.fileNoSuchFile, CocoaError.fileReadNoSuchFile {
                    logger.notice("backup: \(path) went while it was copied; left out")
                    continue
                }
                bytes += copied.bytes
                files.append(BackupManifest.File(path: path, bytes: copied.bytes, sha256: copied.sha256))
            }
        }
        return (files, bytes)
    }

    static func blobPath(_ root: URL, _ name: String) -> URL {
        root.appendingPathComponent(String(name.prefix(2))).appendingPathComponent(name)
    }

    static func fileEntry(_ directory: URL, _ relative: String) throws -> BackupManifest.File {
        let url = directory.appendingPathComponent(relative)
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value ?? 0
        return BackupManifest.File(path: relative, bytes: size, sha256: try FileBlobStore.sha256(of: url))
    }

    /// Copies (or, with `link`, hard-links when on one file system) `source` to `destination`
    /// through a temporary name, hashing the bytes on the way.
    static func copy(_ source: URL, to destination: URL, link: Bool) throws -> (bytes: Int64, sha256: String) {
        if link, hardLink(source.path, destination.path) {
            let size = (try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? NSNumber)?.int64Value ?? 0
            return (size, try FileBlobStore.sha256(of: destination))
        }
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        let temporary = destination.deletingLastPathComponent().appendingPathComponent(".\(UUID().uuidString).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        do {
            let output = try FileHandle(forWritingTo: temporary)
            var hasher = SHA256()
            var bytes: Int64 = 0
            do {
                while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                    hasher.update(data: chunk)
                    try output.write(contentsOf: chunk)
                    bytes += Int64(chunk.count)
                }
                try output.close()
            } catch {
                try? output.close()
                throw error
            }
            guard rename(temporary.path, destination.path) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            return (bytes, hasher.finalize().map { String(format: "%02x", $0) }.joined())
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }
}

/// `link(2)`: false when the two paths are on different file systems (or linking fails otherwise).
func hardLink(_ source: String, _ destination: String) -> Bool {
    #if canImport(Glibc)
        return Glibc.link(source, destination) == 0
    #else
        return Darwin.link(source, destination) == 0
    #endif
}
