import Foundation
import SQLKit

/// What a database holds, read the same way on SQLite and PostgreSQL for `podium backup`,
/// `restore` and `check`: its tables and their row counts, the schema version, and every blob
/// name its rows mention.
///
/// Blobs are found by their names, not by a list of columns: a blob name (`<64 hex>.<ext>`, see
/// ``FileBlobStore/isValidName(_:)``) is looked for in every text cell of every table, JSON included
/// (a video's segments, a radio track's files). A table or column added later is covered without
/// touching this file; a hex digest with an extension in a person's text would at worst be
/// reported as a missing blob, never lose one. The blob collector's own tables (its marks and
/// lease, ``Migrations/blobBookkeepingTables``) are counted but not searched: a mark is no use.
///
/// This is the one reference list: `podium check` reports orphans by it, `podium backup`
/// copies what it names, and the blob collector (``BlobCollector``) deletes only what it does
/// not name.
public struct DatabaseInventory: Sendable, Codable, Equatable {
    /// Rows per table, `podium_migrations` included.
    public var counts: [String: Int]
    /// The newest migration applied (0 when none).
    public var schemaVersion: Int
    /// Every migration version applied.
    public var appliedMigrations: [Int]
    /// Every blob name mentioned, sorted.
    public var blobs: [String]
    /// Every audio take (issue #44) by id, with its status: their files under
    /// `<blob-dir>/recordings` (``RecordingFiles``) are backed up, checked and kept by them.
    public var recordings: [String: String]

    /// Reads `db` (inside whatever transaction the caller holds, so of one moment).
    static func read(on db: any SQLDatabase, dialect: SQLStore.Dialect) async throws -> DatabaseInventory {
        let columns = try await textColumns(on: db, dialect: dialect)
        var counts: [String: Int] = [:]
        struct Count: Decodable { let count: Int }
        for table in Set(columns.map(\.table)).union(try await tables(on: db, dialect: dialect)) {
            counts[table] =
                try await db.raw("SELECT COUNT(*) AS count FROM \(ident: table)").first(decoding: Count.self)?.count ?? 0
        }
        var names = Set<String>()
        for column in columns where !Migrations.blobBookkeepingTables.contains(column.table) {
            let cast = dialect == .postgres ? "::text" : ""
            let rows = try await db.raw(
                """
                SELECT \(ident: column.column)\(unsafeRaw: cast) AS value FROM \(ident: column.table) \
                WHERE \(ident: column.column) IS NOT NULL
                """
            ).all()
            for row in rows {
                guard let text = try? row.decode(column: "value", as: String.self) else { continue }
                BlobNameScanner.collect(in: text, into: &names)
            }
        }
        let applied = try await appliedMigrations(on: db, dialect: dialect)
        return DatabaseInventory(
            counts: counts, schemaVersion: applied.max() ?? 0, appliedMigrations: applied, blobs: names.sorted(),
            recordings: counts["recordings"] == nil ? [:] : try await recordingTakes(on: db))
    }

    /// The audio takes' ids and statuses (the table exists).
    static func recordingTakes(on db: any SQLDatabase) async throws -> [String: String] {
        struct Row: Decodable {
            let id: String
            let status: String
        }
        let rows = try await db.raw("SELECT id, status FROM recordings").all(decoding: Row.self)
        return Dictionary(rows.map { ($0.id, $0.status) }, uniquingKeysWith: { first, _ in first })
    }

    /// The migration versions recorded in `podium_migrations` (none when the table is missing).
    static func appliedMigrations(on db: any SQLDatabase, dialect: SQLStore.Dialect) async throws -> [Int] {
        struct Row: Decodable { let version: Int }
        // Asked first: a failed statement would end a PostgreSQL transaction.
        guard try await tables(on: db, dialect: dialect).contains("podium_migrations") else { return [] }
        return try await db.raw("SELECT version FROM podium_migrations ORDER BY version").all(decoding: Row.self)
            .map(\.version)
    }

    /// The migration versions this build of Podium knows.
    public static var knownMigrations: [Int] { Migrations.all.map(\.version).sorted() }

    /// The user tables.
    static func tables(on db: any SQLDatabase, dialect: SQLStore.Dialect) async throws -> [String] {
        struct Row: Decodable { let name: String }
        let query: SQLQueryString =
            dialect == .sqlite
            ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            : """
            SELECT table_name AS name FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name
            """
        return try await db.raw(query).all(decoding: Row.self).map(\.name)
    }

    struct TextColumn: Sendable {
        let table: String
        let column: String
    }

    /// Every column that can hold text: a blob name can be nowhere else.
    static func textColumns(on db: any SQLDatabase, dialect: SQLStore.Dialect) async throws -> [TextColumn] {
        switch dialect {
        case .postgres:
            struct Row: Decodable {
                let tableName: String
                let columnName: String
            }
            return try await db.raw(
                """
                SELECT c.table_name, c.column_name FROM information_schema.columns c
                JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
                WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
                  AND c.data_type IN ('text', 'character varying', 'json', 'jsonb')
                ORDER BY c.table_name, c.ordinal_position
                """
            ).all(decoding: Row.self, with: SQLStore.decoding).map { TextColumn(table: $0.tableName, column: $0.columnName) }
        case .sqlite:
            struct Row: Decodable {
                let name: String
                let type: String
            }
            var columns: [TextColumn] = []
            for table in try await tables(on: db, dialect: dialect) {
                let rows = try await db.raw("SELECT name, type FROM pragma_table_info(\(bind: table))").all(decoding: Row.self)
                // SQLite's type affinity: a declared type containing TEXT, CHAR or CLOB (or none) holds text.
                for row in rows {
                    let type = row.type.uppercased()
                    if type.isEmpty || type.contains("TEXT") || type.contains("CHAR") || type.contains("CLOB") {
                        columns.append(TextColumn(table: table, column: row.name))
                    }
                }
            }
            return columns
        }
    }
}

/// Finds blob names (`<64 lowercase hex>.<1-5 letters or digits, a letter first>`) in text.
public enum BlobNameScanner {
    public static func names(in text: String) -> Set<String> {
        var names = Set<String>()
        collect(in: text, into: &names)
        return names
    }

    static func collect(in text: String, into names: inout Set<String>) {
        let bytes = Array(text.utf8)
        func isHex(_ byte: UInt8) -> Bool { (48...57).contains(byte) || (97...102).contains(byte) }
        func isNameCharacter(_ byte: UInt8) -> Bool { (48...57).contains(byte) || (97...122).contains(byte) }
        var run = 0  // lowercase hex digits just before index
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "."), run == 64 {
                var end = index + 1
                while end < bytes.count, isNameCharacter(bytes[end]), end - index <= 6 { end += 1 }
                let extensionLength = end - index - 1
                let startsWithLetter = extensionLength > 0 && (97...122).contains(bytes[index + 1])
                let endsCleanly = end == bytes.count || !isNameCharacter(bytes[end])
                if startsWithLetter, (1...5).contains(extensionLength), endsCleanly {
                    let name = String(decoding: bytes[(index - 64)..<end], as: UTF8.self)
                    if FileBlobStore.isValidName(name) { names.insert(name) }
                }
                run = 0
            } else if isHex(byte) {
                run += 1
            } else if isNameCharacter(byte) || (65...90).contains(byte) {
                // A longer word of letters and digits: its hex tail is no name.
                run = -10_000
            } else {
                run = 0
            }
            index += 1
        }
    }
}
