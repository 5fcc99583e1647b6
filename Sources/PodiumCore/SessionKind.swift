/// What a live session is: one presenter's deck, or a room where presenters take turns.
public enum SessionKind: String, Codable, Sendable, Equatable, CaseIterable {
    case session
    case room
}
