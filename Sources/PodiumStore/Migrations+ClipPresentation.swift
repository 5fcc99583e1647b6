extension Migrations {
    /// Migration 26 (issue #41, presenting clips): a clip's trim (seconds into it where it starts
    /// and ends on a stage; metadata only, the packaged files are not cut), whether it loops on a
    /// stage, and the integrated loudness (LUFS, EBU R128) its packaging measured before
    /// normalising it. Clips packaged before this migration have no measured loudness.
    static let clipPresentationMigration = Migration(
        version: 26, name: "clip trim, loop and loudness",
        statements: [
            "ALTER TABLE videos ADD COLUMN trim_start DOUBLE PRECISION",
            "ALTER TABLE videos ADD COLUMN trim_end DOUBLE PRECISION",
            "ALTER TABLE videos ADD COLUMN loops INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE videos ADD COLUMN loudness DOUBLE PRECISION",
        ],
        postgres: [
            "ALTER TABLE videos ADD COLUMN trim_start DOUBLE PRECISION",
            "ALTER TABLE videos ADD COLUMN trim_end DOUBLE PRECISION",
            "ALTER TABLE videos ADD COLUMN loops BOOLEAN NOT NULL DEFAULT FALSE",
            "ALTER TABLE videos ADD COLUMN loudness DOUBLE PRECISION",
        ])
}
