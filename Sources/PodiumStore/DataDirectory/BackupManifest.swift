import Foundation

/// This build's version, written into backups and advertised on the local network.
public enum PodiumVersion {
    public static let current = "0.22.0"
}

/// `manifest.json` at the top of a backup: what it holds and the SHA-256 of every file, so that
/// `podium restore` and `podium check` can tell a complete, untouched backup from anything else.
/// Written last: a directory without one is no backup (an interrupted one).
public struct BackupManifest: Codable, Sendable, Equatable {
    public static let fileName = "manifest.json"
    /// The layout of a backup; a restore refuses a newer one.
    public static let currentFormatVersion = 1
    public static let formatName = "podium-backup"

    public struct Database: Codable, Sendable, Equatable {
        /// `sqlite` (a database file made by `VACUUM INTO`) or `postgres` (`pg_dump --format=custom`).
        public var kind: String
        /// The file, relative to the backup.
        public var file: String
    }

    public struct Blobs: Codable, Sendable, Equatable {
        /// Blob names the database mentions.
        public var referenced: Int
        /// Blobs in the backup.
        public var copied: Int
        public var bytes: Int64
        /// Mentioned but not in the blob store when they were copied (deleted meanwhile, or lost before).
        public var missing: [String]
        /// In the blob store but their bytes do not match their name: left out.
        public var damaged: [String]
    }

    /// The audio takes' files (`recordings/…` in the backup, from `<blob-dir>/recordings`).
    public struct Recordings: Codable, Sendable, Equatable {
        /// Takes in the database snapshot.
        public var takes: Int
        /// Their files copied (chunks, HLS packages).
        public var files: Int
        public var bytes: Int64
    }

    public struct File: Codable, Sendable, Equatable {
        /// Relative to the backup, `/`-separated.
        public var path: String
        public var bytes: Int64
        public var sha256: String
    }

    public var format: String = BackupManifest.formatName
    public var formatVersion: Int = BackupManifest.currentFormatVersion
    public var podiumVersion: String
    public var schemaVersion: Int
    public var createdAt: Date
    public var database: Database
    /// Rows per table in the snapshot.
    public var counts: [String: Int]
    public var blobs: Blobs
    /// Nil in a backup made before takes were backed up.
    public var recordings: Recordings?
    public var files: [File]

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    func write(into directory: URL) throws {
        let data = try Self.encoder.encode(self)
        let temporary = directory.appendingPathComponent(".\(Self.fileName).tmp")
        try data.write(to: temporary)
        guard rename(temporary.path, directory.appendingPathComponent(Self.fileName).path) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// Reads the manifest of the backup at `directory`, refusing what is not a Podium backup
    /// this version can restore.
    public static func read(from directory: URL) throws -> BackupManifest {
        let url = directory.appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw DataDirectoryRefusal(
                "\(directory.path) is not a Podium backup: it has no \(fileName) (an interrupted backup has none)")
        }
        let manifest: BackupManifest
        do {
            manifest = try decoder.decode(BackupManifest.self, from: data)
        } catch {
            throw DataDirectoryRefusal("\(url.path) is damaged or not a Podium manifest: \(error)")
        }
        guard manifest.format == formatName else {
            throw DataDirectoryRefusal("\(url.path) is not a Podium backup manifest (format \(manifest.format))")
        }
        guard manifest.formatVersion <= currentFormatVersion else {
            throw DataDirectoryRefusal(
                "the backup was made by a newer Podium (\(manifest.podiumVersion), backup format \(manifest.formatVersion)): restore it with that version"
            )
        }
        return manifest
    }

    /// Every file's size and SHA-256 checked against the manifest; blobs against their names
    /// too. Returns what differs (nothing when the backup is intact).
    public static func verify(
        _ manifest: BackupManifest, in directory: URL, progress: @Sendable (DataDirectoryProgress) -> Void = { _ in }
    ) -> [String] {
        var problems: [String] = []
        let total = manifest.files.reduce(Int64(0)) { $0 + $1.bytes }
        var done: Int64 = 0
        guard manifest.files.contains(where: { $0.path == manifest.database.file }) else {
            return ["the manifest lists no database file \(manifest.database.file)"]
        }
        for file in manifest.files {
            guard !file.path.contains(".."), !file.path.hasPrefix("/") else {
                problems.append("\(file.path): not a path inside the backup")
                continue
            }
            let url = directory.appendingPathComponent(file.path)
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            guard let size = (attributes?[.size] as? NSNumber)?.int64Value else {
                problems.append("\(file.path): missing")
                continue
            }
            guard size == file.bytes else {
                problems.append("\(file.path): \(size) bytes, the manifest says \(file.bytes)")
                continue
            }
            guard let hash = try? FileBlobStore.sha256(of: url) else {
                problems.append("\(file.path): unreadable")
                continue
            }
            if hash != file.sha256 {
                problems.append("\(file.path): its SHA-256 is \(hash), the manifest says \(file.sha256)")
            } else if file.path.hasPrefix("blobs/"), !url.lastPathComponent.hasPrefix(hash + ".") {
                problems.append("\(file.path): its bytes do not match its name")
            }
            done += file.bytes
            progress(DataDirectoryProgress(phase: "verifying", done: done, total: total))
        }
        return problems
    }
}

/// How far a long step is, for a progress bar.
public struct DataDirectoryProgress: Sendable {
    public let phase: String
    public let done: Int64
    public let total: Int64

    public init(phase: String, done: Int64, total: Int64) {
        self.phase = phase
        self.done = done
        self.total = total
    }
}

/// The command will not do what was asked, for a reason it states (exit code 2): a target that
/// is not empty, a data directory a server holds, a backup that does not verify.
public struct DataDirectoryRefusal: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
