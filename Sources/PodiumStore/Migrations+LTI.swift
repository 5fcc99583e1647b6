extension Migrations {
    /// Migration 32: LTI 1.3 (issue #43). The platforms an admin registered (one per issuer and
    /// client id; deployment ids as a JSON array), login initiations under way (state, nonce,
    /// until when), which account each platform user launches as, and deep linking requests a
    /// teacher is answering.
    static let ltiMigration = Migration(
        version: 32, name: "LTI 1.3 platforms",
        statements: ltiTables(date: "REAL", flag: "INTEGER"),
        postgres: ltiTables(date: "TIMESTAMPTZ", flag: "BOOLEAN"))

    static func ltiTables(date: String, flag: String) -> [String] {
        [
            """
            CREATE TABLE lti_platforms (
              id TEXT PRIMARY KEY, name TEXT NOT NULL, issuer TEXT NOT NULL, client_id TEXT NOT NULL,
              deployment_ids TEXT NOT NULL, auth_login_url TEXT NOT NULL, token_url TEXT NOT NULL,
              jwks_url TEXT NOT NULL, created_at \(date) NOT NULL, UNIQUE (issuer, client_id))
            """,
            """
            CREATE TABLE lti_logins (
              state TEXT PRIMARY KEY, nonce TEXT NOT NULL,
              platform_id TEXT NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,
              target_link_uri TEXT NOT NULL, expires_at \(date) NOT NULL)
            """,
            "CREATE INDEX lti_logins_expires_at ON lti_logins (expires_at)",
            """
            CREATE TABLE lti_users (
              platform_id TEXT NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE, subject TEXT NOT NULL,
              user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, PRIMARY KEY (platform_id, subject))
            """,
            """
            CREATE TABLE lti_deep_links (
              id TEXT PRIMARY KEY, platform_id TEXT NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,
              deployment_id TEXT NOT NULL, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
              return_url TEXT NOT NULL, data TEXT, accept_multiple \(flag) NOT NULL, expires_at \(date) NOT NULL)
            """,
            "CREATE INDEX lti_deep_links_expires_at ON lti_deep_links (expires_at)",
        ]
    }
}
