extension Migrations {
    /// Migration 36 (issue #43): the language a message is written in. A link keeps the language
    /// it was asked for in (an invitation the admin's choice, a sign-up or a reset the page's), so
    /// a message sent again or a notice about it later speaks the same; an account keeps the
    /// language of the page it last signed in from, for the notices it gets (an admin's of a
    /// sign-up waiting).
    static let mailLanguageMigration = Migration(
        version: 36, name: "mail languages",
        statements: [
            "ALTER TABLE account_links ADD COLUMN language TEXT",
            "ALTER TABLE users ADD COLUMN language TEXT",
        ])
}
