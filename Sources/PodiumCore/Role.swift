/// Who a live connection speaks for. Every command is authorised by role in ``SessionState``.
public enum Role: String, Codable, Sendable, CaseIterable {
    /// Follows the presenter; may browse alone only while navigation is unlocked.
    case viewer
    /// Owns the session: changes page, zooms, points, blanks, locks and ends it.
    case presenter
}

/// What the screen shows instead of the slide.
public enum BlankMode: String, Codable, Sendable, CaseIterable {
    case none
    case black
    case white
}
