extension Migrations {
    /// Migration 25: caption tracks of library clips (issue #41), one per clip and language,
    /// deleted with the clip.
    static let captionsMigration = Migration(
        version: 25, name: "caption tracks",
        statements: captionTables(date: "REAL"),
        postgres: captionTables(date: "TIMESTAMPTZ"))

    static func captionTables(date: String) -> [String] {
        [
            """
            CREATE TABLE caption_tracks (
              video_id TEXT NOT NULL REFERENCES videos(id) ON DELETE CASCADE, language TEXT NOT NULL,
              label TEXT NOT NULL, kind TEXT NOT NULL, webvtt TEXT NOT NULL, created_at \(date) NOT NULL,
              updated_at \(date) NOT NULL, PRIMARY KEY (video_id, language))
            """
        ]
    }
}
