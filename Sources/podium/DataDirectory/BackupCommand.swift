import ArgumentParser
import Foundation
import PodiumStore

/// `podium backup <target>`: a consistent copy of the database and blobs while the server runs.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the database and blobs, consistently, while the server runs.",
        discussion: """
            The target is a new or empty directory. It receives the database as of one moment \
            (SQLite: VACUUM INTO; PostgreSQL: pg_dump on an exported snapshot), the blobs that \
            moment refers to, and manifest.json with every file's SHA-256. Exit codes: 0 done, \
            1 usage, 2 refused, 3 written but some referenced blobs were missing or damaged, 4 failed.
            """)

    @Argument(help: "A new or empty directory for the backup.")
    var target: String

    @OptionGroup var location: DataLocationOptions

    @Flag(help: "Hard-link blobs instead of copying them when the target is on the same file system.")
    var link = false

    @Flag(help: "Print a JSON summary (the manifest without its file list) instead of text.")
    var json = false

    func run() async throws {
        try await DataExit.run {
            let bar = ProgressBar()
            let started = ContinuousClock.now
            let manifest = try await DataDirectoryBackup.run(
                from: location.location(), to: URL(fileURLWithPath: target, isDirectory: true), link: link,
                logger: dataCommandLogger(), progress: { bar.update($0) })
            bar.finish()
            let incomplete = manifest.blobs.missing + manifest.blobs.damaged
            if json {
                try printJSON(
                    Summary(
                        target: URL(fileURLWithPath: target).standardizedFileURL.path, manifest: manifest,
                        seconds: (ContinuousClock.now - started).seconds))
            } else {
                let rows = manifest.counts.filter { $0.key != "podium_migrations" }.values.reduce(0, +)
                print(
                    "Backed up to \(target): \(manifest.database.kind) database (schema \(manifest.schemaVersion), \(rows) rows), "
                        + "\(manifest.blobs.copied) blobs (\(formatBytes(manifest.blobs.bytes))), "
                        + "\(manifest.recordings?.files ?? 0) files of \(manifest.recordings?.takes ?? 0) audio takes "
                        + "(\(formatBytes(manifest.recordings?.bytes ?? 0))).")
                for name in manifest.blobs.missing { print("  missing: \(name) (referenced, not in the blob store)") }
                for name in manifest.blobs.damaged { print("  damaged: \(name) (its bytes do not match its name; left out)") }
            }
            return incomplete.isEmpty ? DataExit.ok : DataExit.warnings
        }
    }

    struct Summary: Encodable {
        let target: String
        let format: String
        let formatVersion: Int
        let podiumVersion: String
        let schemaVersion: Int
        let createdAt: Date
        let database: BackupManifest.Database
        let counts: [String: Int]
        let blobs: BackupManifest.Blobs
        let recordings: BackupManifest.Recordings?
        let files: Int
        let seconds: Double

        init(target: String, manifest: BackupManifest, seconds: Double) {
            self.target = target
            format = manifest.format
            formatVersion = manifest.formatVersion
            podiumVersion = manifest.podiumVersion
            schemaVersion = manifest.schemaVersion
            createdAt = manifest.createdAt
            database = manifest.database
            counts = manifest.counts
            blobs = manifest.blobs
            recordings = manifest.recordings
            files = manifest.files.count
            self.seconds = seconds
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
