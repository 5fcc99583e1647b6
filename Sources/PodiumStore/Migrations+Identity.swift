extension Migrations {
    /// Migration 31: single sign-on (issue #43). Each OpenID provider's person (issuer, subject)
    /// and the account they sign in as; an account may have several (two providers), a person one.
    static let externalIdentityMigration = Migration(
        version: 31, name: "single sign-on identities",
        statements: externalIdentityTables(date: "REAL"),
        postgres: externalIdentityTables(date: "TIMESTAMPTZ"))

    static func externalIdentityTables(date: String) -> [String] {
        [
            """
            CREATE TABLE external_identities (
              issuer TEXT NOT NULL, subject TEXT NOT NULL,
              user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, email TEXT,
              created_at \(date) NOT NULL, last_sign_in_at \(date) NOT NULL, PRIMARY KEY (issuer, subject))
            """,
            "CREATE INDEX external_identities_user ON external_identities (user_id)",
        ]
    }
}
