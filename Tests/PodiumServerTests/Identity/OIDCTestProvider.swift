import Foundation
import HTTPTypes
import NIOCore
import Synchronization
import Testing

/// The OpenID provider of Tests/OIDC/provider.py (authlib's server), started for one test on a
/// free port and stopped after it (its stdin closes with this process, so none outlives a run).
final class OIDCTestProvider: Sendable {
    let port: Int
    /// Process is not Sendable; the mutex hands it over whole.
    private let process: Mutex<Process>
    private let stdin: FileHandle

    var issuer: String { "http://127.0.0.1:\(port)" }

    struct DidNotStart: Error, CustomStringConvertible { let description: String }

    init(clientSecret: String = "s3cret", authMethod: String = "client_secret_basic") throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            TestServer.repositoryRoot.appendingPathComponent("Tests/OIDC/provider.py").path, "--port", "0",
            "--client-id", "podium", "--client-secret", clientSecret, "--auth-method", authMethod,
        ]
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        // LOG_LEVEL set (as for the server's log): the provider's requests and errors show too.
        process.standardError = ProcessInfo.processInfo.environment["LOG_LEVEL"] == nil ? stderr : FileHandle.standardError
        try process.run()
        // The first line says the port (or the provider failed: python3-authlib or python3-flask missing).
        var line = Data()
        while let byte = try stdout.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 0x0A {
            line.append(first)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("listening on "), let port = Int(text.dropFirst("listening on ".count)) else {
            process.terminate()
            let error = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw DidNotStart(description: "the OpenID provider did not start (scripts/setup --test installs it): \(error)")
        }
        self.stdin = stdin.fileHandleForWriting
        self.process = Mutex(process)
        self.port = port
    }

    /// One request on a connection of its own: the provider (werkzeug) closes each after its answer.
    func execute(_ method: HTTPRequest.Method, _ path: String, headers: HTTPFields = [:], body: ByteBuffer? = nil)
        async throws -> TestResponse
    {
        let http = TestHTTPClient(port: port)
        do {
            let response = try await http.execute(method, path, headers: headers, body: body)
            await http.close()
            return response
        } catch {
            await http.close()
            throw error
        }
    }

    func stop() async {
        try? stdin.close()
        process.withLock {
            $0.terminate()
            $0.waitUntilExit()
        }
    }

    /// Sets a person's claims, which their next ID token carries.
    func setUser(_ subject: String, _ claims: [String: Any]) async throws {
        let body = try JSONSerialization.data(withJSONObject: claims)
        let response = try await execute(
            .put, "/users/\(subject)", headers: [.contentType: "application/json"], body: ByteBuffer(bytes: body))
        #expect(response.status == .noContent)
    }

    /// Shows the authorization page for `url` (it checks the request), then answers it as the
    /// person would: `allow` signs `subject` in, `deny` says no. Returns where the provider sends
    /// the browser back.
    func answer(_ url: String, subject: String, action: String = "allow") async throws -> String {
        let components = try #require(URLComponents(string: url))
        let path = components.path + "?" + (components.percentEncodedQuery ?? "")
        let page = try await execute(.get, path)
        #expect(page.status == .ok, "\(String(buffer: page.body))")
        let answer = try await execute(
            .post, path, headers: [.contentType: "application/x-www-form-urlencoded"],
            body: ByteBuffer(string: "sub=\(subject)&action=\(action)"))
        #expect(answer.status == .found, "\(String(buffer: answer.body))")
        return try #require(answer.headers[.location])
    }
}
