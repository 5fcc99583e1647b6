import Foundation
import Logging
import NIOConcurrencyHelpers
import PodiumCore
import PostgresKit
import SQLKit
import SQLiteKit

/// The store on SQL, one implementation for two databases: SQLite (WAL, one file in the data
/// directory) by default, PostgreSQL for several nodes.
///
/// On SQLite every operation goes through one ``SerialGate``: SQLite has a single writer anyway,
/// and the gate makes multi-statement transactions safe on the shared connection. On PostgreSQL
/// every operation leases a connection from a pool; a transaction is BEGIN/COMMIT on one leased
/// connection. The statements are the same on both wherever SQL allows (see ``Dialect``).
public final class SQLStore: StoreHealth {
    /// The database underneath, for the few places where SQL differs.
    public enum Dialect: Sendable {
        case sqlite
        case postgres
    }

    private enum Backend: Sendable {
        case sqlite(SQLiteConnection, any SQLDatabase, SerialGate)
        case postgres(PostgresClient, Task<Void, Never>, Logger)
    }

    private let backend: Backend
    /// On PostgreSQL: whether the database can be reached, so that operations fail at once
    /// while it cannot (see ``StoreAvailability``). SQLite has none.
    public let availability: StoreAvailability?
    /// Hellos' writes, committed together when they arrive together (see ``GroupCommit``).
    let visits = GroupCommit<VisitWrite, ViewerEntry?>(maximum: 64)
    static let decoding = SQLRowDecoder(keyDecodingStrategy: .convertFromSnakeCase)

    public var dialect: Dialect {
        switch backend {
        case .sqlite: .sqlite
        case .postgres: .postgres
        }
    }

    /// The connection pool when on PostgreSQL (the session bus listens on a connection of its own).
    public var postgresClient: PostgresClient? {
        if case .postgres(let client, _, _) = backend { return client }
        return nil
    }

    private init(backend: Backend, availability: StoreAvailability? = nil) {
        self.backend = backend
        self.availability = availability
    }

    /// Opens (creating if needed) the SQLite database at `path` and runs pending migrations.
    /// `path` nil opens a private in-memory database. `migrate` false leaves the schema as it is
    /// (`podium backup` and `check` read a database without changing it).
    public static func openSQLite(path: String?, migrate: Bool = true, logger: Logger) async throws -> SQLStore {
        let storage: SQLiteConnection.Storage = path.map { .file(path: $0) } ?? .memory
        let connection = try await SQLiteConnection.open(storage: storage, logger: logger)
        let store = SQLStore(backend: .sqlite(connection, connection.sql(queryLogLevel: .trace), SerialGate()))
        do {
            try await store.serial(limit: nil) { db in
                if path != nil, migrate {
                    // WAL lets readers run while a write commits; synchronous=NORMAL is durable across
                    // process crashes in WAL mode (only a power loss can drop the last transactions).
                    try await db.raw("PRAGMA journal_mode=WAL").run()
                    try await db.raw("PRAGMA synchronous=NORMAL").run()
                }
                try await db.raw("PRAGMA foreign_keys=ON").run()
                // Another process (the server) may be writing: wait for its lock rather than fail.
                try await db.raw("PRAGMA busy_timeout=10000").run()
                if migrate { try await Migrations.run(on: db, dialect: .sqlite, logger: logger) }
            }
        } catch {
            // A connection dropped open stops a debug build (SQLiteNIO asserts): close it first.
            try? await store.close()
            throw error
        }
        return store
    }

    /// Connects to PostgreSQL at `url` (`postgres://user:password@host:port/database`, with
    /// `sslmode` `disable`, `prefer` (the default) or `require`, and `sslrootcert` to trust a
    /// CA file) and runs pending migrations, under an advisory lock so that nodes starting
    /// together migrate once.
    /// `migrate` false leaves the schema as it is (`podium backup`, `restore` and `check`).
    public static func openPostgres(url: String, maximumConnections: Int = 20, migrate: Bool = true, logger: Logger)
        async throws -> SQLStore
    {
        let settings = try PostgresURL(url)
        // One connection first, to fail with the reason (refused, a wrong password, no such
        // database) rather than have the pool retry for ever while the start waits.
        try await settings.probe(logger: logger)
        var configuration = settings.clientConfiguration
        configuration.options.maximumConnections = maximumConnections
        // A transaction its client abandoned (a node killed mid-way, a connection lost between
        // statements) must not keep its locks: the next append of that session would wait behind
        // it. The server ends such a session after 10 s idle inside a transaction.
        configuration.options.additionalStartupParameters.append(("idle_in_transaction_session_timeout", "10000"))
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let run = Task {
            start.finish()
            await client.run()
        }
        // The pool leases nothing until it runs (and warns of a lease before): wait for its task.
        for await _ in started {}
        let availability = StoreAvailability(
            changed: { available in
                if available {
                    logger.notice("the database answers again")
                } else {
                    logger.error("the database cannot be reached: store operations fail at once until it answers")
                }
            },
            probe: {
                // A probe that hangs (packets dropped on the way) counts as failed after 2 s.
                try await OperationDeadline.run(limit: .seconds(2), abandoned: { _ in }) {
                    try await settings.reach(logger: logger)
                }
            })
        let store = SQLStore(backend: .postgres(client, run, logger), availability: availability)
        guard migrate else { return store }
        do {
            try await store.serial(limit: nil) { db in
                try await Migrations.runLocked(on: db, logger: logger)
            }
        } catch {
            try? await store.close()
            throw error
        }
        return store
    }

    /// Closes the database. This runs even when the calling task is cancelled (a server stopped
    /// mid-way): SQLiteNIO's async `close()` skips its work under cancellation and then asserts,
    /// in debug builds, that a connection was dropped open. The future-returning one always runs.
    public func close() async throws {
        switch backend {
        case .sqlite(let connection, _, _):
            try await connection.close().get()
        case .postgres(_, let run, _):
            // Cancelling the client's run closes its connections.
            run.cancel()
            await run.value
        }
    }

    /// A trivial query: whether the database answers.
    public func ping() async throws {
        struct Row: Decodable { let one: Int }
        _ = try await serial { db in try await db.raw("SELECT 1 AS one").first(decoding: Row.self) }
    }

    /// The longest a caller waits for one store operation on PostgreSQL (the lease included)
    /// before it is let go with an error and the connection closed (``OperationDeadline``). A
    /// statement can wait for ever behind a lock that an abandoned transaction holds, or on a
    /// connection the server dropped without the client noticing; a live session's command gate
    /// waits behind it, and so would every viewer. Migrations and `migrate-data` run without it.
    static let operationLimit = Duration.seconds(15)

    /// Runs `body` alone on a connection: the one SQLite connection behind the gate, or a
    /// PostgreSQL connection leased for it (given up after `limit`, or as soon as the connection
    /// is closed under it).
    func serial<T: Sendable>(
        limit: Duration? = SQLStore.operationLimit, _ body: @escaping @Sendable (any SQLDatabase) async throws -> T
    ) async throws -> T {
        try await leased(limit: limit) { db, _ in try await body(db) }
    }

    /// Runs `body` inside BEGIN/COMMIT on one connection, rolling back if it throws.
    func transaction<T: Sendable>(
        limit: Duration? = SQLStore.operationLimit, _ body: @escaping @Sendable (any SQLDatabase) async throws -> T
    ) async throws -> T {
        let begin: SQLQueryString = dialect == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN"
        return try await leased(limit: limit) { db, discard in
            try await db.raw(begin).run()
            do {
                let result = try await body(db)
                try await db.raw("COMMIT").run()
                return result
            } catch {
                do {
                    try await db.raw("ROLLBACK").run()
                } catch {
                    // A connection left inside a transaction would hold its locks and give its
                    // next user a transaction it never began: it goes.
                    await discard()
                }
                throw error
            }
        }
    }

    /// `body` with a database and a way to close the connection under it (PostgreSQL; SQLite's
    /// one connection is never closed here).
    private func leased<T: Sendable>(
        limit: Duration?,
        _ body: @escaping @Sendable (any SQLDatabase, _ discard: @escaping @Sendable () async -> Void) async throws -> T
    ) async throws -> T {
        switch backend {
        case .sqlite(_, let db, let gate):
            return try await gate.run { try await body(db, {}) }
        case .postgres(let client, _, let logger):
            let leasedConnection = NIOLockedValueBox<PostgresConnection?>(nil)
            let run: @Sendable () async throws -> T = {
                try await client.withConnection { connection in
                    leasedConnection.withLockedValue { $0 = connection }
                    return try await body(connection.sql(queryLogLevel: .trace), { try? await connection.close() })
                }
            }
            guard let limit else { return try await run() }
            // Known to be unreachable: fail at once, not after the limit.
            try availability?.check()
            do {
                // The wait for a lease counts too: a pool that hands out no connection must not
                // hold its caller for ever either.
                return try await OperationDeadline.run(
                    limit: limit,
                    hopeless: { leasedConnection.withLockedValue { $0?.isClosed ?? false } },
                    availability: availability,
                    abandoned: { reason in
                        logger.error("a database operation was given up, its caller let go: \(reason)")
                        // Closing fails what still runs on the connection, when it can; the pool opens another.
                        if let stuck = leasedConnection.withLockedValue({ $0 }) { Task { try? await stuck.close() } }
                    }, run)
            } catch {
                availability?.failed(error)
                throw error
            }
        }
    }

    /// Whether `error` is a uniqueness (or primary key) violation, on either database.
    static func isUniqueViolation(_ error: any Error) -> Bool {
        if let error = error as? SQLiteError {
            switch error.reason {
            case .constraint, .constraintPrimaryKeyFailed, .constraintUniqueFailed: return true
            default: return false
            }
        }
        return PostgresURL.sqlState(of: error) == PostgresError.Code.uniqueViolation.raw
    }
}

/// A PostgreSQL connection URL, `postgres://user:password@host:port/database?sslmode=...&sslrootcert=...`.
/// Certificates are always verified when TLS is used.
struct PostgresURL: Sendable {
    enum TLSMode: Sendable {
        case disable, prefer, require
    }

    let host: String
    let port: Int
    let username: String
    let password: String?
    let database: String?
    let tlsMode: TLSMode
    let tls: TLSConfiguration

    init(_ text: String) throws {
        guard let components = URLComponents(string: text), let scheme = components.scheme,
            ["postgres", "postgresql"].contains(scheme)
        else {
            throw StoreConfigurationError("a database URL looks like postgres://user:password@host:5432/database")
        }
        guard let host = components.host, !host.isEmpty else {
            throw StoreConfigurationError("the database URL has no host")
        }
        guard let user = components.user, !user.isEmpty else {
            throw StoreConfigurationError("the database URL has no user name")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        let query = components.queryItems ?? []
        var tls = TLSConfiguration.makeClientConfiguration()
        if let rootCertificate = query.last(where: { $0.name == "sslrootcert" })?.value {
            tls.trustRoots = .file(rootCertificate)
        }
        let mode = query.last(where: { $0.name == "sslmode" })?.value ?? "prefer"
        switch mode {
        case "disable": tlsMode = .disable
        case "allow", "prefer": tlsMode = .prefer
        case "require", "verify-ca", "verify-full": tlsMode = .require
        default:
            throw StoreConfigurationError(
                "sslmode \(mode) is not one of disable, allow, prefer, require, verify-ca, verify-full")
        }
        self.host = host
        self.port = components.port ?? 5432
        self.username = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database.isEmpty ? nil : (database.removingPercentEncoding ?? database)
        self.tls = tls
    }

    var clientConfiguration: PostgresClient.Configuration {
        let mode: PostgresClient.Configuration.TLS =
            switch tlsMode {
            case .disable: .disable
            case .prefer: .prefer(tls)
            case .require: .require(tls)
            }
        return PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: mode)
    }

    /// Where, for messages (no password).
    var location: String { "\(host):\(port)/\(database ?? username)" }

    /// Opens and closes one connection; throws why it could not be made.
    func probe(logger: Logger) async throws {
        let mode: PostgresConnection.Configuration.TLS =
            switch tlsMode {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: tls))
            case .require: .require(try NIOSSLContext(configuration: tls))
            }
        let configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: mode)
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        } catch {
            throw StoreConfigurationError("cannot connect to PostgreSQL at \(location): \(Self.reason(error))")
        }
        try? await connection.close()
    }

    /// Opens a connection, runs `SELECT 1` and closes it: whether the database can be reached
    /// (``StoreAvailability``'s probe). Throws why not.
    func reach(logger: Logger) async throws {
        let mode: PostgresConnection.Configuration.TLS =
            switch tlsMode {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: tls))
            case .require: .require(try NIOSSLContext(configuration: tls))
            }
        let configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: mode)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        do {
            _ = try await connection.query("SELECT 1", logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
    }

    /// What went wrong, in words: the server's message, or the network's error.
    static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if error.code == .sslUnsupported { return "the server does not offer TLS, which sslmode=require asks for" }
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return String(describing: underlying) }
            return String(reflecting: error.code)
        }
        return String(describing: error)
    }

    /// `text` as a client configuration (tests connect with it).
    static func clientConfiguration(_ text: String) throws -> PostgresClient.Configuration {
        try PostgresURL(text).clientConfiguration
    }

    /// The SQLSTATE of a PostgreSQL error, whichever way the driver reported it.
    static func sqlState(of error: any Error) -> String? {
        if let error = error as? PSQLError { return error.serverInfo?[.sqlState] }
        if let error = error as? PostgresError, case .server = error { return error.code.raw }
        return nil
    }
}

/// A store setting that cannot work (a malformed database URL), with what to write instead.
public struct StoreConfigurationError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
