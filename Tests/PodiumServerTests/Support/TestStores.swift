import Foundation
import Logging
import NIOPosix
import PostgresKit
import Synchronization
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
            return try await withPostgresDatabase(migrated: true) { url in
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
            let url = try await createDatabase(migrated: true)
            do {
                let store = try await SQLStore.openPostgres(url: url, maximumConnections: 8, logger: TestServer.logger())
                return (store, { try? await dropDatabase(url) })
            } catch {
                try? await dropDatabase(url)
                throw error
            }
        }
    }

    /// The stores of two nodes on one database: on PostgreSQL two stores (two pools) on one new
    /// database, as two servers have; on SQLite, which one process owns, the one store twice.
    /// `close` closes them and drops the database.
    static func openNodes(_ kind: StoreKind) async throws -> (
        first: SQLStore, second: SQLStore, close: @Sendable () async -> Void
    ) {
        switch kind {
        case .sqlite:
            let store = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
            return (store, store, { try? await store.close() })
        case .postgres:
            let url = try await createDatabase(migrated: true)
            do {
                let first = try await SQLStore.openPostgres(url: url, maximumConnections: 8, logger: TestServer.logger())
                guard
                    let second = try? await SQLStore.openPostgres(
                        url: url, maximumConnections: 8, logger: TestServer.logger())
                else {
                    try? await first.close()
                    throw NoPostgres()
                }
                return (
                    first, second,
                    {
                        try? await first.close()
                        try? await second.close()
                        try? await dropDatabase(url)
                    }
                )
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

    /// Runs `body` with the URL of a new PostgreSQL database, dropped afterwards: empty, or
    /// (`migrated`) with every migration applied (see ``createDatabase(migrated:)``).
    static func withPostgresDatabase<T: Sendable>(migrated: Bool = false, _ body: (String) async throws -> T)
        async throws -> T
    {
        let url = try await createDatabase(migrated: migrated)
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

    /// Creates `podium_t_<random>` on the test server and returns its URL: empty, or (`migrated`)
    /// a copy of ``migratedTemplate()``, as a store opened on an empty one would leave it.
    /// Applying the migrations statement by statement took about 2 s of a busy machine per
    /// database (some 90 databases a run); copying the template takes a fraction of that.
    static func createDatabase(migrated: Bool = false) async throws -> String {
        guard let base = databaseURL else { throw NoPostgres() }
        let name = "podium_t_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16))"
        try await create(name, migrated: migrated, on: base)
        var components = try #require(URLComponents(string: base))
        components.path = "/\(name)"
        return try #require(components.string)
    }

    /// Creates the database `name`: a copy of the migrated template when `migrated` and one could
    /// be made, else empty (the store's own migrations then do the work).
    private static func create(_ name: String, migrated: Bool, on base: String) async throws {
        let template = migrated ? try? await migratedTemplate() : nil
        try await administer(base) { db in
            if let template {
                try await db.raw("CREATE DATABASE \(ident: name) TEMPLATE \(ident: template)").run()
            } else {
                try await db.raw("CREATE DATABASE \(ident: name)").run()
            }
        }
    }

    /// The template's name: the migrations' text hashed, so a changed or added migration gets a
    /// template of its own, and runs of one build (or several test processes at once) share it.
    static let templateName: String = {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for migration in Migrations.all {
            let text =
                "\(migration.version)\u{1}\(migration.name)\u{1}"
                + (migration.postgres ?? migration.statements).joined(separator: "\u{1}")
            for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        return "podium_tpl_\(String(hash, radix: 16))"
    }()

    private static let template = Mutex<Task<String, any Error>?>(nil)

    /// A database on the test server with every migration applied, made once (by the first
    /// process that needs it, under a name of its own and renamed when complete, so a template
    /// by this name is always whole) and never connected to afterwards, as
    /// `CREATE DATABASE … TEMPLATE` requires.
    static func migratedTemplate() async throws -> String {
        let task = template.withLock { task in
            if let task { return task }
            let made = Task { try await makeTemplate() }
            task = made
            return made
        }
        return try await task.value
    }

    private static func makeTemplate() async throws -> String {
        guard let base = databaseURL else { throw NoPostgres() }
        let name = templateName
        if try await databaseExists(name, on: base) { return name }
        let building = try await createDatabase()
        do {
            let store = try await SQLStore.openPostgres(url: building, maximumConnections: 1, logger: TestServer.logger())
            try await store.close()
            let buildingName = String(try #require(URLComponents(string: building)).path.dropFirst())
            try await administer(base) { db in
                try await db.raw(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(bind: buildingName)"
                ).run()
                try await db.raw("ALTER DATABASE \(ident: buildingName) RENAME TO \(ident: name)").run()
            }
        } catch {
            try? await dropDatabase(building)
            // Another process renamed its template first: use that one.
            if try await databaseExists(name, on: base) { return name }
            throw error
        }
        return name
    }

    private static func databaseExists(_ name: String, on base: String) async throws -> Bool {
        let found = Mutex(false)
        try await administer(base) { db in
            struct Row: Decodable { let datname: String }
            let rows = try await db.raw("SELECT datname FROM pg_database WHERE datname = \(bind: name)").all(
                decoding: Row.self)
            found.withLock { $0 = !rows.isEmpty }
        }
        return found.withLock { $0 }
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

    /// Creates the database `url` names unless it exists (a server started again on it), as a
    /// copy of the migrated template (the server's start then finds every migration applied).
    static func ensureDatabase(_ url: String) async throws {
        guard let base = databaseURL else { throw NoPostgres() }
        let name = String(try #require(URLComponents(string: url)).path.dropFirst())
        if try await databaseExists(name, on: base) { return }
        try await create(name, migrated: true, on: base)
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
