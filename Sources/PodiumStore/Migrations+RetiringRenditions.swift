extension Migrations {
    /// Migration 37 (issue #41, "the copied first rendition kept forever"): a clip's files that
    /// left its master playlist when its whole ladder was stored (a first rendition that is not
    /// one of the ladder's rungs: the upload's picture copied, its sound), still served under the
    /// clip's stream tokens until `retire_at`, when every token that could have named them has
    /// expired, and then removed (``VideoStore/retireFiles(videoId:retireAt:)``).
    static let retiringRenditionsMigration = Migration(
        version: 37, name: "retiring renditions",
        statements: retiringColumns(date: "REAL"),
        postgres: retiringColumns(date: "TIMESTAMPTZ"))

    static func retiringColumns(date: String) -> [String] {
        [
            "ALTER TABLE videos ADD COLUMN retiring_files TEXT NOT NULL DEFAULT '[]'",
            "ALTER TABLE videos ADD COLUMN retire_at \(date)",
            "CREATE INDEX videos_retire_at ON videos (retire_at)",
        ]
    }
}
