import ArgumentParser
import Foundation
import Logging
import PodiumStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the installation is, as `podium serve` is told: `--data-dir` (SQLite and blobs), or
/// `--database-url` for PostgreSQL with `--blob-dir` for shared blobs.
struct DataLocationOptions: ParsableArguments {
    @Option(help: "The data directory: podium.sqlite and blobs/ (env PODIUM_DATA_DIR; ./data).")
    var dataDir: String?

    @Option(
        help: ArgumentHelp(
            "PostgreSQL instead of the data directory's SQLite, postgres://user:password@host:5432/database (env PODIUM_DATABASE_URL).",
            valueName: "url"))
    var databaseUrl: String?

    @Option(help: "The blob directory, when not <data-dir>/blobs (env PODIUM_BLOB_DIR).")
    var blobDir: String?

    func location() -> DataLocation {
        let environment = ProcessInfo.processInfo.environment
        let directory = URL(
            fileURLWithPath: dataDir ?? environment["PODIUM_DATA_DIR"] ?? "data", isDirectory: true)
        let blobs =
            (blobDir ?? environment["PODIUM_BLOB_DIR"]).flatMap { $0.isEmpty ? nil : $0 }
            .map { URL(fileURLWithPath: $0, isDirectory: true) } ?? directory.appendingPathComponent("blobs", isDirectory: true)
        if let url = (databaseUrl ?? environment["PODIUM_DATABASE_URL"]).flatMap({ $0.isEmpty ? nil : $0 }) {
            // The data directory (and its lock) only when one was named: PostgreSQL needs none.
            let named = dataDir ?? environment["PODIUM_DATA_DIR"]
            return DataLocation(database: .postgres(url: url), blobRoot: blobs, dataDirectory: named.map { _ in directory })
        }
        return DataLocation(
            database: .sqlite(path: directory.appendingPathComponent(DataLocation.sqliteFileName).path), blobRoot: blobs,
            dataDirectory: directory)
    }
}

/// The data-directory commands' exit codes (docs/operations.md, "Exit codes").
enum DataExit {
    static let ok: Int32 = 0
    static let usage: Int32 = 1
    /// Refused (a target not empty, a directory a server holds, a backup that does not verify)
    /// or, for `check`, problems found.
    static let refused: Int32 = 2
    /// Done, with something to look at: a backup written without some blobs (missing or damaged).
    static let warnings: Int32 = 3
    /// Failed: the database could not be reached, a tool failed, a disk error.
    static let failed: Int32 = 4

    /// Runs `body`, turning its errors into a message on standard error and an exit code.
    static func run(_ body: () async throws -> Int32) async throws {
        let code: Int32
        do {
            code = try await body()
        } catch let refusal as DataDirectoryRefusal {
            printError("podium: refused: \(refusal.description)")
            code = refused
        } catch let error as ValidationError {
            printError("podium: \(error.message)")
            code = usage
        } catch {
            printError("podium: failed: \(String(describing: error))")
            code = failed
        }
        if code != 0 { throw ExitCode(code) }
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

/// Logs to standard error at warning and above (LOG_LEVEL to change).
func dataCommandLogger() -> Logger {
    var logger = Logger(label: "podium")
    logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .error
    return logger
}

/// `value` as JSON on standard output.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    FileHandle.standardOutput.write(try encoder.encode(value) + Data("\n".utf8))
}

func formatBytes(_ bytes: Int64) -> String {
    ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)
}
