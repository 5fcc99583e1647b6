extension Migrations {
    /// Migration 23: garbage collection of blobs (see ``BlobCollector``). `blob_marks` holds the
    /// blobs a collection run found unreferenced, with when a run first saw them so; the one row
    /// of `blob_collection` (made by the first run, so a new database stays empty for
    /// `migrate-data`) is the lease that lets one node at a time collect, and when the last
    /// run started (nodes sharing the database collect once per interval between them).
    static let blobCollectionMigration = Migration(
        version: 23, name: "blob collection",
        statements: blobCollectionTables(date: "REAL"),
        postgres: blobCollectionTables(date: "TIMESTAMPTZ"))

    static func blobCollectionTables(date: String) -> [String] {
        [
            "CREATE TABLE blob_marks (name TEXT PRIMARY KEY, unreferenced_since \(date) NOT NULL)",
            """
            CREATE TABLE blob_collection (
              id INTEGER PRIMARY KEY, holder TEXT, started_at \(date), lease_until \(date), finished_at \(date))
            """,
        ]
    }

    /// Tables whose text is bookkeeping about blobs, not a use of them: the blob reference list
    /// (``DatabaseInventory``) leaves them out, or a mark would keep its blob for ever.
    static let blobBookkeepingTables: Set<String> = ["blob_marks", "blob_collection"]
}
