extension Migrations {
    /// Migration 33 (replay, issue #44): who may watch a session's replay (`host` or `link`), and
    /// the pointer side log kept while the presenter records: one row per batch of samples (a few
    /// seconds' worth), the samples encoded compactly (``ReplaySampleCoding``).
    static let replayMigration = Migration(
        version: 33, name: "replay access and pointer side log",
        statements: replayTables(date: "REAL"),
        postgres: replayTables(date: "TIMESTAMPTZ"))

    static func replayTables(date: String) -> [String] {
        [
            "ALTER TABLE sessions ADD COLUMN replay TEXT NOT NULL DEFAULT 'host'",
            """
            CREATE TABLE replay_samples (
              session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, batch TEXT NOT NULL,
              started_at \(date) NOT NULL, count INTEGER NOT NULL, samples TEXT NOT NULL,
              PRIMARY KEY (session_id, batch))
            """,
            "CREATE INDEX replay_samples_time ON replay_samples(session_id, started_at)",
        ]
    }
}
