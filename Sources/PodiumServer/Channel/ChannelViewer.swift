import Foundation
import HTTPTypes
import Hummingbird
import PodiumStore

/// Who is asking, for the channel: an account, or the anonymous browser of the `podium_viewer`
/// cookie. Favourites, positions, the radio allowance and quiz scores are kept under `key`.
public struct ChannelViewer: Sendable, Equatable {
    /// The user id (`u_…`) when signed in, else the browser's viewer id (`v_…`).
    public let key: String
    public let user: UserRecord?
    /// Members and admins meet no limit.
    public var isMember: Bool { user?.seesWholeChannel ?? false }
    /// The channel's admin: sees drafts and the archive, edits (``ChannelStatusQuery/isAdmin(_:)``).
    var isAdmin: Bool { ChannelStatusQuery.isAdmin(user) }
}

extension AppRequestContext {
    /// The channel viewer set by ``ChannelViewerMiddleware``.
    func requireChannelViewer() throws -> ChannelViewer {
        guard let channelViewer else {
            // A route outside the middleware's groups: a programming error, reported plainly.
            throw APIError(.internalServerError, code: "internal", message: "This route does not know its viewer.")
        }
        return channelViewer
    }
}

/// Names the channel's viewer on the channel's routes, giving an anonymous browser its
/// `podium_viewer` cookie on its first request, so it is one person from then on.
struct ChannelViewerMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        var context = context
        var issued: Cookie?
        if let user = context.user {
            context.channelViewer = ChannelViewer(key: user.id, user: user)
        } else if let viewerId = context.viewerId {
            context.channelViewer = ChannelViewer(key: viewerId, user: nil)
        } else {
            let cookie = ViewerCookie.issue()
            issued = cookie
            context.viewerId = cookie.value
            context.channelViewer = ChannelViewer(key: cookie.value, user: nil)
        }
        do {
            var response = try await next(request, context)
            if let issued { response.setCookie(issued) }
            return response
        } catch let error as any HTTPResponseError {
            // A refusal still names the browser, so its next request is the same person.
            guard let issued else { throw error }
            var response = try error.response(from: request, context: context)
            response.setCookie(issued)
            return response
        }
    }
}
