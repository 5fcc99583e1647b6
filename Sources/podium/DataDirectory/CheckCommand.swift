import ArgumentParser
import Foundation
import PodiumStore

/// `podium check`: the database's and the blob store's integrity, listed; nothing is changed.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the database and the blob store; list problems and orphan blobs.",
        discussion: """
            SQLite: PRAGMA integrity_check and foreign_key_check; PostgreSQL: unvalidated \
            references; both: migrations applied, every referenced blob present and matching its \
            SHA-256 name. Orphan blobs (no row names them: a deleted deck's images, a deleted \
            video's segments) are listed with their bytes, never deleted here: the blob collector \
            deletes them after a grace period (podium gc, or the server's daily schedule). Safe \
            while the server runs. Exit codes: 0 no problems, 1 usage, 2 problems found, 4 failed.
            """)

    @OptionGroup var location: DataLocationOptions

    @Flag(help: "Print the report as JSON.")
    var json = false

    func run() async throws {
        try await DataExit.run {
            let bar = ProgressBar()
            let report = await DataDirectoryCheck.run(
                location.location(), logger: dataCommandLogger(), progress: { bar.update($0) })
            bar.finish()
            if json {
                try printJSON(report)
            } else {
                let rows = report.counts.filter { $0.key != "podium_migrations" }.values.reduce(0, +)
                print(
                    "\(report.database) database: schema \(report.schemaVersion.map(String.init) ?? "?"), \(rows) rows; "
                        + "\(report.blobsChecked) blobs checked, \(report.blobsReferenced) referenced, \(report.orphans.count) orphans "
                        + "(\(formatBytes(report.orphanBytes)), for the blob collector: podium gc)."
                )
                for problem in report.problems { print("  problem (\(problem.area)): \(problem.message)") }
                for orphan in report.orphans {
                    print("  orphan: \(orphan) (no record refers to it; podium gc deletes it after its grace period)")
                }
                print(report.ok ? "No problems found." : "\(report.problems.count) problems found.")
            }
            return report.ok ? DataExit.ok : DataExit.refused
        }
    }
}
