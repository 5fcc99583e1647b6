import Foundation
import Hummingbird
import PodiumStore
import PodiumWire

/// What is new on the channel (seed 004, 1.2.7 "notify a user about updates"), in the page:
/// everything published since the person last looked, newest first; and the share links, each a
/// small page with the item's preview (Open Graph) that leads to it on the channel page.
struct ChannelFeedController {
    let store: any ChannelSettingsStore
    /// Each part of the channel, by kind (`video`, `radio`, `place`, `quiz`).
    let parts: [String: any ChannelPublications]
    let now: @Sendable () -> Date

    /// What a person who never looked is shown: the last month.
    static let firstVisitWindow: TimeInterval = 30 * 24 * 3600
    /// At most this many items, newest first.
    static let limit = 50

    func addRoutes(to channel: RouterGroup<AppRequestContext>) {
        channel.get("new", use: feed)
        channel.post("new/seen", use: seen)
    }

    /// `GET /api/v1/channel/new`: what was published since the person last looked.
    @Sendable func feed(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireChannelViewer()
        let lastSeen = try await store.channelLastSeen(viewerKey: viewer.key)
        let since = lastSeen ?? now() - Self.firstVisitWindow
        var items: [ChannelPublication] = []
        for part in parts.values { items += try await part.published().filter { $0.publishedAt > since } }
        items.sort { ($0.publishedAt, $0.id) > ($1.publishedAt, $1.id) }
        let body = ChannelFeed(lastSeenAt: lastSeen, items: items.prefix(Self.limit).map(ChannelFeed.Item.init))
        return try ChannelAPI.respond(body, lastModified: nil, to: request, context: context, cache: .personal)
    }

    /// `POST /api/v1/channel/new/seen`: the person has seen what is new.
    @Sendable func seen(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireChannelViewer()
        try await store.markChannelSeen(viewerKey: viewer.key, at: now())
        return Response(status: .noContent)
    }
}

extension ChannelFeed.Item {
    init(_ publication: ChannelPublication) {
        self.init(
            kind: publication.kind, id: publication.id, title: publication.title, description: publication.description,
            imageUrl: publication.imagePath, publishedAt: publication.publishedAt, url: publication.pagePath,
            shareUrl: publication.sharePath)
    }
}
