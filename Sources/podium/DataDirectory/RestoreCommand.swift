import ArgumentParser
import Foundation
import PodiumStore

/// `podium restore <backup>`: a backup into a new data directory or database.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a backup into a data directory (or a PostgreSQL database).",
        discussion: """
            Refuses a target that holds data (unless --force) or that a running server holds; \
            checks every file of the backup against its manifest before writing anything. Exit \
            codes: 0 restored, 1 usage, 2 refused, 4 failed.
            """)

    @Argument(help: "The backup's directory (the one holding manifest.json).")
    var backup: String

    @OptionGroup var location: DataLocationOptions

    @Flag(help: "Replace the target's database even though it holds data (its blobs are kept).")
    var force = false

    @Flag(help: "Print a JSON summary.")
    var json = false

    func run() async throws {
        try await DataExit.run {
            let environment = ProcessInfo.processInfo.environment
            guard
                location.dataDir != nil || environment["PODIUM_DATA_DIR"] != nil || location.databaseUrl != nil
                    || environment["PODIUM_DATABASE_URL"] != nil
            else {
                throw ValidationError("say where to restore: --data-dir (or --database-url for PostgreSQL)")
            }
            let bar = ProgressBar()
            let summary = try await DataDirectoryRestore.run(
                backup: URL(fileURLWithPath: backup, isDirectory: true), to: location.location(), force: force,
                logger: dataCommandLogger(), progress: { bar.update($0) })
            bar.finish()
            if json {
                try printJSON(summary)
            } else {
                let rows = summary.counts.filter { $0.key != "podium_migrations" }.values.reduce(0, +)
                print(
                    "Restored \(backup): \(summary.database) database (schema \(summary.schemaVersion), \(rows) rows, counted against the manifest), "
                        + "\(summary.blobsRestored) blobs copied, \(summary.blobsAlreadyPresent) already there, "
                        + "\(summary.recordingFilesRestored) files of audio takes.")
                if !summary.missingInBackup.isEmpty {
                    print(
                        "  \(summary.missingInBackup.count) blobs were missing when the backup was made: \(summary.missingInBackup.joined(separator: ", "))"
                    )
                }
            }
            return DataExit.ok
        }
    }
}
