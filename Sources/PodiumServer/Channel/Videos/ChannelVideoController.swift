import Foundation
import Hummingbird
import PodiumCore
import PodiumStore
import PodiumWire

/// The channel's video catalogue for everyone (seed 004, Appendix B): categories, videos by
/// category, search, one video with its chapters, and the per-person stream URL; and each
/// person's favourites, "continue watching" and resume positions. Admins' writes on the same
/// paths are in ``ChannelVideoAdminController``.
struct ChannelVideoController {
    let store: any ChannelVideoStore
    let tokens: StreamTokens
    let configuration: ChannelConfiguration
    let now: @Sendable () -> Date

    /// Under `/api/v1/channel`.
    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("videos", use: videos)
        group.get("videos/categories", use: categories)
        group.get("videos/categories/:id", use: category)
        group.get("videos/categories/:id/videos", use: categoryVideos)
        group.get("videos/:id", use: video)
        group.get("videos/:id/stream", use: stream)
        group.get("me/favourites", use: favourites)
        group.put("me/favourites/:id", use: addFavourite)
        group.delete("me/favourites/:id", use: removeFavourite)
        group.get("me/continue", use: continueWatching)
        group.put("me/positions/:id", use: savePosition)
    }

    // MARK: - Catalogue

    @Sendable func videos(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await list(request, context: context, categoryId: try categoryFilter(request))
    }

    @Sendable func categoryVideos(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let listing = try Self.listing(request, context: context)
        guard let category = try await store.channelVideoCategory(id: id), Self.shows(category, listing) else {
            throw APIError.notFound("category")
        }
        return try await list(request, context: context, categoryId: id)
    }

    private func categoryFilter(_ request: Request) throws -> String? {
        guard let id = request.uri.queryParameters.get("categoryId") else { return nil }
        guard !id.isEmpty, id.count <= 100 else { throw APIError.badRequest("categoryId names a category.") }
        return id
    }

    private func list(_ request: Request, context: AppRequestContext, categoryId: String?) async throws -> Response {
        let listing = try Self.listing(request, context: context)
        let page = try ChannelAPI.page(request)
        let search = request.uri.queryParameters.get("search")?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let search, search.count > 200 { throw APIError.badRequest("search is at most 200 characters.") }
        let query = ChannelVideoQuery(
            listing: listing, categoryId: categoryId, search: search?.isEmpty == true ? nil : search, limit: page.limit,
            offset: page.offset)
        // Last-Modified first: what changes after it is read is newer, so a client never keeps a stale list.
        let modified = try await store.channelVideosUpdatedAt()
        if listing == .published, let unchanged = try Self.notModifiedSince(request, modified) { return unchanged }
        let latest = try await store.latestPublishedChannelVideoId()
        let entries = try await store.channelVideos(query)
        let moment = now()
        return try ChannelAPI.respond(
            entries.map { ChannelVideoResponse($0, latestPublishedId: latest, now: moment) }, lastModified: modified,
            to: request, context: context, cache: listing == .published ? .revalidate : .personal)
    }

    @Sendable func categories(_ request: Request, context: AppRequestContext) async throws -> Response {
        let listing = try Self.listing(request, context: context)
        let modified = try await store.channelVideosUpdatedAt()
        if listing == .published, let unchanged = try Self.notModifiedSince(request, modified) { return unchanged }
        let categories = try await store.channelVideoCategories(listing)
        var shown = categories
        if listing != .archived {
            // A sub-category of an archived category is hidden with it.
            let live = Set(categories.map(\.id))
            shown = categories.filter { $0.parentId.map(live.contains) ?? true }
        }
        return try ChannelAPI.respond(
            shown.map(ChannelCategoryResponse.init), lastModified: modified, to: request, context: context,
            cache: listing == .published ? .revalidate : .personal)
    }

    @Sendable func category(_ request: Request, context: AppRequestContext) async throws -> Response {
        let listing = try Self.listing(request, context: context)
        guard let category = try await store.channelVideoCategory(id: try context.parameters.require("id")),
            Self.shows(category, listing)
        else { throw APIError.notFound("category") }
        if listing == .published, let parentId = category.parentId,
            try await store.channelVideoCategory(id: parentId)?.archivedAt != nil
        {
            throw APIError.notFound("category")
        }
        return try ChannelAPI.respond(
            ChannelCategoryResponse(record: category), lastModified: category.updatedAt, to: request, context: context,
            cache: listing == .published ? .revalidate : .personal)
    }

    @Sendable func video(_ request: Request, context: AppRequestContext) async throws -> Response {
        let listing = try Self.listing(request, context: context)
        let entry = try await visibleVideo(context, listing: listing)
        let latest = try await store.latestPublishedChannelVideoId()
        return try ChannelAPI.respond(
            ChannelVideoResponse(entry, latestPublishedId: latest, now: now()), lastModified: entry.record.updatedAt,
            to: request, context: context, cache: listing == .published ? .revalidate : .personal)
    }

    /// A per-person URL of the video's master playlist, or the membership error.
    @Sendable func stream(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireChannelViewer()
        let entry = try await visibleVideo(context, listing: .published)
        guard let master = entry.masterPlaylist else {
            throw APIError(.conflict, code: "video_not_ready", message: "This video is not ready to play yet.")
        }
        let record = entry.record
        let latest = try await store.latestPublishedChannelVideoId()
        if let limit = ChannelVideoAccess.limit(
            for: .init(id: record.id, free: record.free, promoted: record.promoted), isMember: viewer.isMember,
            latestPublishedId: latest)
        {
            throw ChannelLimitError(limit, configuration: configuration)
        }
        let (token, expiresAt) = tokens.issue(resource: "video:\(record.id)", viewerKey: viewer.key)
        let position = try await store.channelPosition(viewerKey: viewer.key, channelVideoId: record.id)
        let body = ChannelStreamResponse(
            url: "/stream/\(token)/\(master)", expiresAt: expiresAt, resumeAt: position.flatMap(Self.resumePoint))
        return try ChannelAPI.respond(body, lastModified: nil, to: request, context: context, cache: .personal)
    }

    /// Where to resume: the saved second, unless the person had (nearly) finished the video.
    static func resumePoint(_ position: ChannelPositionRecord) -> Double? {
        Self.inProgress(position) ? position.seconds : nil
    }

    /// Started and not finished: past the first seconds, short of the last 5 %.
    static func inProgress(_ position: ChannelPositionRecord) -> Bool {
        position.seconds >= 1 && (position.duration <= 0 || position.seconds < position.duration * 0.95)
    }

    // MARK: - Personal

    @Sendable func favourites(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireChannelViewer()
        let latest = try await store.latestPublishedChannelVideoId()
        let moment = now()
        let entries = try await store.channelFavourites(viewerKey: viewer.key)
        return try ChannelAPI.respond(
            entries.map { ChannelVideoResponse($0, latestPublishedId: latest, now: moment) }, lastModified: nil,
            to: request, context: context, cache: .personal)
    }

    @Sendable func addFavourite(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let viewer = try context.requireChannelViewer()
        let entry = try await visibleVideo(context, listing: .published)
        try await store.addChannelFavourite(viewerKey: viewer.key, channelVideoId: entry.record.id, at: now())
        return .noContent
    }

    @Sendable func removeFavourite(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let viewer = try context.requireChannelViewer()
        // Removing works for a video archived since: the person's list must not keep it for ever.
        try await store.removeChannelFavourite(viewerKey: viewer.key, channelVideoId: try context.parameters.require("id"))
        return .noContent
    }

    @Sendable func continueWatching(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireChannelViewer()
        let page = try ChannelAPI.page(request)
        let latest = try await store.latestPublishedChannelVideoId()
        let moment = now()
        let rows = try await store.channelPositions(viewerKey: viewer.key, limit: 100)
            .filter { Self.inProgress($0.position) }.dropFirst(page.offset).prefix(page.limit)
        let body = rows.map { row in
            ChannelContinueResponse(
                video: ChannelVideoResponse(row.video, latestPublishedId: latest, now: moment), seconds: row.position.seconds,
                duration: row.position.duration, updatedAt: row.position.updatedAt)
        }
        return try ChannelAPI.respond(body, lastModified: nil, to: request, context: context, cache: .personal)
    }

    struct PositionBody: Decodable {
        let seconds: Double
    }

    @Sendable func savePosition(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let viewer = try context.requireChannelViewer()
        let body: PositionBody
        do {
            body = try await request.decode(as: PositionBody.self, context: context)
        } catch {
            throw APIError.badRequest("Send {\"seconds\": <where playback is, in seconds>}.")
        }
        guard body.seconds.isFinite, body.seconds >= 0 else {
            throw APIError.badRequest("seconds is a number of seconds, 0 or more.")
        }
        let entry = try await visibleVideo(context, listing: .published)
        let seconds = entry.duration > 0 ? min(body.seconds, entry.duration) : body.seconds
        try await store.saveChannelPosition(
            ChannelPositionRecord(
                viewerKey: viewer.key, channelVideoId: entry.record.id, seconds: seconds, duration: entry.duration,
                updatedAt: now()))
        return .noContent
    }

    // MARK: - Helpers

    /// A 304 for a client whose `If-Modified-Since` (without `If-None-Match`, which needs the
    /// body's tag) is no older than the catalogue: answered before the list is read and encoded,
    /// which is most of a list's cost. The version is checked first (406 stays 406).
    static func notModifiedSince(_ request: Request, _ modified: Date?) throws -> Response? {
        _ = try ChannelAPI.version(of: request)
        guard request.headers[.ifNoneMatch] == nil, let modified,
            let since = request.headers[.ifModifiedSince].flatMap(HTTPDate.parse), HTTPDate.truncated(modified) <= since
        else { return nil }
        var headers = HTTPFields()
        headers[.vary] = "Accept"
        headers[.cacheControl] = "no-cache"
        headers[.lastModified] = HTTPDate.format(HTTPDate.truncated(modified))
        return Response(status: .notModified, headers: headers)
    }

    /// The video named in the path if the listing shows it; else 404.
    private func visibleVideo(_ context: AppRequestContext, listing: ChannelListing) async throws -> ChannelVideoEntry {
        let id = try context.parameters.require("id")
        guard let entry = try await store.channelVideo(id: id) else { throw APIError.notFound("video") }
        let record = entry.record
        switch listing {
        case .published:
            guard record.publishedAt != nil, record.archivedAt == nil,
                try await store.channelVideoCategory(id: record.categoryId)?.archivedAt == nil
            else { throw APIError.notFound("video") }
        case .all: break
        case .archived: guard record.archivedAt != nil else { throw APIError.notFound("video") }
        }
        return entry
    }

    private static func shows(_ category: ChannelVideoCategoryRecord, _ listing: ChannelListing) -> Bool {
        switch listing {
        case .published: category.archivedAt == nil
        case .all: true
        case .archived: category.archivedAt != nil
        }
    }

    /// `?status=published` (the default), `all` or `archived`; the last two for admins only.
    static func listing(_ request: Request, context: AppRequestContext) throws -> ChannelListing {
        ChannelListing(try ChannelStatusQuery.filter(request, user: context.user))
    }
}
