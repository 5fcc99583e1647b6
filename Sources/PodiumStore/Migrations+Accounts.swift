extension Migrations {
    /// Migration 29 (issue #43): links sent by email (invitations, self sign-ups, password
    /// resets; their tokens' SHA-256 only) and the audit log of admin actions.
    static let accountsMigration = Migration(
        version: 29, name: "account links and audit log",
        statements: accountTables(date: "REAL", sequence: "INTEGER PRIMARY KEY AUTOINCREMENT"),
        postgres: accountTables(date: "TIMESTAMPTZ", sequence: "BIGSERIAL PRIMARY KEY"))

    static func accountTables(date: String, sequence: String) -> [String] {
        [
            """
            CREATE TABLE account_links (
              id TEXT PRIMARY KEY, kind TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE, email TEXT NOT NULL,
              role TEXT NOT NULL, name TEXT, password_hash TEXT,
              user_id TEXT REFERENCES users(id) ON DELETE CASCADE, created_by TEXT, status TEXT NOT NULL,
              delivery TEXT NOT NULL, delivery_error TEXT, expires_at \(date) NOT NULL, created_at \(date) NOT NULL,
              used_at \(date))
            """,
            "CREATE INDEX account_links_kind ON account_links (kind, status, created_at)",
            "CREATE INDEX account_links_email ON account_links (email)",
            """
            CREATE TABLE audit_log (
              seq \(sequence), at \(date) NOT NULL, actor_id TEXT, actor_name TEXT NOT NULL, action TEXT NOT NULL,
              target TEXT, detail TEXT, address TEXT)
            """,
        ]
    }
}
