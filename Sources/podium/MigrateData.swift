import ArgumentParser
import Foundation
import Logging
import PodiumStore

/// `podium migrate-data`: copies an SQLite installation into an empty PostgreSQL database.
struct MigrateData: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-data",
        abstract: "Copy an SQLite installation into an empty PostgreSQL database.",
        discussion: """
            Stop the server first. Every table is copied in one transaction and its rows counted on
            both sides before it commits; a target that holds any row is refused. Blobs are files:
            point `serve --blob-dir` at the old data directory's blobs/ (or copy it to shared storage).
            """)

    @Option(help: ArgumentHelp("The SQLite database, or the data directory holding podium.sqlite.", valueName: "path"))
    var from: String

    @Option(help: ArgumentHelp("The PostgreSQL database, postgres://user:password@host:5432/database.", valueName: "url"))
    var to: String

    func run() async throws {
        var logger = Logger(label: "podium")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        let path = try Self.databaseFile(from)
        let source = try await SQLStore.openSQLite(path: path, logger: logger)
        let target: SQLStore
        do {
            target = try await SQLStore.openPostgres(url: to, maximumConnections: 2, logger: logger)
        } catch {
            try? await source.close()
            throw error
        }
        let counts: [DataMigration.TableCount]
        do {
            counts = try await DataMigration.copy(from: source, to: target, logger: logger)
        } catch {
            try? await source.close()
            try? await target.close()
            throw error
        }
        try await source.close()
        try await target.close()
        print(Self.table(counts))
    }

    /// `path` itself when it is a file, `podium.sqlite` inside it when it is a directory; an
    /// error when neither exists (opening would create an empty database).
    static func databaseFile(_ path: String) throws -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ValidationError("No SQLite database or data directory at \(path).")
        }
        guard isDirectory.boolValue else { return path }
        let file = URL(fileURLWithPath: path).appendingPathComponent("podium.sqlite").path
        guard FileManager.default.fileExists(atPath: file) else {
            throw ValidationError("\(path) holds no podium.sqlite.")
        }
        return file
    }

    /// The counts as a table: one line per table, then the total.
    static func table(_ counts: [DataMigration.TableCount]) -> String {
        let width = max(5, counts.map(\.table.count).max() ?? 0)
        func line(_ name: String, _ source: String, _ target: String) -> String {
            name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                + String(repeating: " ", count: max(0, 8 - source.count))
                + source + "  " + String(repeating: " ", count: max(0, 8 - target.count)) + target
        }
        var lines = [line("table", "sqlite", "postgres")]
        lines += counts.map { line($0.table, "\($0.source)", "\($0.target)") }
        lines.append(line("total", "\(counts.map(\.source).reduce(0, +))", "\(counts.map(\.target).reduce(0, +))"))
        lines.append("Copied; every table's rows counted the same on both sides.")
        return lines.joined(separator: "\n")
    }
}
