extension Migrations {
    /// Migration 27: resumable uploads (issue #41, tus): who may go on with one (a user or a
    /// room's guest, by key), what it becomes, its metadata, its length and the offset received,
    /// when it expires, and once done the answer it gave. The bytes are files, not rows.
    static let uploadsMigration = Migration(
        version: 27, name: "resumable uploads",
        statements: uploadTables(date: "REAL"),
        postgres: uploadTables(date: "TIMESTAMPTZ", integer: "BIGINT"))

    static func uploadTables(date: String, integer: String = "INTEGER") -> [String] {
        [
            """
            CREATE TABLE uploads (
              id TEXT PRIMARY KEY, owner_key TEXT NOT NULL, target TEXT NOT NULL, metadata TEXT NOT NULL,
              upload_length \(integer) NOT NULL, upload_offset \(integer) NOT NULL, expires_at \(date) NOT NULL,
              result TEXT, created_at \(date) NOT NULL)
            """,
            "CREATE INDEX uploads_expires_at ON uploads (expires_at)",
        ]
    }
}

extension Migrations {
    /// Migration 28: the writer's lease of a resumable upload (several nodes): which request
    /// writes its part file (`lease_holder`, a random id per request) and until when
    /// (`lease_until`, renewed while it writes), and which request asked to take over
    /// (`lease_wanted`: the holder stops at its next renewal). Taken by compare-and-set.
    static let uploadLeaseMigration = Migration(
        version: 28, name: "resumable upload writer lease",
        statements: uploadLeaseColumns(date: "REAL"),
        postgres: uploadLeaseColumns(date: "TIMESTAMPTZ"))

    static func uploadLeaseColumns(date: String) -> [String] {
        [
            "ALTER TABLE uploads ADD COLUMN lease_holder TEXT",
            "ALTER TABLE uploads ADD COLUMN lease_until \(date)",
            "ALTER TABLE uploads ADD COLUMN lease_wanted TEXT",
        ]
    }
}
