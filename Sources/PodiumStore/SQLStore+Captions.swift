import Foundation
import SQLKit

extension SQLStore: CaptionStore {
    public func captionTracks(videoId: String) async throws -> [CaptionTrackRecord] {
        try await serial { db in
            try await db.select().column("*").from("caption_tracks").where("video_id", .equal, videoId)
                .orderBy("language").all(decoding: CaptionTrackRecord.self, with: Self.decoding)
        }
    }

    public func captionTrack(videoId: String, language: String) async throws -> CaptionTrackRecord? {
        try await serial { db in
            try await db.select().column("*").from("caption_tracks").where("video_id", .equal, videoId)
                .where("language", .equal, language).first(decoding: CaptionTrackRecord.self, with: Self.decoding)
        }
    }

    public func putCaptionTrack(_ track: CaptionTrackRecord) async throws -> CaptionTrackRecord {
        try await transaction { db in
            try await db.insert(into: "caption_tracks")
                .model(track, keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil)
                .onConflict(with: ["video_id", "language"]) {
                    $0.set(excludedValueOf: "label").set(excludedValueOf: "kind").set(excludedValueOf: "webvtt")
                        .set(excludedValueOf: "updated_at")
                }
                .run()
            return try await db.select().column("*").from("caption_tracks").where("video_id", .equal, track.videoId)
                .where("language", .equal, track.language).first(decoding: CaptionTrackRecord.self, with: Self.decoding)
                ?? track
        }
    }

    public func deleteCaptionTrack(videoId: String, language: String) async throws -> Bool {
        try await transaction { db in
            struct Row: Decodable { let language: String }
            let found = try await db.select().column("language").from("caption_tracks").where("video_id", .equal, videoId)
                .where("language", .equal, language).all(decoding: Row.self)
            guard !found.isEmpty else { return false }
            try await db.delete(from: "caption_tracks").where("video_id", .equal, videoId)
                .where("language", .equal, language).run()
            return true
        }
    }

    public func captionLanguages(videoIds: [String]) async throws -> [String: [String]] {
        guard !videoIds.isEmpty else { return [:] }
        return try await serial { db in
            struct Row: Decodable { let videoId: String, language: String }
            let rows = try await db.select().column("video_id").column("language").from("caption_tracks")
                .where("video_id", .in, videoIds).orderBy("language")
                .all(decoding: Row.self, with: Self.decoding)
            return Dictionary(grouping: rows, by: \.videoId).mapValues { $0.map(\.language) }
        }
    }
}
