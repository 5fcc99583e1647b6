extension Migrations {
    /// Migration 18: the channel's radio stations, their tracks (packaged into segments) and what
    /// each non-member listened to per day (the daily allowance).
    static let radioMigration = Migration(
        version: 18, name: "channel radio",
        statements: radioTables(date: "REAL", bytes: "INTEGER"),
        postgres: radioTables(date: "TIMESTAMPTZ", bytes: "BIGINT"))

    /// The same on both databases but for the type of dates and of byte counts.
    static func radioTables(date: String, bytes: String) -> [String] {
        [
            // `epoch`, `sequence_base` and `discontinuity_base` anchor the schedule (RadioSchedule):
            // the wall clock from the epoch gives every listener the same live window.
            """
            CREATE TABLE channel_radios (
              id TEXT PRIMARY KEY, name TEXT NOT NULL, description TEXT NOT NULL DEFAULT '', website TEXT,
              position INTEGER NOT NULL, epoch \(date), sequence_base \(bytes) NOT NULL DEFAULT 0,
              discontinuity_base \(bytes) NOT NULL DEFAULT 0, published_at \(date), created_at \(date) NOT NULL,
              updated_at \(date) NOT NULL, archived_at \(date))
            """,
            """
            CREATE TABLE channel_radio_tracks (
              id TEXT PRIMARY KEY, radio_id TEXT NOT NULL REFERENCES channel_radios(id) ON DELETE CASCADE,
              position INTEGER NOT NULL, title TEXT NOT NULL, artist TEXT NOT NULL DEFAULT '', website TEXT,
              status TEXT NOT NULL, error_code TEXT, error_message TEXT, source_blob TEXT NOT NULL,
              source_bytes \(bytes) NOT NULL, duration DOUBLE PRECISION NOT NULL DEFAULT 0,
              segments TEXT NOT NULL DEFAULT '[]', created_at \(date) NOT NULL, updated_at \(date) NOT NULL)
            """,
            "CREATE INDEX channel_radio_tracks_radio ON channel_radio_tracks(radio_id, position)",
            """
            CREATE TABLE channel_radio_usage (
              viewer_key TEXT NOT NULL, day TEXT NOT NULL, seconds DOUBLE PRECISION NOT NULL DEFAULT 0,
              PRIMARY KEY (viewer_key, day))
            """,
        ]
    }
}
