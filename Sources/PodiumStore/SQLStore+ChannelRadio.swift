import Foundation
import SQLKit

extension SQLStore: ChannelRadioStore {
    public func insertRadio(_ radio: ChannelRadioRecord) async throws {
        try await serial { db in
            try await db.insert(into: "channel_radios")
                .model(radio, keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil).run()
        }
    }

    public func radio(id: String) async throws -> ChannelRadioRecord? {
        try await serial { db in
            try await db.select().column("*").from("channel_radios").where("id", .equal, id)
                .first(decoding: ChannelRadioRecord.self, with: Self.decoding)
        }
    }

    public func radios() async throws -> [ChannelRadioRecord] {
        try await serial { db in
            try await db.select().column("*").from("channel_radios").orderBy("position").orderBy("created_at")
                .all(decoding: ChannelRadioRecord.self, with: Self.decoding)
        }
    }

    public func updateRadio(_ radio: ChannelRadioRecord) async throws {
        try await serial { db in
            try await db.update("channel_radios")
                .set("name", to: radio.name)
                .set("description", to: radio.description)
                .set("website", to: Self.optional(radio.website))
                .set("position", to: radio.position)
                .set("epoch", to: Self.optional(radio.epoch))
                .set("sequence_base", to: radio.sequenceBase)
                .set("discontinuity_base", to: radio.discontinuityBase)
                .set("published_at", to: Self.optional(radio.publishedAt))
                .set("updated_at", to: radio.updatedAt)
                .set("archived_at", to: Self.optional(radio.archivedAt))
                .where("id", .equal, radio.id)
                .run()
        }
    }

    public func deleteRadio(id: String) async throws -> [String] {
        try await transaction { db in
            let tracks = try await db.select().column("*").from("channel_radio_tracks").where("radio_id", .equal, id)
                .all(decoding: ChannelRadioTrackRecord.self, with: Self.decoding)
            try await db.delete(from: "channel_radio_tracks").where("radio_id", .equal, id).run()
            try await db.delete(from: "channel_radios").where("id", .equal, id).run()
            return try await Self.unusedRadioBlobs(tracks.flatMap(\.blobNames), exceptTrack: nil, on: db)
        }
    }

    public func insertRadioTrack(_ track: ChannelRadioTrackRecord) async throws {
        try await serial { db in
            try await db.insert(into: "channel_radio_tracks")
                .model(track, keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil).run()
        }
    }

    public func radioTrack(id: String) async throws -> ChannelRadioTrackRecord? {
        try await serial { db in
            try await db.select().column("*").from("channel_radio_tracks").where("id", .equal, id)
                .first(decoding: ChannelRadioTrackRecord.self, with: Self.decoding)
        }
    }

    public func radioTracks(radioId: String) async throws -> [ChannelRadioTrackRecord] {
        try await serial { db in
            try await db.select().column("*").from("channel_radio_tracks").where("radio_id", .equal, radioId)
                .orderBy("position").orderBy("created_at")
                .all(decoding: ChannelRadioTrackRecord.self, with: Self.decoding)
        }
    }

    public func updateRadioTrack(_ track: ChannelRadioTrackRecord) async throws {
        try await serial { db in
            try await db.update("channel_radio_tracks")
                .set("position", to: track.position)
                .set("title", to: track.title)
                .set("artist", to: track.artist)
                .set("website", to: Self.optional(track.website))
                .set("status", to: track.status.rawValue)
                .set("error_code", to: Self.optional(track.errorCode))
                .set("error_message", to: Self.optional(track.errorMessage))
                .set("duration", to: track.duration)
                .set("segments", to: track.segments)
                .set("updated_at", to: track.updatedAt)
                .where("id", .equal, track.id)
                .run()
        }
    }

    public func reorderRadioTracks(radioId: String, ids: [String], at date: Date) async throws {
        try await transaction { db in
            for (position, id) in ids.enumerated() {
                try await db.update("channel_radio_tracks").set("position", to: position).set("updated_at", to: date)
                    .where("id", .equal, id).where("radio_id", .equal, radioId).run()
            }
        }
    }

    public func deleteRadioTrack(id: String) async throws -> [String] {
        try await transaction { db in
            guard
                let track = try await db.select().column("*").from("channel_radio_tracks").where("id", .equal, id)
                    .first(decoding: ChannelRadioTrackRecord.self, with: Self.decoding)
            else { return [] }
            try await db.delete(from: "channel_radio_tracks").where("id", .equal, id).run()
            return try await Self.unusedRadioBlobs(track.blobNames, exceptTrack: id, on: db)
        }
    }

    public func radioBlobsUnused(_ names: [String], exceptTrack trackId: String) async throws -> [String] {
        try await serial { db in try await Self.unusedRadioBlobs(names, exceptTrack: trackId, on: db) }
    }

    public func radioUsage(viewerKey: String, day: String) async throws -> Double {
        struct Row: Decodable { let seconds: Double }
        return try await serial { db in
            try await db.select().column("seconds").from("channel_radio_usage").where("viewer_key", .equal, viewerKey)
                .where("day", .equal, day).first(decoding: Row.self)?.seconds ?? 0
        }
    }

    public func addRadioUsage(_ additions: [RadioUsage]) async throws {
        guard !additions.isEmpty else { return }
        try await transaction { db in
            // One row per listener and day, growing: the same statement on SQLite and PostgreSQL.
            for addition in additions {
                try await db.raw(
                    """
                    INSERT INTO channel_radio_usage (viewer_key, day, seconds) VALUES (\(bind: addition.viewerKey), \
                    \(bind: addition.day), \(bind: addition.seconds))
                    ON CONFLICT (viewer_key, day) DO UPDATE SET seconds = channel_radio_usage.seconds + excluded.seconds
                    """
                ).run()
            }
        }
    }

    private static func optional(_ value: String?) -> any SQLExpression { value.map { SQLBind($0) } ?? SQLLiteral.null }

    /// The same bytes uploaded twice are one blob: keep what another track still uses. Blob names
    /// are hex digits and a dot, nothing LIKE treats specially.
    private static func unusedRadioBlobs(_ names: [String], exceptTrack trackId: String?, on db: any SQLDatabase)
        async throws -> [String]
    {
        struct Row: Decodable { let id: String }
        var unused: [String] = []
        for name in Set(names) {
            var query = db.select().column("id").from("channel_radio_tracks")
            if let trackId { query = query.where("id", .notEqual, trackId) }
            let users = try await query.where {
                $0.where("source_blob", .equal, name).orWhere("segments", .like, "%\"\(name)\"%")
            }.limit(1).all(decoding: Row.self)
            if users.isEmpty { unused.append(name) }
        }
        return unused.sorted()
    }
}
