import Foundation
import SQLKit

extension SQLStore: ChannelVideoStore {
    public func channelVideoCategories(_ listing: ChannelListing) async throws -> [ChannelVideoCategoryRecord] {
        try await serial { db in
            let query = db.select().column("*").from("channel_video_categories")
            switch listing {
            case .published, .all: query.where("archived_at", .is, SQLLiteral.null)
            case .archived: query.where("archived_at", .isNot, SQLLiteral.null)
            }
            return try await query.orderBy("position").orderBy("id")
                .all(decoding: ChannelVideoCategoryRecord.self, with: Self.decoding)
        }
    }

    public func channelVideoCategory(id: String) async throws -> ChannelVideoCategoryRecord? {
        try await serial { db in
            try await db.select().column("*").from("channel_video_categories").where("id", .equal, id)
                .first(decoding: ChannelVideoCategoryRecord.self, with: Self.decoding)
        }
    }

    public func insertChannelVideoCategory(_ category: ChannelVideoCategoryRecord) async throws
        -> ChannelVideoCategoryRecord
    {
        try await transaction { db in
            var stored = category
            stored.position = try await Self.nextPosition(in: "channel_video_categories", on: db)
            try await db.insert(into: "channel_video_categories")
                .columns("id", "parent_id", "name", "position", "updated_at", "archived_at")
                .values(
                    SQLBind(stored.id), Self.nullable(stored.parentId), SQLBind(stored.name), SQLBind(stored.position),
                    SQLBind(stored.updatedAt), Self.nullable(stored.archivedAt)
                )
                .run()
            return stored
        }
    }

    public func updateChannelVideoCategory(_ category: ChannelVideoCategoryRecord) async throws {
        try await serial { db in
            try await db.update("channel_video_categories")
                .set("parent_id", to: Self.nullable(category.parentId))
                .set("name", to: category.name)
                .set("position", to: category.position)
                .set("updated_at", to: category.updatedAt)
                .set("archived_at", to: Self.nullable(category.archivedAt))
                .where("id", .equal, category.id)
                .run()
        }
    }

    public func deleteChannelVideoCategory(id: String) async throws -> Bool {
        try await transaction { db in
            struct Row: Decodable { let id: String }
            let users = try await db.select().column("id").from("channel_videos")
                .where { $0.where("category_id", .equal, id).orWhere("subcategory_id", .equal, id) }
                .limit(1).all(decoding: Row.self)
            let children = try await db.select().column("id").from("channel_video_categories")
                .where("parent_id", .equal, id).limit(1).all(decoding: Row.self)
            guard users.isEmpty, children.isEmpty else { return false }
            try await db.delete(from: "channel_video_categories").where("id", .equal, id).run()
            return true
        }
    }

    public func reorderChannelVideoCategories(_ ids: [String], at: Date) async throws {
        try await reorder("channel_video_categories", ids, at: at)
    }

    public func channelVideos(_ query: ChannelVideoQuery) async throws -> [ChannelVideoEntry] {
        try await serial { db in
            let select = Self.entrySelect(db, listing: query.listing)
            if let categoryId = query.categoryId {
                select.where {
                    $0.where(SQLColumn("category_id", table: "channel_videos"), .equal, SQLBind(categoryId))
                        .orWhere(SQLColumn("subcategory_id", table: "channel_videos"), .equal, SQLBind(categoryId))
                }
            }
            for word in Self.words(query.search) {
                let pattern = "%" + Self.likeEscaped(word.lowercased()) + "%"
                select.where(
                    SQLQueryString(
                        "(lower(channel_videos.title) LIKE \(bind: pattern) ESCAPE '\\' OR lower(channel_videos.description) LIKE \(bind: pattern) ESCAPE '\\')"
                    ))
            }
            return
                try await select
                .orderBy(SQLColumn("position", table: "channel_videos"))
                .orderBy(
                    SQLOrderBy(expression: SQLColumn("published_at", table: "channel_videos"), direction: SQLDirection.descending)
                )
                .orderBy(SQLColumn("id", table: "channel_videos"))
                .limit(query.limit).offset(query.offset)
                .all().map(Self.entry)
        }
    }

    public func channelVideo(id: String) async throws -> ChannelVideoEntry? {
        try await serial { db in
            try await Self.entrySelect(db, listing: nil)
                .where(SQLColumn("id", table: "channel_videos"), .equal, SQLBind(id))
                .first().map(Self.entry)
        }
    }

    public func channelVideosUpdatedAt() async throws -> Date? {
        try await serial { db in
            struct Row: Decodable { let latest: Date? }
            let videos = try await db.raw("SELECT MAX(updated_at) AS latest FROM channel_videos").first(decoding: Row.self)
            let categories = try await db.raw("SELECT MAX(updated_at) AS latest FROM channel_video_categories")
                .first(decoding: Row.self)
            return [videos?.latest, categories?.latest].compactMap { $0 }.max()
        }
    }

    public func latestPublishedChannelVideoId() async throws -> String? {
        try await serial { db in
            struct Row: Decodable { let id: String }
            return try await db.select().column(SQLColumn("id", table: "channel_videos")).from("channel_videos")
                .join(
                    "channel_video_categories", on: SQLColumn("id", table: "channel_video_categories"), .equal,
                    SQLColumn("category_id", table: "channel_videos")
                )
                .where(Self.publishedCondition)
                .orderBy(
                    SQLOrderBy(expression: SQLColumn("published_at", table: "channel_videos"), direction: SQLDirection.descending)
                )
                .orderBy(SQLOrderBy(expression: SQLColumn("id", table: "channel_videos"), direction: SQLDirection.descending))
                .limit(1).first(decoding: Row.self)?.id
        }
    }

    public func insertChannelVideo(_ video: ChannelVideoRecord) async throws -> ChannelVideoRecord {
        try await transaction { db in
            var stored = video
            stored.position = try await Self.nextPosition(in: "channel_videos", on: db)
            try await db.insert(into: "channel_videos")
                .columns(
                    "id", "video_id", "category_id", "subcategory_id", "title", "description", "chapters", "free",
                    "promoted", "position", "published_at", "created_at", "updated_at", "archived_at"
                )
                .values(
                    SQLBind(stored.id), SQLBind(stored.videoId), SQLBind(stored.categoryId),
                    Self.nullable(stored.subcategoryId), SQLBind(stored.title), SQLBind(stored.description),
                    SQLBind(stored.chapters), SQLBind(stored.free), SQLBind(stored.promoted), SQLBind(stored.position),
                    Self.nullable(stored.publishedAt), SQLBind(stored.createdAt), SQLBind(stored.updatedAt),
                    Self.nullable(stored.archivedAt)
                )
                .run()
            return stored
        }
    }

    public func updateChannelVideo(_ video: ChannelVideoRecord) async throws {
        try await serial { db in
            try await db.update("channel_videos")
                .set("category_id", to: video.categoryId)
                .set("subcategory_id", to: Self.nullable(video.subcategoryId))
                .set("title", to: video.title)
                .set("description", to: video.description)
                .set("chapters", to: video.chapters)
                .set("free", to: video.free)
                .set("promoted", to: video.promoted)
                .set("position", to: video.position)
                .set("published_at", to: Self.nullable(video.publishedAt))
                .set("updated_at", to: video.updatedAt)
                .set("archived_at", to: Self.nullable(video.archivedAt))
                .where("id", .equal, video.id)
                .run()
        }
    }

    public func deleteChannelVideo(id: String) async throws {
        try await serial { db in try await db.delete(from: "channel_videos").where("id", .equal, id).run() }
    }

    public func reorderChannelVideos(_ ids: [String], at: Date) async throws {
        try await reorder("channel_videos", ids, at: at)
    }

    public func channelFavourites(viewerKey: String) async throws -> [ChannelVideoEntry] {
        try await serial { db in
            try await Self.entrySelect(db, listing: .published)
                .join(
                    "channel_favourites", on: SQLColumn("channel_video_id", table: "channel_favourites"), .equal,
                    SQLColumn("id", table: "channel_videos")
                )
                .where(SQLColumn("viewer_key", table: "channel_favourites"), .equal, SQLBind(viewerKey))
                .orderBy(
                    SQLOrderBy(
                        expression: SQLColumn("created_at", table: "channel_favourites"), direction: SQLDirection.descending)
                )
                .orderBy(SQLColumn("id", table: "channel_videos"))
                .all().map(Self.entry)
        }
    }

    public func isChannelFavourite(viewerKey: String, channelVideoId: String) async throws -> Bool {
        try await serial { db in
            struct Row: Decodable { let viewerKey: String }
            return try await db.select().column("viewer_key").from("channel_favourites")
                .where("viewer_key", .equal, viewerKey).where("channel_video_id", .equal, channelVideoId)
                .first(decoding: Row.self, with: Self.decoding) != nil
        }
    }

    public func addChannelFavourite(viewerKey: String, channelVideoId: String, at: Date) async throws {
        try await serial { db in
            try await db.insert(into: "channel_favourites").columns("viewer_key", "channel_video_id", "created_at")
                .values(SQLBind(viewerKey), SQLBind(channelVideoId), SQLBind(at))
                .ignoringConflicts().run()
        }
    }

    public func removeChannelFavourite(viewerKey: String, channelVideoId: String) async throws {
        try await serial { db in
            try await db.delete(from: "channel_favourites")
                .where("viewer_key", .equal, viewerKey).where("channel_video_id", .equal, channelVideoId).run()
        }
    }

    public func saveChannelPosition(_ position: ChannelPositionRecord) async throws {
        try await serial { db in try await Self.upsert(position, on: db, onlyIfNewer: false) }
    }

    public func channelPosition(viewerKey: String, channelVideoId: String) async throws -> ChannelPositionRecord? {
        try await serial { db in
            try await db.select().columns("viewer_key", "channel_video_id", "seconds", "duration", "updated_at")
                .from("channel_positions")
                .where("viewer_key", .equal, viewerKey).where("channel_video_id", .equal, channelVideoId)
                .first().map(Self.position)
        }
    }

    public func channelPositions(viewerKey: String, limit: Int) async throws -> [(
        position: ChannelPositionRecord, video: ChannelVideoEntry
    )] {
        let rows = try await serial { db in
            try await Self.entrySelect(db, listing: .published)
                .column(SQLColumn("viewer_key", table: "channel_positions"))
                .column(SQLColumn("channel_video_id", table: "channel_positions"))
                .column(SQLAlias(SQLColumn("seconds", table: "channel_positions"), as: SQLIdentifier("seconds")))
                .column(SQLAlias(SQLColumn("duration", table: "channel_positions"), as: SQLIdentifier("duration")))
                .column(
                    SQLAlias(SQLColumn("updated_at", table: "channel_positions"), as: SQLIdentifier("position_updated_at"))
                )
                .join(
                    "channel_positions", on: SQLColumn("channel_video_id", table: "channel_positions"), .equal,
                    SQLColumn("id", table: "channel_videos")
                )
                .where(SQLColumn("viewer_key", table: "channel_positions"), .equal, SQLBind(viewerKey))
                .orderBy(
                    SQLOrderBy(
                        expression: SQLColumn("updated_at", table: "channel_positions"), direction: SQLDirection.descending)
                )
                .orderBy(SQLColumn("id", table: "channel_videos"))
                .limit(limit).all()
        }
        return try rows.map { row in
            (
                ChannelPositionRecord(
                    viewerKey: try row.decode(column: "viewer_key", as: String.self),
                    channelVideoId: try row.decode(column: "channel_video_id", as: String.self),
                    seconds: try row.decode(column: "seconds", as: Double.self),
                    duration: try row.decode(column: "duration", as: Double.self),
                    updatedAt: try row.decode(column: "position_updated_at", as: Date.self)),
                try Self.entry(row)
            )
        }
    }

    public func adoptChannelViewer(from anonymousKey: String, into accountKey: String) async throws {
        guard anonymousKey != accountKey else { return }
        try await transaction { db in
            struct Favourite: Decodable {
                let channelVideoId: String
                let createdAt: Date
            }
            let favourites = try await db.select().columns("channel_video_id", "created_at").from("channel_favourites")
                .where("viewer_key", .equal, anonymousKey).all(decoding: Favourite.self, with: Self.decoding)
            for favourite in favourites {
                try await db.insert(into: "channel_favourites").columns("viewer_key", "channel_video_id", "created_at")
                    .values(SQLBind(accountKey), SQLBind(favourite.channelVideoId), SQLBind(favourite.createdAt))
                    .ignoringConflicts().run()
            }
            let positions = try await db.select()
                .columns("viewer_key", "channel_video_id", "seconds", "duration", "updated_at")
                .from("channel_positions").where("viewer_key", .equal, anonymousKey).all().map(Self.position)
            for var position in positions {
                position.viewerKey = accountKey
                try await Self.upsert(position, on: db, onlyIfNewer: true)
            }
            try await db.delete(from: "channel_favourites").where("viewer_key", .equal, anonymousKey).run()
            try await db.delete(from: "channel_positions").where("viewer_key", .equal, anonymousKey).run()
        }
    }

    // MARK: - Helpers

    private func reorder(_ table: String, _ ids: [String], at: Date) async throws {
        try await transaction { db in
            for (index, id) in ids.enumerated() {
                try await db.update(table).set("position", to: index).set("updated_at", to: at)
                    .where("id", .equal, id).run()
            }
        }
    }

    private static func nextPosition(in table: String, on db: any SQLDatabase) async throws -> Int {
        struct Row: Decodable { let highest: Int? }
        let row = try await db.raw("SELECT MAX(position) AS highest FROM \(ident: table)").first(decoding: Row.self)
        return (row?.highest ?? -1) + 1
    }

    /// Inserts a position, or replaces the stored one (only when older, with `onlyIfNewer`).
    private static func upsert(_ position: ChannelPositionRecord, on db: any SQLDatabase, onlyIfNewer: Bool) async throws {
        let guardClause: SQLQueryString =
            onlyIfNewer ? " WHERE channel_positions.updated_at < excluded.updated_at" : ""
        try await db.raw(
            """
            INSERT INTO channel_positions (viewer_key, channel_video_id, seconds, duration, updated_at)
            VALUES (\(bind: position.viewerKey), \(bind: position.channelVideoId), \(bind: position.seconds), \
            \(bind: position.duration), \(bind: position.updatedAt))
            ON CONFLICT (viewer_key, channel_video_id) DO UPDATE SET seconds = excluded.seconds,
            duration = excluded.duration, updated_at = excluded.updated_at
            """ + guardClause
        ).run()
    }

    private static func position(_ row: any SQLRow) throws -> ChannelPositionRecord {
        ChannelPositionRecord(
            viewerKey: try row.decode(column: "viewer_key", as: String.self),
            channelVideoId: try row.decode(column: "channel_video_id", as: String.self),
            seconds: try row.decode(column: "seconds", as: Double.self),
            duration: try row.decode(column: "duration", as: Double.self),
            updatedAt: try row.decode(column: "updated_at", as: Date.self))
    }

    /// Public reads: published, not archived, in a category that is not archived.
    private static var publishedCondition: SQLQueryString {
        """
        channel_videos.published_at IS NOT NULL AND channel_videos.archived_at IS NULL \
        AND channel_video_categories.archived_at IS NULL
        """
    }

    /// A channel video with its library video's duration, poster and playlist; filtered by
    /// `listing` when given.
    private static func entrySelect(_ db: any SQLDatabase, listing: ChannelListing?) -> SQLSelectBuilder {
        let select = db.select()
            .column(SQLColumn(SQLLiteral.all, table: SQLIdentifier("channel_videos")))
            .column(SQLAlias(SQLColumn("duration", table: "videos"), as: SQLIdentifier("library_duration")))
            .column(SQLAlias(SQLColumn("poster", table: "videos"), as: SQLIdentifier("library_poster")))
            .column(SQLAlias(SQLColumn("master_playlist", table: "videos"), as: SQLIdentifier("library_master")))
            .from("channel_videos")
            .join("videos", on: SQLColumn("id", table: "videos"), .equal, SQLColumn("video_id", table: "channel_videos"))
            .join(
                "channel_video_categories", on: SQLColumn("id", table: "channel_video_categories"), .equal,
                SQLColumn("category_id", table: "channel_videos"))
        switch listing {
        case .published?: select.where(publishedCondition)
        case .all?: select.where(SQLColumn("archived_at", table: "channel_videos"), .is, SQLLiteral.null)
        case .archived?: select.where(SQLColumn("archived_at", table: "channel_videos"), .isNot, SQLLiteral.null)
        case nil: break
        }
        return select
    }

    private static func entry(_ row: any SQLRow) throws -> ChannelVideoEntry {
        ChannelVideoEntry(
            record: try row.decode(model: ChannelVideoRecord.self, with: decoding),
            duration: try row.decode(column: "library_duration", as: Double.self),
            poster: try row.decode(column: "library_poster", as: String?.self),
            masterPlaylist: try row.decode(column: "library_master", as: String?.self))
    }

    private static func nullable(_ value: String?) -> any SQLExpression { value.map { SQLBind($0) } ?? SQLLiteral.null }
    private static func nullable(_ value: Date?) -> any SQLExpression { value.map { SQLBind($0) } ?? SQLLiteral.null }

    /// The search's words (at most 8, so a pasted paragraph does not become a huge query).
    static func words(_ search: String?) -> [String] {
        Array((search ?? "").split(whereSeparator: { $0.isWhitespace }).map(String.init).prefix(8))
    }

    /// `%`, `_` and the escape itself taken literally by LIKE … ESCAPE '\'.
    static func likeEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }
}
