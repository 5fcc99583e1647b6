import Foundation
import Logging
import NIOPosix
import PostgresKit
import Testing

@testable import PodiumStore

/// Which database a test runs on. Store tests and a set of server suites take it as an argument
/// (`@Test(arguments: TestStores.kinds)`): SQLite always, PostgreSQL when
/// `PODIUM_TEST_DATABASE_URL` names a server (`make test-swift` starts one, see scripts/postgres).
enum StoreKind: String, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

enum TestStores {
    /// The PostgreSQL server the tests may use: a URL whose user may create databases.
    static var databaseURL: String? {
        ProcessInfo.processInfo.environment["PODIUM_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The stores to run on: SQLite, and PostgreSQL when one is configured.
    static var kinds: [StoreKind] { databaseURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    /// Only PostgreSQL, when one is configured (tests of what SQLite cannot do: several stores on one database).
    static var postgresOnly: [StoreKind] { databaseURL == nil ? [] : [.postgres] }

    /// Runs `body` with a fresh, migrated store of `kind`: SQLite in memory, or PostgreSQL in a
    /// database of its own, dropped afterwards. The store is closed after `body`, even if it throws.
    static func with<T: Sendable>(_ kind: StoreKind, _ body: (SQLStore) async throws -> T) async throws -> T {
        switch kind {
        case .sqlite:
            let store = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
            return try await closing(store, body)
        case .postgres:
            return try await withPostgresDatabase { url in
                let store = try await SQLStore.openPostgres(url: url, maximumConnections: 8, logger: TestServer.logger())
                return try await closing(store, body)
            }
        }
    }

    /// Opens a store of `kind` that the caller closes; `cleanUp` (after closing) drops its database.
    static func open(_ kind: StoreKind) async throws -> (store: SQLStore, cleanUp: @Sendable () async -> Void) {
        switch kind {
        case .sqlite:
            let store = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
            return (store, {})
        case .postgres:
            let url = try await createDatabase()
            do {
                let store = try await SQLStore.openPostgres(url: url, maximumConnections: 8, logger: TestServer.logger())
                return (store, { try? await dropDatabase(url) })
            } catch {
                try? await dropDatabase(url)
                throw error
            }
        }
    }

    private static func closing<T: Sendable>(_ store: SQLStore, _ body: (SQLStore) async throws -> T) async throws -> T {
        do {
            let result = try await body(store)
            try await store.close()
            return result
        } catch {
            try? await store.close()
            throw error
        }
    }

    /// Runs `body` with the URL of a new, empty PostgreSQL database, dropped afterwards.
    static func withPostgresDatabase<T: Sendable>(_ body: (String) async throws -> T) async throws -> T {
        let url = try await createDatabase()
        do {
            let result = try await body(url)
            try await dropDatabase(url)
            return result
        } catch {
            try? await dropDatabase(url)
            throw error
        }
    }

    struct NoPostgres: Error, CustomStringConvertible {
        var description: String { "PODIUM_TEST_DATABASE_URL is not set" }
    }

    /// Creates `podium_t_<random>` on the test server and returns its URL.
    static func createDatabase() async throws -> String {
        guard let base = databaseURL else { throw NoPostgres() }
        let name = "podium_t_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16))"
        try await administer(base) { db in try await db.raw("CREATE DATABASE \(ident: name)").run() }
        var components = try #require(URLComponents(string: base))
        components.path = "/\(name)"
        return try #require(components.string)
    }

    /// Drops the database `url` names, closing any connection left to it.
    static func dropDatabase(_ url: String) async throws {
        guard let base = databaseURL else { throw NoPostgres() }
        let name = String(try #require(URLComponents(string: url)).path.dropFirst())
        try await administer(base) { db in try await db.raw("DROP DATABASE IF EXISTS \(ident: name) WITH (FORCE)").run() }
    }

    /// A URL for a new database name on the test server, not created yet (see ``ensureDatabase(_:)``).
    static func newDatabaseURL() throws -> String {
        guard let base = databaseURL else { throw NoPostgres() }
        var components = try #require(URLComponents(string: base))
        components.path = "/podium_t_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16))"
        return try #require(components.string)
    }

    /// Creates the database `url` names unless it exists (a server started again on it).
    static func ensureDatabase(_ url: String) async throws {
        guard let base = databaseURL else { throw NoPostgres() }
        let name = String(try #require(URLComponents(string: url)).path.dropFirst())
        try await administer(base) { db in
            struct Row: Decodable { let datname: String }
            let existing = try await db.raw("SELECT datname FROM pg_database WHERE datname = \(bind: name)").all(
                decoding: Row.self)
            if existing.isEmpty { try await db.raw("CREATE DATABASE \(ident: name)").run() }
        }
    }

    /// Drops the database `url` names, from synchronous code (a `defer`): the work runs on NIO's
    /// event loops, not on the task pool this thread may belong to.
    static func dropDatabaseNow(_ url: String) {
        guard let base = databaseURL, let name = URLComponents(string: url)?.path.dropFirst(),
            let configuration = try? SQLPostgresConfiguration(url: base).coreConfiguration
        else { return }
        let logger = TestServer.logger()
        guard
            let connection = try? PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger
            ).wait()
        else { return }
        _ = try? connection.simpleQuery(#"DROP DATABASE IF EXISTS "\#(name)" WITH (FORCE)"#).wait()
        try? connection.close().wait()
    }

    /// Runs `body` on one connection to the server's own database.
    private static func administer(_ url: String, _ body: @Sendable (any SQLDatabase) async throws -> Void) async throws {
        let client = PostgresClient(
            configuration: try PostgresURL.clientConfiguration(url), backgroundLogger: TestServer.logger())
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let run = Task {
            start.finish()
            await client.run()
        }
        for await _ in started {}
        defer { run.cancel() }
        try await client.withConnection { connection in try await body(connection.sql()) }
        run.cancel()
        await run.value
    }
}
