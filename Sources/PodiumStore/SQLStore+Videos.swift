import Foundation
import SQLKit

extension SQLStore: VideoStore {
    public func insertVideo(_ video: VideoRecord) async throws {
        try await serial { db in
            try await db.insert(into: "videos")
                .model(video, keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil).run()
        }
    }

    public func video(id: String) async throws -> VideoRecord? {
        try await serial { db in
            try await db.select().column("*").from("videos").where("id", .equal, id)
                .first(decoding: VideoRecord.self, with: Self.decoding)
        }
    }

    public func videos(ownerId: String, folderId: String?) async throws -> [VideoRecord] {
        try await serial { db in
            var query = db.select().column("*").from("videos").where("owner_id", .equal, ownerId)
                .where("room_id", .is, SQLLiteral.null)
            if let folderId { query = query.where("folder_id", .equal, folderId) }
            return try await query.orderBy("created_at", .descending).orderBy("id", .descending)
                .all(decoding: VideoRecord.self, with: Self.decoding)
        }
    }

    public func videos(roomId: String) async throws -> [VideoRecord] {
        try await serial { db in
            try await db.select().column("*").from("videos").where("room_id", .equal, roomId)
                .orderBy("created_at", .descending).orderBy("id", .descending)
                .all(decoding: VideoRecord.self, with: Self.decoding)
        }
    }

    public func updateVideo(_ video: VideoRecord) async throws {
        try await serial { db in
            @Sendable func optional(_ value: String?) -> any SQLExpression { value.map { SQLBind($0) } ?? SQLLiteral.null }
            try await db.update("videos")
                .set("folder_id", to: optional(video.folderId))
                .set("title", to: video.title)
                .set("status", to: video.status.rawValue)
                .set("error_code", to: optional(video.errorCode))
                .set("error_message", to: optional(video.errorMessage))
                .set("duration", to: video.duration)
                .set("width", to: video.width)
                .set("height", to: video.height)
                .set("has_video", to: video.hasVideo)
                .set("has_audio", to: video.hasAudio)
                .set("renditions", to: video.renditions)
                .set("master_playlist", to: optional(video.masterPlaylist))
                .set("poster", to: optional(video.poster))
                .set("thumbnail_sprite", to: optional(video.thumbnailSprite))
                .set("thumbnail_track", to: optional(video.thumbnailTrack))
                .set("mp4", to: optional(video.mp4))
                .set("files", to: video.files)
                .set("loudness", to: video.loudness.map { SQLBind($0) as any SQLExpression } ?? SQLLiteral.null)
                .set("retiring_files", to: video.retiringFiles)
                .set("retire_at", to: video.retireAt.map { SQLBind($0) as any SQLExpression } ?? SQLLiteral.null)
                .where("id", .equal, video.id)
                .run()
        }
    }

    public func updateVideoClip(id: String, trimStart: Double?, trimEnd: Double?, loops: Bool) async throws -> Bool {
        try await serial { db in
            @Sendable func optional(_ value: Double?) -> any SQLExpression { value.map { SQLBind($0) } ?? SQLLiteral.null }
            struct Row: Decodable { let id: String }
            guard
                try await db.select().column("id").from("videos").where("id", .equal, id).first(decoding: Row.self) != nil
            else { return false }
            try await db.update("videos")
                .set("trim_start", to: optional(trimStart))
                .set("trim_end", to: optional(trimEnd))
                .set("loops", to: loops)
                .where("id", .equal, id)
                .run()
            return true
        }
    }

    public func deleteVideo(id: String) async throws -> [String] {
        try await transaction { db in
            guard
                let video = try await db.select().column("*").from("videos").where("id", .equal, id)
                    .first(decoding: VideoRecord.self, with: Self.decoding)
            else { return [] }
            try await db.delete(from: "videos").where("id", .equal, id).run()
            return try await Self.unused(
                [video.sourceHash] + video.fileNames + video.retiringFileNames, exceptVideo: id, on: db)
        }
    }

    public func blobsUnused(_ names: [String], exceptVideo videoId: String) async throws -> [String] {
        try await serial { db in try await Self.unused(names, exceptVideo: videoId, on: db) }
    }

    public func videosRetiring(until date: Date) async throws -> [VideoRecord] {
        try await serial { db in
            try await db.select().column("*").from("videos").where("retire_at", .lessThanOrEqual, SQLBind(date))
                .orderBy("retire_at").all(decoding: VideoRecord.self, with: Self.decoding)
        }
    }

    public func retireFiles(videoId: String, retireAt: Date) async throws -> [String]? {
        try await transaction { db in
            guard
                let video = try await db.select().column("*").from("videos").where("id", .equal, videoId)
                    .first(decoding: VideoRecord.self, with: Self.decoding),
                let due = video.retireAt, abs(due.timeIntervalSince(retireAt)) < 0.001
            else { return nil }
            try await db.update("videos")
                .set("retiring_files", to: "[]")
                .set("retire_at", to: SQLLiteral.null)
                .where("id", .equal, videoId)
                .run()
            // What the clip still plays stays, whatever a retiring list says.
            let retiring = Set(video.retiringFileNames).subtracting(video.fileNames).subtracting([video.sourceHash])
            return try await Self.unused(Array(retiring), exceptVideo: videoId, on: db)
        }
    }

    public func ladderCompleteVideos(afterId: String?, limit: Int) async throws -> [VideoRecord] {
        try await serial { db in
            var query = db.select().column("*").from("videos").where("status", .equal, VideoRecord.Status.ready.rawValue)
                .where("mp4", .isNot, SQLLiteral.null).where("retire_at", .is, SQLLiteral.null)
            if let afterId { query = query.where("id", .greaterThan, afterId) }
            return try await query.orderBy("id").limit(limit).all(decoding: VideoRecord.self, with: Self.decoding)
        }
    }

    public func startRetiring(videoId: String, files: String, retiring: [String], retireAt: Date) async throws -> Bool {
        try await transaction { db in
            guard
                let video = try await db.select().column("*").from("videos").where("id", .equal, videoId)
                    .first(decoding: VideoRecord.self, with: Self.decoding),
                video.files == files, video.retireAt == nil
            else { return false }
            let leaving = Set(retiring)
            let kept = video.fileNames.filter { !leaving.contains($0) }
            try await db.update("videos")
                .set("files", to: String(decoding: try JSONEncoder().encode(kept), as: UTF8.self))
                .set("retiring_files", to: String(decoding: try JSONEncoder().encode(leaving.sorted()), as: UTF8.self))
                .set("retire_at", to: SQLBind(retireAt))
                .where("id", .equal, videoId)
                .run()
            return true
        }
    }

    /// The same bytes uploaded twice are one blob: keep what another video still uses (its
    /// source, its files, the files it is retiring). Blob names are hex digits and a dot,
    /// nothing LIKE treats specially.
    private static func unused(_ names: [String], exceptVideo videoId: String, on db: any SQLDatabase) async throws
        -> [String]
    {
        struct Row: Decodable { let id: String }
        var unused: [String] = []
        for name in Set(names) {
            let users = try await db.select().column("id").from("videos")
                .where("id", .notEqual, videoId)
                .where {
                    $0.where("source_hash", .equal, name).orWhere("files", .like, "%\"\(name)\"%")
                        .orWhere("retiring_files", .like, "%\"\(name)\"%")
                }
                .limit(1).all(decoding: Row.self)
            if users.isEmpty { unused.append(name) }
        }
        return unused.sorted()
    }
}
