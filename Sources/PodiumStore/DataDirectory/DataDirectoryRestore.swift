import Foundation
import Logging
import SQLKit

/// `podium restore`: a backup back into a data directory (SQLite) or a PostgreSQL database.
///
/// In order: the manifest is read; the target is refused when a server holds it (its lock) or
/// when it holds data (unless `force`); every file's SHA-256 is checked against the manifest
/// before anything is written; the database is put in place (SQLite: copied beside, then renamed
/// over; PostgreSQL: `pg_restore` in one transaction) and the blobs and the audio takes' files
/// copied; the restored store is
/// opened (migrating a backup of an older version) and its rows counted against the manifest.
public enum DataDirectoryRestore {
    public struct Summary: Codable, Sendable {
        public var database: String
        public var schemaVersion: Int
        public var counts: [String: Int]
        public var blobsRestored: Int
        public var blobsAlreadyPresent: Int
        /// Files of audio takes put back under `<blob-dir>/recordings`.
        public var recordingFilesRestored: Int
        public var missingInBackup: [String]
    }

    public static func run(
        backup: URL, to target: DataLocation, force: Bool, logger: Logger,
        progress: @escaping @Sendable (DataDirectoryProgress) -> Void = { _ in }
    ) async throws -> Summary {
        let manifest = try BackupManifest.read(from: backup)
        // Held until the restore ends: a server started meanwhile refuses the directory.
        let lock = try target.dataDirectory.map { try DataDirectoryLock.acquire($0, holder: "restore") }
        defer { lock?.release() }
        switch (manifest.database.kind, target.database) {
        case ("sqlite", .sqlite(let path)):
            try refuseSQLiteTarget(path: path, blobRoot: target.blobRoot, force: force)
        case ("postgres", .postgres(let url)):
            try await refusePostgresTarget(url: url, force: force, logger: logger)
        case ("sqlite", .postgres):
            throw DataDirectoryRefusal(
                "this is a backup of an SQLite installation: restore it into a data directory (--data-dir), then copy it to PostgreSQL with `podium migrate-data`"
            )
        case ("postgres", .sqlite):
            throw DataDirectoryRefusal("this is a backup of a PostgreSQL installation: restore it with --database-url")
        default:
            throw DataDirectoryRefusal(
                "the backup holds a database of a kind this version does not know: \(manifest.database.kind)")
        }
        let problems = BackupManifest.verify(manifest, in: backup, progress: progress)
        guard problems.isEmpty else {
            throw DataDirectoryRefusal(
                "the backup does not match its manifest, nothing was restored:\n"
                    + problems.prefix(20).map { "  \($0)" }.joined(separator: "\n")
                    + (problems.count > 20 ? "\n  … and \(problems.count - 20) more" : ""))
        }

        let databaseFile = backup.appendingPathComponent(manifest.database.file)
        switch target.database {
        case .sqlite(let path):
            let destination = URL(fileURLWithPath: path)
            try FileManager.default.createDirectory(
                at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            let temporary = destination.deletingLastPathComponent().appendingPathComponent(".podium.sqlite.restoring")
            try? FileManager.default.removeItem(at: temporary)
            try FileManager.default.copyItem(at: databaseFile, to: temporary)
            // The old database's journal must not be applied to the restored one.
            for suffix in ["-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            guard rename(temporary.path, destination.path) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        case .postgres(let url):
            try await PostgresTools.run(
                "pg_restore",
                [
                    "--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction", "--clean", "--if-exists",
                    databaseFile.path,
                ],
                url: url)
        }

        var restored = 0
        var present = 0
        let blobFiles = manifest.files.filter { $0.path.hasPrefix("blobs/") }
        let total = blobFiles.reduce(Int64(0)) { $0 + $1.bytes }
        var done: Int64 = 0
        try FileManager.default.createDirectory(at: target.blobRoot, withIntermediateDirectories: true)
        for file in blobFiles {
            let name = URL(fileURLWithPath: file.path).lastPathComponent
            let destination = DataDirectoryBackup.blobPath(target.blobRoot, name)
            if FileManager.default.fileExists(atPath: destination.path),
                (try? FileBlobStore.sha256(of: destination)) == file.sha256
            {
                present += 1
            } else {
                try FileManager.default.createDirectory(
                    at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
                try? FileManager.default.removeItem(at: destination)
                _ = try DataDirectoryBackup.copy(backup.appendingPathComponent(file.path), to: destination, link: false)
                restored += 1
            }
            done += file.bytes
            progress(DataDirectoryProgress(phase: "blobs", done: done, total: max(total, 1)))
        }

        // The audio takes' files, back where the server keeps them (a file there is replaced).
        var recordingFiles = 0
        let recordingsPrefix = "\(RecordingFiles.directoryName)/"
        for file in manifest.files where file.path.hasPrefix(recordingsPrefix) {
            let destination = target.blobRoot.appendingPathComponent(file.path)
            try FileManager.default.createDirectory(
                at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? FileManager.default.removeItem(at: destination)
            _ = try DataDirectoryBackup.copy(backup.appendingPathComponent(file.path), to: destination, link: false)
            recordingFiles += 1
            done += file.bytes
        }

        // Opened as the server opens it (a backup of an older version migrates here), then counted.
        let store: SQLStore
        switch target.database {
        case .sqlite(let path): store = try await SQLStore.openSQLite(path: path, logger: logger)
        case .postgres(let url): store = try await SQLStore.openPostgres(url: url, maximumConnections: 2, logger: logger)
        }
        let dialect = store.dialect
        let inventory: DatabaseInventory
        do {
            inventory = try await store.serial(limit: nil) { db in try await DatabaseInventory.read(on: db, dialect: dialect) }
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
        if inventory.schemaVersion == manifest.schemaVersion {
            let differing = manifest.counts.filter { inventory.counts[$0.key] != $0.value }.keys.sorted()
            guard differing.isEmpty else {
                throw DataDirectoryRefusal(
                    "the restored database's rows differ from the backup's in \(differing.joined(separator: ", "))")
            }
        }
        return Summary(
            database: manifest.database.kind, schemaVersion: inventory.schemaVersion, counts: inventory.counts,
            blobsRestored: restored, blobsAlreadyPresent: present, recordingFilesRestored: recordingFiles,
            missingInBackup: manifest.blobs.missing + manifest.blobs.damaged)
    }

    /// A data directory with a database, or a blob store with blobs, is refused unless `force`.
    static func refuseSQLiteTarget(path: String, blobRoot: URL, force: Bool) throws {
        guard !force else { return }
        var found: [String] = []
        if FileManager.default.fileExists(atPath: path) { found.append(path) }
        let blobs = FileManager.default.enumerator(atPath: blobRoot.path)
        while let entry = blobs?.nextObject() as? String {
            if FileBlobStore.isValidName(URL(fileURLWithPath: entry).lastPathComponent) {
                found.append("blobs in \(blobRoot.path)")
                break
            }
        }
        guard found.isEmpty else {
            throw DataDirectoryRefusal(
                "the target is not empty (\(found.joined(separator: ", "))): restore into a new directory, or pass --force to replace its database"
            )
        }
    }

    /// A database with any row is refused unless `force`.
    static func refusePostgresTarget(url: String, force: Bool, logger: Logger) async throws {
        guard !force else { return }
        let store = try await SQLStore.openPostgres(url: url, maximumConnections: 2, migrate: false, logger: logger)
        let counts: [String: Int]
        do {
            counts = try await store.serial(limit: nil) { db in
                struct Count: Decodable { let count: Int }
                var counts: [String: Int] = [:]
                for table in try await DatabaseInventory.tables(on: db, dialect: .postgres) where table != "podium_migrations" {
                    counts[table] =
                        try await db.raw("SELECT COUNT(*) AS count FROM \(ident: table)").first(decoding: Count.self)?.count ?? 0
                }
                return counts
            }
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
        let nonEmpty = counts.filter { $0.value > 0 }.keys.sorted()
        guard nonEmpty.isEmpty else {
            throw DataDirectoryRefusal(
                "the target database is not empty (rows in \(nonEmpty.prefix(5).joined(separator: ", "))\(nonEmpty.count > 5 ? ", …" : "")): restore into a new database, or pass --force to replace it"
            )
        }
    }
}
