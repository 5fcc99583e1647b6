extension Migrations {
    /// Migration 38 (issue #43, a course's co-teachers): a session's co-hosts, people other than
    /// the presenter who may run its console and read its report (who granted it, why, when);
    /// where LTI content is placed (a platform's course and the deck or session a link there
    /// names), which is what lets a course's other teachers be made co-hosts; and the course a
    /// deep linking request came from.
    static let sessionHostsMigration = Migration(
        version: 38, name: "session co-hosts",
        statements: sessionHostTables(date: "REAL"),
        postgres: sessionHostTables(date: "TIMESTAMPTZ"))

    static func sessionHostTables(date: String) -> [String] {
        [
            """
            CREATE TABLE session_hosts (
              session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
              user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
              granted_by TEXT, reason TEXT NOT NULL, created_at \(date) NOT NULL,
              PRIMARY KEY (session_id, user_id))
            """,
            "CREATE INDEX session_hosts_user ON session_hosts (user_id)",
            """
            CREATE TABLE lti_placements (
              platform_id TEXT NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,
              context_id TEXT NOT NULL, kind TEXT NOT NULL, target TEXT NOT NULL,
              placed_by TEXT REFERENCES users(id) ON DELETE SET NULL, created_at \(date) NOT NULL,
              PRIMARY KEY (platform_id, context_id, kind, target))
            """,
            "ALTER TABLE lti_deep_links ADD COLUMN context_id TEXT",
        ]
    }
}
