import ChildProcesses
import Foundation

/// `pg_dump` and `pg_restore`, PostgreSQL's own tools (Debian's `postgresql-client`), run as
/// child processes. The password goes in the environment (`PGPASSWORD`), not on the command line
/// where `ps` shows it.
enum PostgresTools {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The tool's path: `PODIUM_PG_BIN/<tool>` when set, else the first on `PATH`, else the newest
    /// of Debian's versioned directories.
    static func locate(_ tool: String) throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        var candidates: [String] = []
        if let directory = environment["PODIUM_PG_BIN"], !directory.isEmpty { candidates.append(directory) }
        candidates += (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        let versions =
            ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .compactMap(Int.init).sorted(by: >)
        candidates += versions.map { "/usr/lib/postgresql/\($0)/bin" }
        for directory in candidates {
            let path = URL(fileURLWithPath: directory).appendingPathComponent(tool).path
            if FileManager.default.isExecutableFile(atPath: path) { return URL(fileURLWithPath: path) }
        }
        throw Failure(description: "\(tool) was not found: install PostgreSQL's client tools (Debian: postgresql-client)")
    }

    /// `url` for libpq without its password, and the password.
    static func connection(_ url: String) throws -> (url: String, password: String?) {
        guard var components = URLComponents(string: url) else {
            throw StoreConfigurationError("a database URL looks like postgres://user:password@host:5432/database")
        }
        let password = components.password.map { $0.removingPercentEncoding ?? $0 }
        components.password = nil
        return (components.string ?? url, password)
    }

    /// Runs `tool` with `arguments` against the database at `url`; throws with its error output
    /// when it fails.
    static func run(_ tool: String, _ arguments: [String], url: String) async throws {
        let executable = try locate(tool)
        let (connection, password) = try connection(url)
        var environment = ProcessInfo.processInfo.environment
        if let password { environment["PGPASSWORD"] = password }
        // Errors to a file, not a pipe: a pipe nobody reads while the tool runs fills up and stops it.
        let errorsFile = FileManager.default.temporaryDirectory.appendingPathComponent("podium-\(tool)-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: errorsFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorsFile) }
        let errors = try FileHandle(forWritingTo: errorsFile)
        let process = ChildProcess(
            executable, arguments: arguments + ["--dbname=\(connection)"], environment: environment, standardInput: .null,
            standardOutput: .null, standardError: .file(errors))
        do {
            try process.run()
        } catch {
            throw Failure(description: error.description)
        }
        let termination = await process.exited()
        try? errors.close()
        guard termination == .exit(0) else {
            let text = (try? String(contentsOf: errorsFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            throw Failure(description: "\(tool) failed (\(termination)): \(text?.isEmpty == false ? text! : "no message")")
        }
    }
}
