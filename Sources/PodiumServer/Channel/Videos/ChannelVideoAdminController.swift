import Foundation
import Hummingbird
import PodiumStore
import PodiumWire

/// The admin's side of the video catalogue, on the public paths (admins only, 403 otherwise):
/// categories and videos created, edited, reordered, published and unpublished, archived
/// (DELETE), restored, and deleted for ever from the archive. A channel video plays a ready
/// library video; uploading stays the library's job.
struct ChannelVideoAdminController {
    let store: any ChannelVideoStore
    /// The library's videos, which channel videos play.
    let videoStore: any VideoStore
    let blobSets: ChannelVideoBlobSets
    let now: @Sendable () -> Date

    /// Under `/api/v1/channel`.
    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("videos/library", use: library)
        group.post("videos", use: createVideo)
        group.put("videos/order", use: orderVideos)
        group.patch("videos/:id", use: updateVideo)
        videoArchive.addRoutes(to: group, path: "videos")
        group.post("videos/categories", use: createCategory)
        group.put("videos/categories/order", use: orderCategories)
        group.patch("videos/categories/:id", use: updateCategory)
        categoryArchive.addRoutes(to: group, path: "videos/categories")
    }

    // MARK: - Videos

    /// The ready library videos an admin may publish, newest first.
    @Sendable func library(_ request: Request, context: AppRequestContext) async throws -> [ChannelLibraryVideoResponse] {
        let admin = try ChannelStatusQuery.requireAdmin(context)
        return try await videoStore.videos(ownerId: admin.id, folderId: nil).filter { $0.status == .ready && $0.hasVideo }.map {
            ChannelLibraryVideoResponse(
                id: $0.id, title: $0.title, duration: $0.duration, posterUrl: $0.poster.map { "/blobs/\($0)" },
                createdAt: $0.createdAt)
        }
    }

    struct VideoBody: Decodable {
        var videoId: String?
        var categoryId: String?
        /// Absent: unchanged. `null`: none.
        var subcategoryId: String??
        var title: String?
        var description: String?
        var chapters: [ChannelChapter]?
        var free: Bool?
        var promoted: Bool?
        var published: Bool?
        var position: Int?

        enum CodingKeys: String, CodingKey {
            case videoId, categoryId, subcategoryId, title, description, chapters, free, promoted, published, position
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            videoId = try container.decodeIfPresent(String.self, forKey: .videoId)
            categoryId = try container.decodeIfPresent(String.self, forKey: .categoryId)
            if container.contains(.subcategoryId) {
                subcategoryId = .some(
                    try container.decodeNil(forKey: .subcategoryId)
                        ? nil : try container.decode(String.self, forKey: .subcategoryId))
            }
            title = try container.decodeIfPresent(String.self, forKey: .title)
            description = try container.decodeIfPresent(String.self, forKey: .description)
            chapters = try container.decodeIfPresent([ChannelChapter].self, forKey: .chapters)
            free = try container.decodeIfPresent(Bool.self, forKey: .free)
            promoted = try container.decodeIfPresent(Bool.self, forKey: .promoted)
            published = try container.decodeIfPresent(Bool.self, forKey: .published)
            position = try container.decodeIfPresent(Int.self, forKey: .position)
        }
    }

    /// Publishes a ready library video on the channel (`published` false keeps it a draft).
    @Sendable func createVideo(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<Response> {
        try ChannelStatusQuery.requireAdmin(context)
        let body = try await Self.decode(VideoBody.self, request, context)
        guard let videoId = body.videoId, let categoryId = body.categoryId else {
            throw APIError.badRequest("A channel video needs videoId (a library video) and categoryId.")
        }
        guard let library = try await videoStore.video(id: videoId), library.roomId == nil else {
            throw APIError.notFound("library video")
        }
        guard library.status == .ready else {
            throw APIError(
                .conflict, code: "video_not_ready", message: "That library video is not ready yet: wait for its packaging.")
        }
        let record = try await insertVideo(library, categoryId: categoryId, body)
        return EditedResponse(status: .created, response: try await respond(record.id, request, context))
    }

    /// Puts a library video on the channel as `body` says (checked as an admin's request is):
    /// the create route's work once the request is read, and a replay export's publish (whose
    /// clip may still be packaging: it plays once ready, see ``ChannelVideoController``).
    func insertVideo(_ library: VideoRecord, categoryId: String, _ body: VideoBody) async throws -> ChannelVideoRecord {
        let moment = now()
        var record = ChannelVideoRecord(
            id: IDs.make("cv"), videoId: library.id, categoryId: categoryId, title: library.title, createdAt: moment,
            updatedAt: moment)
        try await apply(body, to: &record, duration: library.duration, at: moment)
        record = try await store.insertChannelVideo(record)
        blobSets.invalidate(record.id)
        return record
    }

    @Sendable func updateVideo(_ request: Request, context: AppRequestContext) async throws -> Response {
        try ChannelStatusQuery.requireAdmin(context)
        let body = try await Self.decode(VideoBody.self, request, context)
        guard let entry = try await store.channelVideo(id: try context.parameters.require("id")) else {
            throw APIError.notFound("video")
        }
        if body.videoId != nil, body.videoId != entry.record.videoId {
            throw APIError.badRequest("A channel video keeps its library video; publish the other one as a new video.")
        }
        var record = entry.record
        let moment = now()
        try await apply(body, to: &record, duration: entry.duration, at: moment)
        try await store.updateChannelVideo(record)
        if let position = body.position {
            try await move(record.id, to: position, in: store.channelVideos(.init(listing: .all, limit: 10_000)).map(\.record.id))
            {
                try await store.reorderChannelVideos($0, at: moment)
            }
        }
        blobSets.invalidate(record.id)
        return try await respond(record.id, request, context)
    }

    /// Checks and applies what an admin sent to a video.
    private func apply(_ body: VideoBody, to record: inout ChannelVideoRecord, duration: Double, at moment: Date) async throws {
        if let categoryId = body.categoryId {
            guard let category = try await store.channelVideoCategory(id: categoryId), category.parentId == nil else {
                throw APIError.badRequest("categoryId names a top-level category.")
            }
            if categoryId != record.categoryId, body.subcategoryId == nil { record.subcategoryId = nil }
            record.categoryId = categoryId
        }
        if let subcategoryId = body.subcategoryId {
            if let subcategoryId {
                guard let sub = try await store.channelVideoCategory(id: subcategoryId), sub.parentId == record.categoryId else {
                    throw APIError.badRequest("subcategoryId names a sub-category of the video's category.")
                }
            }
            record.subcategoryId = subcategoryId
        }
        if let title = body.title {
            let cleaned = DeckController.cleanTitle(title)
            guard !cleaned.isEmpty else { throw APIError.badRequest("A video needs a title.") }
            record.title = cleaned
        }
        if let description = body.description {
            guard description.count <= 10_000 else { throw APIError.badRequest("A description is at most 10,000 characters.") }
            record.description = description.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let chapters = body.chapters {
            record.chapters = ChannelChapter.encode(try ChannelChapter.validated(chapters, duration: duration))
        }
        if let free = body.free { record.free = free }
        if let promoted = body.promoted { record.promoted = promoted }
        if let published = body.published {
            // Publishing again keeps the first date: "new" and "the latest" do not jump.
            record.publishedAt = published ? (record.publishedAt ?? moment) : nil
        }
        if let position = body.position, position < 0 { throw APIError.badRequest("position is 0 or more.") }
        record.updatedAt = moment
    }

    struct OrderBody: Decodable {
        let ids: [String]
    }

    @Sendable func orderVideos(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        try ChannelStatusQuery.requireAdmin(context)
        let body = try await Self.decode(OrderBody.self, request, context)
        let known = Set(try await store.channelVideos(.init(listing: .all, limit: 10_000)).map(\.record.id))
        guard Set(body.ids).count == body.ids.count, Set(body.ids).isSubset(of: known) else {
            throw APIError.badRequest("ids lists channel videos that are not archived, each once.")
        }
        try await store.reorderChannelVideos(body.ids, at: now())
        return .noContent
    }

    /// The videos' archive; what streams a video plays is looked up again after each change.
    var videoArchive: ArchivableRoutes<ChannelVideoRecord> {
        ArchivableRoutes(
            what: "video", now: now, find: { [store] in try await store.channelVideo(id: $0)?.record },
            save: { [store] in try await store.updateChannelVideo($0) },
            deleteForEver: { [store] in try await store.deleteChannelVideo(id: $0.id) },
            restored: { record, request, context in try await respond(record.id, request, context) },
            afterChange: { [blobSets] in blobSets.invalidate($0) })
    }

    private func respond(_ id: String, _ request: Request, _ context: AppRequestContext) async throws -> Response {
        guard let entry = try await store.channelVideo(id: id) else { throw APIError.notFound("video") }
        let latest = try await store.latestPublishedChannelVideoId()
        return try ChannelAPI.respond(
            ChannelVideoResponse(entry, latestPublishedId: latest, now: now()), lastModified: entry.record.updatedAt,
            to: request, context: context, cache: .personal)
    }

    // MARK: - Categories

    struct CategoryBody: Decodable {
        var name: String?
        var parentId: String??
        var position: Int?

        enum CodingKeys: String, CodingKey { case name, parentId, position }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decodeIfPresent(String.self, forKey: .name)
            if container.contains(.parentId) {
                parentId = .some(
                    try container.decodeNil(forKey: .parentId) ? nil : try container.decode(String.self, forKey: .parentId))
            }
            position = try container.decodeIfPresent(Int.self, forKey: .position)
        }
    }

    @Sendable func createCategory(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<Response> {
        try ChannelStatusQuery.requireAdmin(context)
        let body = try await Self.decode(CategoryBody.self, request, context)
        guard let name = body.name else { throw APIError.badRequest("A category needs a name.") }
        var record = ChannelVideoCategoryRecord(id: IDs.make("vc"), parentId: nil, name: "", position: 0, updatedAt: now())
        try await apply(body, to: &record, name: name)
        record = try await store.insertChannelVideoCategory(record)
        return EditedResponse(
            status: .created,
            response: try ChannelAPI.respond(
                ChannelCategoryResponse(record: record), lastModified: record.updatedAt, to: request, context: context,
                cache: .personal))
    }

    @Sendable func updateCategory(_ request: Request, context: AppRequestContext) async throws -> Response {
        try ChannelStatusQuery.requireAdmin(context)
        let body = try await Self.decode(CategoryBody.self, request, context)
        guard var record = try await store.channelVideoCategory(id: try context.parameters.require("id")) else {
            throw APIError.notFound("category")
        }
        try await apply(body, to: &record, name: body.name)
        try await store.updateChannelVideoCategory(record)
        if let position = body.position {
            guard position >= 0 else { throw APIError.badRequest("position is 0 or more.") }
            let siblings = try await store.channelVideoCategories(.all).filter { $0.parentId == record.parentId }
            try await move(record.id, to: position, in: siblings.map(\.id)) {
                try await store.reorderChannelVideoCategories($0, at: now())
            }
        }
        blobSets.invalidateAll()
        return try await respondCategory(record.id, request, context)
    }

    private func apply(_ body: CategoryBody, to record: inout ChannelVideoCategoryRecord, name: String?) async throws {
        if let name {
            let cleaned = DeckController.cleanTitle(name)
            guard !cleaned.isEmpty, cleaned.count <= 100 else {
                throw APIError.badRequest("A category's name is 1 to 100 characters.")
            }
            record.name = cleaned
        }
        if let parentId = body.parentId {
            if let parentId {
                guard parentId != record.id, let parent = try await store.channelVideoCategory(id: parentId),
                    parent.parentId == nil
                else { throw APIError.badRequest("parentId names a top-level category (one level of sub-categories).") }
                let children = try await store.channelVideoCategories(.all).filter { $0.parentId == record.id }
                guard children.isEmpty else {
                    throw APIError.badRequest("A category with sub-categories cannot become a sub-category.")
                }
            }
            record.parentId = parentId
        }
        record.updatedAt = now()
    }

    @Sendable func orderCategories(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        try ChannelStatusQuery.requireAdmin(context)
        let body = try await Self.decode(OrderBody.self, request, context)
        let known = Set(try await store.channelVideoCategories(.all).map(\.id))
        guard Set(body.ids).count == body.ids.count, Set(body.ids).isSubset(of: known) else {
            throw APIError.badRequest("ids lists categories that are not archived, each once.")
        }
        try await store.reorderChannelVideoCategories(body.ids, at: now())
        return .noContent
    }

    /// The categories' archive (an archived category takes its videos out of public reads); one
    /// that videos or sub-categories still use is not deleted for ever (409 `category_in_use`).
    var categoryArchive: ArchivableRoutes<ChannelVideoCategoryRecord> {
        ArchivableRoutes(
            what: "category", now: now, find: { [store] in try await store.channelVideoCategory(id: $0) },
            save: { [store] in try await store.updateChannelVideoCategory($0) },
            deleteForEver: { [store] record in
                guard try await store.deleteChannelVideoCategory(id: record.id) else {
                    throw APIError(
                        .conflict, code: "category_in_use",
                        message: "Videos or sub-categories still use this category: move or delete them first.")
                }
            },
            restored: { record, request, context in try await respondCategory(record.id, request, context) },
            afterChange: { [blobSets] _ in blobSets.invalidateAll() })
    }

    private func respondCategory(_ id: String, _ request: Request, _ context: AppRequestContext) async throws -> Response {
        guard let record = try await store.channelVideoCategory(id: id) else { throw APIError.notFound("category") }
        return try ChannelAPI.respond(
            ChannelCategoryResponse(record: record), lastModified: record.updatedAt, to: request, context: context,
            cache: .personal)
    }

    // MARK: - Helpers

    /// Moves `id` to `position` in `order` (clamped to its end) and saves the order.
    private func move(_ id: String, to position: Int, in order: [String], save: ([String]) async throws -> Void)
        async throws
    {
        var ids = order.filter { $0 != id }
        guard ids.count < order.count else { return }
        ids.insert(id, at: min(max(0, position), ids.count))
        try await save(ids)
    }

    /// A JSON body, or a 400 that says it could not be read.
    static func decode<T: Decodable>(_ type: T.Type, _ request: Request, _ context: AppRequestContext) async throws -> T {
        do {
            return try await request.decode(as: type, context: context)
        } catch let error as DecodingError {
            throw APIError.badRequest("The body is not the JSON this takes: \(Self.describe(error)).")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default: return "unreadable"
        }
    }
}
