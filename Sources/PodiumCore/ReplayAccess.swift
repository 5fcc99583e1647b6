/// Who may watch a session's replay (`GET /api/v1/sessions/{code}/replay`), set by its host like
/// "allow download": `host` (the presenter, a room's moderator, admins) or `link` (also anyone who
/// can open the session's link, passcode rules as for joining).
public enum ReplayAccess: String, Codable, Sendable, CaseIterable {
    case host
    case link
}
