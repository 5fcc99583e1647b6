import ArgumentParser
import Foundation
import PodiumClient
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What every remote subcommand takes: where the server is, who signs in, how to answer.
///
/// Flags win over the environment: `--url` / `PODIUM_URL`, `--token` / `PODIUM_TOKEN`, or
/// `--email` / `PODIUM_EMAIL` with `PODIUM_PASSWORD` (a password is never a flag: it would show
/// in `ps` and the shell's history).
struct RemoteOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The server, e.g. http://podium.local:8080 (default: $PODIUM_URL).", valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("An API token (default: $PODIUM_TOKEN).", valueName: "token"))
    var token: String?

    @Option(help: ArgumentHelp("Sign in with this account; the password comes from $PODIUM_PASSWORD.", valueName: "email"))
    var email: String?

    @Flag(help: "Answer in JSON (stable field names, those of the REST API) for scripts.")
    var json = false

    var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// A client signed in as the flags and environment say; exits 1 without a URL, 4 without
    /// credentials or when the server refuses them, 3 when it cannot be reached.
    func client(signIn: Bool = true) async throws -> PodiumClient {
        guard let text = url ?? environment["PODIUM_URL"], !text.isEmpty else {
            throw RemoteFailure.usage("No server: pass --url or set PODIUM_URL.")
        }
        guard let base = URL(string: text), base.scheme == "http" || base.scheme == "https", base.host != nil else {
            throw RemoteFailure.usage("Not a server URL: \(text)")
        }
        let client = PodiumClient(baseURL: base)
        guard signIn else { return client }
        if let token = token ?? environment["PODIUM_TOKEN"], !token.isEmpty {
            client.token = token
            return client
        }
        guard let email = email ?? environment["PODIUM_EMAIL"], !email.isEmpty else {
            throw RemoteFailure.notSignedIn("Not signed in: pass --token, set PODIUM_TOKEN, or PODIUM_EMAIL and PODIUM_PASSWORD.")
        }
        guard let password = environment["PODIUM_PASSWORD"], !password.isEmpty else {
            throw RemoteFailure.notSignedIn("Not signed in: PODIUM_PASSWORD is not set for \(email).")
        }
        do {
            try await client.signIn(email: email, password: password)
        } catch let error as PodiumError where error.status == 401 || error.status == 400 {
            throw RemoteFailure.notSignedIn("Sign-in refused for \(email): \(error.message) (\(error.code))")
        }
        return client
    }

    /// Runs `body` and turns what it throws into the documented exit codes.
    func run(_ body: (Output) async throws -> Void) async throws {
        let output = Output(json: json)
        do {
            try await body(output)
        } catch let failure as RemoteFailure {
            output.fail(code: failure.code, message: failure.message, status: nil)
            throw ExitCode(failure.exitCode)
        } catch let error as PodiumError {
            let exit = error.status == 401 ? RemoteExit.notSignedIn : RemoteExit.refused
            output.fail(code: error.code, message: error.message, status: error.status)
            throw ExitCode(exit)
        } catch let error as PodiumTransportError {
            output.fail(code: "unreachable", message: error.description, status: nil)
            throw ExitCode(RemoteExit.unreachable)
        }
    }
}

/// The exit codes of the remote subcommands (docs/operations.md lists them).
enum RemoteExit {
    static let ok: Int32 = 0
    /// Bad arguments: ours, or the argument parser's own (which exits 64).
    static let usage: Int32 = 1
    /// The server said no; its error code is printed.
    static let refused: Int32 = 2
    /// The server could not be reached, or answered something that is not Podium.
    static let unreachable: Int32 = 3
    /// No credentials, or the server refused them (a wrong password, an expired token).
    static let notSignedIn: Int32 = 4
}

struct RemoteFailure: Error {
    let exitCode: Int32
    let code: String
    let message: String

    static func usage(_ message: String) -> RemoteFailure {
        RemoteFailure(exitCode: RemoteExit.usage, code: "usage", message: message)
    }
    static func notSignedIn(_ message: String) -> RemoteFailure {
        RemoteFailure(exitCode: RemoteExit.notSignedIn, code: "not_signed_in", message: message)
    }
}

/// Prints results: JSON on stdout with `--json`, else lines for people; errors on stderr (and
/// as `{"error": {"code", "message", "status"?}}` on stdout with `--json`); progress bars on
/// stderr while stderr is a terminal.
struct Output: Sendable {
    let json: Bool

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    /// `value` as JSON with `--json`, else `text()`.
    func emit(_ value: some Encodable, text: () -> String) throws {
        if json {
            print(String(decoding: try Self.encoder.encode(value), as: UTF8.self))
        } else {
            let lines = text()
            if !lines.isEmpty { print(lines) }
        }
    }

    func fail(code: String, message: String, status: Int?) {
        if json {
            var detail: [String: JSONValue] = ["code": .string(code), "message": .string(message)]
            if let status { detail["status"] = .number(Double(status)) }
            if let data = try? Self.encoder.encode(JSONValue.object(["error": .object(detail)])) {
                print(String(decoding: data, as: UTF8.self))
            }
        }
        FileHandle.standardError.write(Data("podium: \(message)\(status.map { " [\(code), HTTP \($0)]" } ?? "")\n".utf8))
    }

    /// A progress bar for `label` while stderr is a terminal; nil otherwise (scripts, `--json`).
    func progressBar(_ label: String) -> ProgressHandler? {
        guard !json, isatty(STDERR_FILENO) == 1 else { return nil }
        let bar = ProgressBar(label: label)
        return { bar.show($0) }
    }

    /// Ends a progress bar's line.
    func endProgress() {
        guard !json, isatty(STDERR_FILENO) == 1 else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}

/// Where a download goes: `--output`, else `name` in the current directory.
func outputURL(_ output: String?, default name: String) -> URL {
    URL(fileURLWithPath: output ?? name)
}
