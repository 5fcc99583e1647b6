import Foundation
import Hummingbird
import PodiumStore
import PodiumWire

/// The channel's own ground: who is asking (`/api/v1/channel/me`, PodiumWire's `ChannelMe`), what a non-member is told.
/// Videos, radio, places and quizzes have controllers of their own beside it.
struct ChannelController {
    let configuration: ChannelConfiguration

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("me", use: me)
    }

    @Sendable func me(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireChannelViewer()
        let body = ChannelMe(
            key: viewer.key, signedIn: viewer.user != nil, member: viewer.isMember, admin: viewer.isAdmin,
            name: viewer.user?.name,
            channel: ChannelMe.Channel(
                name: configuration.name, membershipInfo: configuration.membershipInfo,
                membershipURL: configuration.membershipURL))
        return try ChannelAPI.respond(body, lastModified: nil, to: request, context: context, cache: .personal)
    }
}
