import Foundation
import HTTPTypes
import Logging
import NIOCore
import PodiumStore
import ServiceLifecycle
import Testing

@testable import PodiumServer

/// The real application in-process, on a temporary data directory with real SQLite, Poppler and
/// qpdf. Each test gets its own.
struct TestServer {
    static let adminPassword = "correct horse battery staple"
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures/pdf")
    static let demoDeck = repositoryRoot.appendingPathComponent("Public/demo/podium-demo.pdf")

    let configuration: ServerConfiguration

    /// A server on `store`: SQLite in its data directory, or a PostgreSQL database of its own
    /// (`configuration.databaseURL`, created at the first run and dropped by ``removeData()``),
    /// opened by `buildApplication` as `podium serve --database` does. Servers made with the
    /// same data directory share the database, as a restarted server does.
    init(dataDirectory: URL? = nil, store: StoreKind = .sqlite, configure: (inout ServerConfiguration) -> Void = { _ in }) {
        let directory =
            dataDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("podium-test-\(UUID().uuidString)")
        var configuration = ServerConfiguration(
            dataDirectory: directory, webRoot: Self.repositoryRoot.appendingPathComponent("Public"))
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.adminPassword = Self.adminPassword
        configuration.seedDemoDeck = false
        // The cheapest bcrypt cost: these tests check behaviour, not password strength.
        configuration.bcryptCost = 4
        // Small page images: drawing pages at 1920 px was most of the whole suite's CPU (pdftoppm,
        // some 200 s on two cores). These tests check what is done with the pages, not their
        // pixels; PodiumMediaTests checks the images at the default sizes.
        configuration.ingestLimits.pageImageSize = 480
        // Some tests leave the test client's connection idle for minutes; it would reconnect, but
        // a connection the server closes just as a request goes out fails that request.
        configuration.httpIdleTimeout = .seconds(600)
        if store == .postgres, let base = TestStores.databaseURL, var components = URLComponents(string: base) {
            components.path = "/podium_t_" + Self.databaseName(for: directory)
            configuration.databaseURL = components.string
        }
        configure(&configuration)
        self.configuration = configuration
    }

    /// A second node beside this one: a data directory of its own, this node's blob directory
    /// (nodes share their blobs, as `--blob-dir` on a network file system does). Either node may
    /// claim a job of the shared queue, such as the ingest of a deck uploaded to the other.
    func nodeBeside() -> TestServer {
        let blobs = configuration.blobDirectory
        return TestServer { $0.blobDirectory = blobs }
    }

    static func logger() -> Logger {
        var logger = Logger(label: "podium-test")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        return logger
    }

    /// A database name of the data directory's path: the same directory, the same database.
    static func databaseName(for directory: URL) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in directory.standardizedFileURL.path.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    /// Runs `body` against the live server (a real port, so WebSockets work): the application
    /// runs as a service until `body` returns or throws, then shuts down gracefully, and `run`
    /// returns once it has stopped. The test client's connection is closed first; one the server
    /// closed already (tests of `httpIdleTimeout`) is no error. `body`'s error comes first, then
    /// the server's.
    ///
    /// `store` gives every part of the store; `stores` its parts one by one (a test double in
    /// place of one: see StoreDoubles.swift).
    func run(
        store: (any PodiumStore)? = nil, stores: Stores? = nil, bus: (any SessionBus)? = nil,
        now: @escaping @Sendable () -> Date = { Date() }, _ body: @escaping @Sendable (Client) async throws -> Void
    ) async throws {
        let stores = stores ?? store.map { Stores($0) }
        if stores == nil, let url = configuration.databaseURL { try await TestStores.ensureDatabase(url) }
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let (app, _) = try await buildApplication(
            configuration: configuration, stores: stores, bus: bus, logger: Self.logger(), now: now,
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            })
        let services = ServiceGroup(configuration: .init(services: [app], logger: Self.logger()))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { portContinuation.finish() }  // a server that stopped before it listened
                try await services.run()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await group.waitForAll()
                throw ServerDidNotStart()
            }
            let client = Client(http: TestHTTPClient(port: port), port: port)
            let outcome: Result<Void, any Error>
            do {
                try await body(client)
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            await client.http.close()
            // A job still held (the test failed before it let it go) would keep the graceful
            // stop waiting for ever.
            for worker in configuration.additionalJobWorkers { (worker as? HeldWorker)?.openForGood() }
            await services.triggerGracefulShutdown()
            let stopped = await group.nextResult()
            try outcome.get()
            try stopped?.get()
        }
    }

    struct ServerDidNotStart: Error {}

    func removeData() {
        try? FileManager.default.removeItem(at: configuration.dataDirectory)
        // On a thread of its own, not waited for: `removeData` runs in a test's `defer`, on the
        // cooperative pool, and a DROP DATABASE waited for there blocked one of its (on two
        // cores) two threads; several at once stalled every server of the run for a minute.
        if let url = configuration.databaseURL { Thread { TestStores.dropDatabaseNow(url) }.start() }
    }
}

/// A test client with the calls the tests make over and over.
struct Client: Sendable {
    let http: TestHTTPClient
    let port: Int

    @discardableResult
    func request(
        _ method: HTTPRequest.Method, _ path: String, token: String? = nil, headers: HTTPFields = [:],
        json: String? = nil, body: ByteBuffer? = nil
    ) async throws -> TestResponse {
        var headers = headers
        if let token { headers[.authorization] = "Bearer \(token)" }
        var payload = body
        if let json {
            headers[.contentType] = "application/json"
            payload = ByteBuffer(string: json)
        }
        return try await http.execute(method, path, headers: headers, body: payload)
    }

    func login(email: String = "admin", password: String = TestServer.adminPassword) async throws -> String {
        let response = try await request(.post, "/api/v1/auth/login", json: #"{"email":"\#(email)","password":"\#(password)"}"#)
        #expect(response.status == .ok)
        return try #require(try response.object()["token"] as? String)
    }

    /// Uploads a PDF as the raw body and returns the new deck's JSON.
    func upload(_ file: URL, token: String, title: String? = nil) async throws -> TestResponse {
        let data = try Data(contentsOf: file)
        var path = "/api/v1/decks"
        if let title { path += "?title=\(title.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
        return try await request(
            .post, path, token: token, headers: [.contentType: "application/pdf"], body: ByteBuffer(bytes: data))
    }

    /// Polls the deck until processing has finished, as the library page does.
    func waitForDeck(_ id: String, token: String) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            let deck = try await request(.get, "/api/v1/decks/\(id)", token: token).object()
            if deck["status"] as? String != "processing" { return deck }
            try await ContinuousClock().sleep(for: .milliseconds(50))
        }
        Issue.record("deck \(id) still processing after 120 s")
        return [:]
    }

    /// Uploads and waits until ready; returns the deck id.
    func readyDeck(_ file: URL = TestServer.demoDeck, token: String) async throws -> String {
        let id = try #require(try await upload(file, token: token).object()["id"] as? String)
        let deck = try await waitForDeck(id, token: token)
        #expect(deck["status"] as? String == "ready")
        return id
    }

    func startSession(deckId: String, token: String, passcode: String? = nil, allowDownload: Bool = false) async throws
        -> [String: Any]
    {
        var body: [String: Any] = ["deckId": deckId, "allowDownload": allowDownload]
        if let passcode { body["passcode"] = passcode }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        let response = try await request(.post, "/api/v1/sessions", token: token, json: json)
        #expect(response.status == .created)
        return try response.object()
    }

    /// Signs in as the admin, starts a session of the demo deck and joins it as its presenter.
    func presentSession() async throws -> (token: String, code: String, presenter: TestSocket) {
        let token = try await login()
        let deckId = try await readyDeck(token: token)
        let code = try #require(try await startSession(deckId: deckId, token: token)["code"] as? String)
        let presenter = try await socket(code: code)
        #expect(try await presenter.hello(["role": "presenter", "token": token])["type"] as? String == "welcome")
        return (token, code, presenter)
    }

    func socket(code: String, headers: HTTPFields = [:], maxSize: Int = 1 << 20) async throws -> TestSocket {
        try await TestSocket.connect(port: port, path: "/api/v1/sessions/\(code)/live", headers: headers, maxSize: maxSize)
    }
}

extension TestResponse {
    func object() throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
            "not a JSON object: \(String(buffer: body))")
    }

    func array() throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [[String: Any]])
    }

    var errorCode: String? {
        ((try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any])?["error"] as? [String: Any])?["code"]
            as? String
    }

    /// The error body's message (empty when there is none).
    func errorMessage() throws -> String {
        ((try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any])?["error"] as? [String: Any])?["message"]
            as? String ?? ""
    }
}

extension TestServer {
    /// A fresh server with the demo deck ready and a live session started by the admin: the
    /// starting point of most socket tests. Hands `body` the client, the admin's token and the code.
    static func withLiveSession(
        passcode: String? = nil, store: StoreKind = .sqlite,
        _ body: @escaping @Sendable (Client, String, String) async throws -> Void
    ) async throws {
        let server = TestServer(store: store)
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let deckId = try await client.readyDeck(token: token)
            let session = try await client.startSession(deckId: deckId, token: token, passcode: passcode)
            try await body(client, token, try #require(session["code"] as? String))
        }
    }
}
