import Foundation
import Hummingbird
import PodiumStore

/// What the channel's admin parameters mean, shared by every part (videos, radio, places,
/// quizzes): `?status=` and who is the channel's admin; `?permanent=true` is the archive's
/// (``ArchivableRoutes``).
enum ChannelStatusQuery {
    /// `?status=`: `published` (also when absent), `all` (not archived) or `archived`; anything
    /// else is a 400.
    static func requested(_ request: Request) throws -> ChannelItemFilter {
        guard let raw = request.uri.queryParameters.get("status") else { return .published }
        guard let filter = ChannelItemFilter(rawValue: raw) else {
            throw APIError.badRequest("status is published, all or archived.")
        }
        return filter
    }

    /// Places and quizzes: `published` unless an admin asks for `all` or `archived` (401 signed
    /// out, 403 `forbidden` for others).
    static func filter(_ request: Request, context: AppRequestContext) throws -> ChannelItemFilter {
        let filter = try requested(request)
        if filter != .published { try requireAdmin(context) }
        return filter
    }

    /// Videos and radio: as ``filter(_:context:)``, but anyone not an admin, signed in or not, is
    /// answered 403 `forbidden` for `all` or `archived`.
    static func filter(_ request: Request, user: UserRecord?) throws -> ChannelItemFilter {
        let filter = try requested(request)
        if filter != .published, !isAdmin(user) { throw APIError.forbidden }
        return filter
    }

    /// Whether this account runs the channel (sees drafts and the archive, edits).
    static func isAdmin(_ user: UserRecord?) -> Bool { user?.role == .admin }

    /// The admin asking, or 401 (signed out) / 403 `forbidden`.
    @discardableResult
    static func requireAdmin(_ context: AppRequestContext) throws -> UserRecord {
        let user = try context.requireUser()
        guard isAdmin(user) else { throw APIError.forbidden }
        return user
    }
}

extension ChannelListing {
    /// The videos' listing for a `?status=` filter (the same three values).
    init(_ filter: ChannelItemFilter) {
        switch filter {
        case .published: self = .published
        case .all: self = .all
        case .archived: self = .archived
        }
    }
}
