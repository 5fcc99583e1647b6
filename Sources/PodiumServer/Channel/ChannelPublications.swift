import Foundation

/// One published thing of the channel, as the "new" feed and a share link's preview show it.
struct ChannelPublication: Sendable, Equatable {
    /// `video`, `radio`, `place` or `quiz`: also the section of the channel page that shows it.
    let kind: String
    let id: String
    let title: String
    let description: String
    /// A picture for the preview (a poster, a place's image), as a URL path of this server.
    let imagePath: String?
    let publishedAt: Date

    /// Where the channel page shows it.
    var pagePath: String { "/channel#\(Self.section(of: kind))/\(id)" }
    /// The share link: a page with its preview (Open Graph) that leads to ``pagePath``.
    var sharePath: String { "/c/\(kind)/\(id)" }

    static func section(of kind: String) -> String {
        switch kind {
        case "video": "videos"
        case "place": "places"
        case "quiz": "quizzes"
        default: kind
        }
    }
}

/// What one part of the channel has published (videos, radio, places, quizzes): for the feed of
/// what is new and for share previews. Archived and unpublished items are not in it.
protocol ChannelPublications: Sendable {
    /// Everything published, any order.
    func published() async throws -> [ChannelPublication]
    /// One published item, nil when there is none (or it is archived or unpublished).
    func published(id: String) async throws -> ChannelPublication?
}
