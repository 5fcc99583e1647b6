extension Migrations {
    /// Migration 24: the audience's records as a sequence of their own (issue #39). Every
    /// audience change a session stores (an answer, a question, its marks, a vote, a viewer's
    /// entry) is also a row of `audience_log`, numbered per session by `rseq`, dense from 1. The
    /// number comes from the session's row of `audience_log_heads`, advanced in the transaction
    /// that stores the change: on PostgreSQL that row's lock orders concurrent writers of one
    /// session (from every node), so numbers are given without gaps, never twice, and commit in
    /// their order; a node reads the rows after the `rseq` it has applied. Sessions live before
    /// this migration start their log empty (a restart loads the tables whole, as before).
    static let audienceLogMigration = Migration(
        version: 24, name: "audience record log",
        statements: audienceLogTables(date: "REAL"),
        postgres: audienceLogTables(date: "TIMESTAMPTZ"))

    static func audienceLogTables(date: String) -> [String] {
        [
            """
            CREATE TABLE audience_log_heads (
              session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE, rseq INTEGER NOT NULL)
            """,
            """
            CREATE TABLE audience_log (
              session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, rseq INTEGER NOT NULL,
              body TEXT NOT NULL, command_id TEXT, command_seq INTEGER, created_at \(date) NOT NULL,
              PRIMARY KEY (session_id, rseq))
            """,
        ]
    }
}
