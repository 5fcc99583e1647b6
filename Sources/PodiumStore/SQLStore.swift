import Foundation
import Logging
import PodiumCore
import SQLKit
import SQLiteKit

/// The store on SQL. SQLite (WAL, one file in the data directory) is the default.
///
/// Every operation goes through one ``SerialGate``: SQLite has a single writer anyway, and the
/// gate makes multi-statement transactions safe on the shared connection.
public final class SQLStore: Sendable {
    let db: any SQLDatabase
    let gate = SerialGate()
    private let connection: SQLiteConnection
    static let decoding = SQLRowDecoder(keyDecodingStrategy: .convertFromSnakeCase)

    private init(connection: SQLiteConnection, logger: Logger) {
        self.connection = connection
        self.db = connection.sql(queryLogLevel: .trace)
    }

    /// Opens (creating if needed) the SQLite database at `path` and runs pending migrations.
    /// `path` nil opens a private in-memory database.
    public static func openSQLite(path: String?, logger: Logger) async throws -> SQLStore {
        let storage: SQLiteConnection.Storage = path.map { .file(path: $0) } ?? .memory
        let connection = try await SQLiteConnection.open(storage: storage, logger: logger)
        let store = SQLStore(connection: connection, logger: logger)
        if path != nil {
            // WAL lets readers run while a write commits; synchronous=NORMAL is durable across
            // process crashes in WAL mode (only a power loss can drop the last transactions).
            try await store.db.raw("PRAGMA journal_mode=WAL").run()
            try await store.db.raw("PRAGMA synchronous=NORMAL").run()
        }
        do {
            try await store.db.raw("PRAGMA foreign_keys=ON").run()
            try await Migrations.run(on: store.db, logger: logger)
        } catch {
            // A connection dropped open stops a debug build (SQLiteNIO asserts): close it first.
            try? await store.close()
            throw error
        }
        return store
    }

    /// Closes the database. This runs even when the calling task is cancelled (a server stopped
    /// mid-way): SQLiteNIO's async `close()` skips its work under cancellation and then asserts,
    /// in debug builds, that a connection was dropped open. The future-returning one always runs.
    public func close() async throws {
        try await connection.close().get()
    }

    /// Runs `body` alone on the connection.
    func serial<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await gate.run { try await body(self.db) }
    }

    /// Runs `body` inside BEGIN/COMMIT, rolling back if it throws.
    func transaction<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await gate.run {
            try await self.db.raw("BEGIN IMMEDIATE").run()
            do {
                let result = try await body(self.db)
                try await self.db.raw("COMMIT").run()
                return result
            } catch {
                try? await self.db.raw("ROLLBACK").run()
                throw error
            }
        }
    }
}
