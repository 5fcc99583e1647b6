extension Migrations {
    /// Migration 35: the MP4 exports of replays (issue #44): the session, who asked, the status,
    /// the file (a blob) and its length, the error of a failed one, and the channel video it was
    /// published as.
    static let replayExportsMigration = Migration(
        version: 35, name: "replay exports",
        statements: replayExportTables(date: "REAL"),
        postgres: replayExportTables(date: "TIMESTAMPTZ", integer: "BIGINT"))

    static func replayExportTables(date: String, integer: String = "INTEGER") -> [String] {
        [
            """
            CREATE TABLE replay_exports (
              id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
              owner_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, status TEXT NOT NULL,
              duration_ms \(integer), blob TEXT, bytes \(integer) NOT NULL, error_code TEXT, error_message TEXT,
              channel_video_id TEXT, created_at \(date) NOT NULL)
            """,
            "CREATE INDEX replay_exports_session ON replay_exports (session_id, created_at)",
        ]
    }
}
