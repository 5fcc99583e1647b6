/// Who a live connection speaks for. Every command is authorised by role in ``SessionState``.
public enum Role: String, Codable, Sendable, CaseIterable {
    /// Follows the presenter; may browse alone only while navigation is unlocked.
    case viewer
    /// Owns the session: changes page, zooms, points, blanks, locks and ends it. In a room, a
    /// guest who brings decks and presents while they hold control.
    case presenter
    /// Runs a room: hands control to presenters, blanks the projector, runs polls and questions.
    case moderator
}

/// What the screen shows instead of the slide.
public enum BlankMode: String, Codable, Sendable, CaseIterable {
    case none
    case black
    case white
}
