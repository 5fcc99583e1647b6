import Foundation
import Hummingbird
import PodiumStore

/// What the channel's admin parameters mean, shared by places and quizzes: `?status=` (admins
/// only); `?permanent=true` is the archive's (``ArchivableRoutes``).
enum ChannelStatusQuery {
    /// `published` unless an admin asks for `all` (not archived) or `archived`.
    static func filter(_ request: Request, context: AppRequestContext) throws -> ChannelItemFilter {
        guard let raw = request.uri.queryParameters.get("status") else { return .published }
        guard let filter = ChannelItemFilter(rawValue: raw) else {
            throw APIError.badRequest("status is published, all or archived.")
        }
        if filter != .published { try requireAdmin(context) }
        return filter
    }

    /// An admin, or 401 (signed out) / 403 `forbidden`.
    static func requireAdmin(_ context: AppRequestContext) throws {
        guard try context.requireUser().role == .admin else { throw APIError.forbidden }
    }
}
