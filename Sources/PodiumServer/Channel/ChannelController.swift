import Foundation
import Hummingbird
import PodiumStore

/// The channel's own ground: who is asking (`/api/v1/channel/me`), what a non-member is told.
/// Videos, radio, places and quizzes have controllers of their own beside it.
struct ChannelController {
    let configuration: ChannelConfiguration

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("me", use: me)
    }

    struct Channel: Encodable {
        let name: String
        let membershipInfo: String
        let membershipURL: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(membershipInfo, forKey: .membershipInfo)
            try container.encode(membershipURL, forKey: .membershipURL)
        }

        enum CodingKeys: String, CodingKey { case name, membershipInfo, membershipURL }
    }

    struct Me: Encodable {
        let key: String
        let signedIn: Bool
        let member: Bool
        let admin: Bool
        let name: String?
        let channel: Channel

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(key, forKey: .key)
            try container.encode(signedIn, forKey: .signedIn)
            try container.encode(member, forKey: .member)
            try container.encode(admin, forKey: .admin)
            try container.encode(name, forKey: .name)
            try container.encode(channel, forKey: .channel)
        }

        enum CodingKeys: String, CodingKey { case key, signedIn, member, admin, name, channel }
    }

    @Sendable func me(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireChannelViewer()
        let body = Me(
            key: viewer.key, signedIn: viewer.user != nil, member: viewer.isMember, admin: viewer.user?.role == .admin,
            name: viewer.user?.name,
            channel: Channel(
                name: configuration.name, membershipInfo: configuration.membershipInfo,
                membershipURL: configuration.membershipURL))
        return try ChannelAPI.respond(body, lastModified: nil, to: request, context: context, cache: .personal)
    }
}
