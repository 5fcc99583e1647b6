import ArgumentParser
import Foundation
import PodiumStore

/// `podium gc`: deletes the blobs nothing refers to any more, safely (see BlobCollector).
struct GCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Delete blobs nothing refers to any more (after a grace period); show the space given back.",
        discussion: """
            Mark, then sweep: each run marks the blobs no database row names (the list podium \
            check uses); a blob is deleted only when a run marked it at least the grace period \
            ago, it is still unreferenced, and its file was not written within the grace period \
            either. Nothing is deleted while a podium backup runs. Safe while servers run (one \
            collector at a time across nodes); the server also runs it on a schedule \
            (PODIUM_BLOB_GC_HOURS). A first run only marks: run it again after the grace \
            period, or let the server's schedule do it. Exit codes: 0 done, 1 usage, \
            2 refused (or another collection under way), 4 failed.
            """)

    @OptionGroup var location: DataLocationOptions

    @Option(help: "Hours a blob must have been unreferenced, and its file unwritten, before it is deleted.")
    var graceHours: Double = 24

    @Flag(help: "Report what would be deleted; delete nothing, mark nothing.")
    var dryRun = false

    @Flag(help: "Print the report as JSON.")
    var json = false

    func validate() throws {
        guard graceHours >= 0, graceHours.isFinite else { throw ValidationError("--grace-hours must be 0 or more") }
    }

    func run() async throws {
        try await DataExit.run {
            let report = try await BlobCollector.run(
                location.location(), settings: BlobCollector.Settings(grace: graceHours * 3600, dryRun: dryRun),
                logger: dataCommandLogger())
            if json {
                try printJSON(report)
            } else {
                print(report.summary.replacingOccurrences(of: "blob collection: ", with: "").capitalizedFirst + ".")
                if report.ran, !report.deleted.isEmpty {
                    let verb = dryRun ? "would delete" : "deleted"
                    for name in report.deleted { print("  \(verb): \(name)") }
                }
            }
            return report.ran ? DataExit.ok : DataExit.refused
        }
    }
}

extension String {
    fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
