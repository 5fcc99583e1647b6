import ChildProcesses
import Foundation
import PodiumClient
import PodiumMedia
import Testing

/// The CLI's remote subcommands: the built `podium` binary against the in-process server.
@Suite("CLI: remote subcommands", .timeLimit(.minutes(3)))
struct CLIRemoteTests {
    static let binary =
        ProcessInfo.processInfo.environment["PODIUM_BIN"].map { URL(fileURLWithPath: $0) }
        ?? TestServer.repositoryRoot.appendingPathComponent(".build/debug/podium")

    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String

        func json() throws -> Any { try JSONSerialization.jsonObject(with: Data(stdout.utf8)) }
        func objects() throws -> [[String: Any]] { try #require(try json() as? [[String: Any]]) }
        func object() throws -> [String: Any] { try #require(try json() as? [String: Any]) }
    }

    /// Runs `podium <arguments>` with only `environment` (and PATH) set, waiting without blocking
    /// a thread of the cooperative pool; output goes through files, so no pipe fills up. Its
    /// state (unfinished uploads) goes into the run's own directory unless `environment` sets
    /// XDG_STATE_HOME, never into the home directory.
    static func podium(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) async throws -> Run {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("out")
        let err = directory.appendingPathComponent("err")
        let input = directory.appendingPathComponent("in")
        for file in [out, err] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
        _ = FileManager.default.createFile(atPath: input.path, contents: Data((stdin ?? "").utf8))
        let process = ChildProcess(
            binary, arguments: arguments,
            environment: environment.merging(["PATH": "/usr/bin:/bin", "XDG_STATE_HOME": directory.path]) { mine, _ in mine },
            directory: directory, standardInput: .file(try FileHandle(forReadingFrom: input)),
            standardOutput: .file(try FileHandle(forWritingTo: out)), standardError: .file(try FileHandle(forWritingTo: err)))
        try process.run()
        let status = await process.exited().status
        return Run(
            status: status, stdout: try String(contentsOf: out, encoding: .utf8),
            stderr: try String(contentsOf: err, encoding: .utf8))
    }

    @Test func everySubcommandAgainstARunningServer() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else {
            Issue.record("build the podium binary first (swift build): \(Self.binary.path)")
            return
        }
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let url = "http://127.0.0.1:\(client.port)"
            let admin = ["PODIUM_URL": url, "PODIUM_EMAIL": "admin", "PODIUM_PASSWORD": TestServer.adminPassword]

            // decks import (waits until ready), list, export.
            let imported = try await Self.podium(
                ["decks", "import", TestServer.demoDeck.path, "--title", "CLI deck", "--json"], environment: admin)
            #expect(imported.status == 0, "\(imported.stderr)")
            let deck = try #require(try imported.objects().first)
            #expect(deck["status"] as? String == "ready")
            #expect(deck["title"] as? String == "CLI deck")
            let deckId = try #require(deck["id"] as? String)
            let listed = try await Self.podium(["decks", "list", "--json"], environment: admin)
            #expect(try listed.objects().map { $0["id"] as? String } == [deckId])
            let plain = try await Self.podium(["decks", "list"], environment: admin)
            #expect(plain.stdout.contains("CLI deck"))
            let exported = try await Self.podium(["decks", "export", deckId, "--json"], environment: admin)
            #expect(exported.status == 0, "\(exported.stderr)")
            #expect(try exported.object()["bytes"] as? Int ?? 0 > 1000)

            // sessions start, list, end, report.
            let started = try await Self.podium(["sessions", "start", deckId, "--passcode", "42", "--json"], environment: admin)
            let session = try started.object()
            #expect(session["hasPasscode"] as? Bool == true)
            let code = try #require(session["code"] as? String)
            let live = try await Self.podium(["sessions", "list", "--live", "--json", "--url", url])
            #expect(try live.objects().map { $0["code"] as? String } == [code])
            let history = try await Self.podium(["sessions", "list", "--json"], environment: admin)
            #expect(try history.objects().map { $0["code"] as? String } == [code])
            let ended = try await Self.podium(["sessions", "end", code, "--json"], environment: admin)
            #expect(try ended.object()["live"] as? Bool == false)
            let report = try await Self.podium(["sessions", "report", code, "--json"], environment: admin)
            #expect(try report.object()["code"] as? String == code)
            let csv = try await Self.podium(["sessions", "report", code, "--csv", "attendance", "--json"], environment: admin)
            #expect(csv.status == 0, "\(csv.stderr)")

            // rooms open, export (nothing shown yet: the server's no, exit 2 with its code).
            let opened = try await Self.podium(["rooms", "open", "--title", "Seminar", "--json"], environment: admin)
            let room = try opened.object()
            #expect(room["kind"] as? String == "room")
            let roomCode = try #require(room["code"] as? String)
            let empty = try await Self.podium(["rooms", "export", roomCode, "--json"], environment: admin)
            #expect(empty.status == 2)
            #expect((try empty.object()["error"] as? [String: Any])?["code"] as? String == "nothing_shown")

            // users add, list, passwd, member.
            let added = try await Self.podium(
                ["users", "add", "ann@example.org", "--name", "Ann", "--json"], environment: admin, stdin: "first password\n")
            #expect(added.status == 0, "\(added.stderr)")
            #expect(try added.object()["email"] as? String == "ann@example.org")
            let users = try await Self.podium(["users", "list", "--search", "ann", "--json"], environment: admin)
            #expect(try users.objects().count == 1)
            let passwd = try await Self.podium(
                ["users", "passwd", "ann@example.org"],
                environment: admin.merging(["PODIUM_NEW_PASSWORD": "second password"]) { $1 })
            #expect(passwd.status == 0, "\(passwd.stderr)")
            let ann = ["PODIUM_URL": url, "PODIUM_EMAIL": "ann@example.org", "PODIUM_PASSWORD": "second password"]
            #expect(try await Self.podium(["decks", "list", "--json"], environment: ann).status == 0)
            let member = try await Self.podium(["users", "member", "ann@example.org", "--on", "--json"], environment: admin)
            #expect(try member.object()["member"] as? Bool == true)
            // A presenter is not an admin: the server's no.
            let refused = try await Self.podium(["users", "list", "--json"], environment: ann)
            #expect(refused.status == 2)

            // A token works as well as a password.
            let token = try await client.login()
            let byToken = try await Self.podium(
                ["decks", "list", "--json"], environment: ["PODIUM_URL": url, "PODIUM_TOKEN": token])
            #expect(byToken.status == 0)
        }
    }

    @Test func exitCodesForAWrongPasswordAMissingServerAndBadUsage() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else {
            Issue.record("build the podium binary first (swift build): \(Self.binary.path)")
            return
        }
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let url = "http://127.0.0.1:\(client.port)"
            let wrong = try await Self.podium(
                ["decks", "list", "--json"], environment: ["PODIUM_URL": url, "PODIUM_EMAIL": "admin", "PODIUM_PASSWORD": "nope"])
            #expect(wrong.status == 4, "\(wrong.stderr)")
            #expect((try wrong.object()["error"] as? [String: Any])?["code"] as? String == "not_signed_in")
            let none = try await Self.podium(["decks", "list"], environment: ["PODIUM_URL": url])
            #expect(none.status == 4)
            #expect(none.stderr.contains("Not signed in"))
            let badToken = try await Self.podium(
                ["decks", "list"], environment: ["PODIUM_URL": url, "PODIUM_TOKEN": "nonsense"])
            #expect(badToken.status == 4)
        }
        // A port nobody listens on (the server above has stopped).
        let gone = try await Self.podium(
            ["decks", "list", "--json"], environment: ["PODIUM_URL": "http://127.0.0.1:1", "PODIUM_TOKEN": "x"])
        #expect(gone.status == 3, "\(gone.stderr)")
        #expect((try gone.object()["error"] as? [String: Any])?["code"] as? String == "unreachable")
        let noURL = try await Self.podium(["decks", "list"])
        #expect(noURL.status == 1)
        let badFlag = try await Self.podium(["decks", "list", "--no-such-flag"])
        #expect(badFlag.status == 64)
    }
}
