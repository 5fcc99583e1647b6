extension Migrations {
    /// Migration 34: audio takes of a presenter's microphone (issue #44): the take (its session,
    /// who sends it, when it started on the server's clock, its status, chunks and bytes so far,
    /// the packaged duration or the error) and the size of each chunk received (a retried chunk
    /// is known by its length). The bytes are files, not rows.
    static let recordingsMigration = Migration(
        version: 34, name: "audio recordings",
        statements: recordingTables(date: "REAL"),
        postgres: recordingTables(date: "TIMESTAMPTZ", integer: "BIGINT"))

    static func recordingTables(date: String, integer: String = "INTEGER") -> [String] {
        [
            """
            CREATE TABLE recordings (
              id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
              owner_key TEXT NOT NULL, started_at \(date) NOT NULL, mime_type TEXT NOT NULL, status TEXT NOT NULL,
              chunks INTEGER NOT NULL, bytes \(integer) NOT NULL, last_chunk_at \(date), stopped_at \(date),
              duration_ms \(integer), hls_bytes \(integer), error_code TEXT, error_message TEXT,
              created_at \(date) NOT NULL)
            """,
            "CREATE INDEX recordings_session ON recordings (session_id, started_at)",
            "CREATE INDEX recordings_status ON recordings (status)",
            """
            CREATE TABLE recording_chunks (
              recording_id TEXT NOT NULL REFERENCES recordings(id) ON DELETE CASCADE, n INTEGER NOT NULL,
              bytes INTEGER NOT NULL, received_at \(date) NOT NULL, PRIMARY KEY (recording_id, n))
            """,
        ]
    }
}
