import Foundation
import SQLKit

extension SQLStore: ChannelPlaceStore {
    public func insertPlaceCategory(_ category: ChannelPlaceCategoryRecord) async throws {
        try await serial { db in
            try await db.insert(into: "channel_place_categories")
                .model(category, keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil).run()
        }
    }

    public func placeCategory(id: String) async throws -> ChannelPlaceCategoryRecord? {
        try await serial { db in
            try await db.select().column("*").from("channel_place_categories").where("id", .equal, id)
                .first(decoding: ChannelPlaceCategoryRecord.self, with: Self.decoding)
        }
    }

    public func placeCategories(_ filter: ChannelItemFilter) async throws -> [ChannelPlaceCategoryRecord] {
        try await serial { db in
            let query = db.select().column("*").from("channel_place_categories")
            return try await Self.archived(query, filter == .archived)
                .orderBy("position").orderBy("name").orderBy("id")
                .all(decoding: ChannelPlaceCategoryRecord.self, with: Self.decoding)
        }
    }

    public func updatePlaceCategory(_ category: ChannelPlaceCategoryRecord) async throws {
        try await serial { db in
            try await db.update("channel_place_categories")
                .set("name", to: category.name)
                .set("position", to: category.position)
                .set("updated_at", to: category.updatedAt)
                .set("archived_at", to: Self.optional(category.archivedAt))
                .where("id", .equal, category.id)
                .run()
        }
    }

    public func deletePlaceCategory(id: String) async throws {
        try await serial { db in try await db.delete(from: "channel_place_categories").where("id", .equal, id).run() }
    }

    public func insertPlace(_ place: ChannelPlaceRecord) async throws {
        try await serial { db in
            try await db.insert(into: "channel_places")
                .model(place, keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil).run()
        }
    }

    public func place(id: String) async throws -> ChannelPlaceRecord? {
        try await serial { db in
            try await db.select().column("*").from("channel_places").where("id", .equal, id)
                .first(decoding: ChannelPlaceRecord.self, with: Self.decoding)
        }
    }

    public func places(_ filter: ChannelItemFilter, categoryId: String?) async throws -> [ChannelPlaceRecord] {
        try await serial { db in
            var query = Self.archived(db.select().column("*").from("channel_places"), filter == .archived)
            if filter == .published { query = query.where("published_at", .isNot, SQLLiteral.null) }
            if let categoryId { query = query.where("category_id", .equal, categoryId) }
            return try await query.orderBy("position").orderBy("name").orderBy("id")
                .all(decoding: ChannelPlaceRecord.self, with: Self.decoding)
        }
    }

    public func updatePlace(_ place: ChannelPlaceRecord) async throws {
        try await serial { db in
            try await db.update("channel_places")
                .set("category_id", to: place.categoryId.map { SQLBind($0) } ?? SQLLiteral.null)
                .set("name", to: place.name)
                .set("description", to: place.description)
                .set("address", to: place.address)
                .set("phone", to: place.phone)
                .set("website", to: place.website)
                .set("opening_hours", to: place.openingHours)
                .set("latitude", to: place.latitude)
                .set("longitude", to: place.longitude)
                .set("image", to: place.image.map { SQLBind($0) } ?? SQLLiteral.null)
                .set("position", to: place.position)
                .set("published_at", to: Self.optional(place.publishedAt))
                .set("updated_at", to: place.updatedAt)
                .set("archived_at", to: Self.optional(place.archivedAt))
                .where("id", .equal, place.id)
                .run()
        }
    }

    public func deletePlace(id: String) async throws -> String? {
        try await transaction { db in
            struct Row: Decodable { let image: String? }
            let image = try await db.select().column("image").from("channel_places").where("id", .equal, id)
                .first(decoding: Row.self)?.image
            try await db.delete(from: "channel_places").where("id", .equal, id).run()
            guard let image else { return nil }
            let others = try await db.select().column("image").from("channel_places").where("image", .equal, image)
                .limit(1).all(decoding: Row.self)
            return others.isEmpty ? image : nil
        }
    }

    public func reorderPlaces(_ ids: [String], categories: Bool, at date: Date) async throws {
        let table = categories ? "channel_place_categories" : "channel_places"
        try await transaction { db in
            for (position, id) in ids.enumerated() {
                try await db.update(table).set("position", to: position).set("updated_at", to: date)
                    .where("id", .equal, id).run()
            }
        }
    }

    public func placesChangedAt() async throws -> Date? {
        try await serial { db in
            struct Row: Decodable { let changed: Date? }
            var newest: Date?
            for table in ["channel_places", "channel_place_categories"] {
                let row = try await db.raw("SELECT MAX(updated_at) AS changed FROM \(ident: table)").first(decoding: Row.self)
                if let changed = row?.changed { newest = max(newest ?? changed, changed) }
            }
            return newest
        }
    }

    public func venueImage() async throws -> (image: String?, updatedAt: Date)? {
        struct Row: Decodable {
            let image: String?
            let updatedAt: Date
        }
        return try await serial { db in
            try await db.select().columns("image", "updated_at").from("channel_venue").where("id", .equal, 1)
                .first(decoding: Row.self, with: Self.decoding).map { ($0.image, $0.updatedAt) }
        }
    }

    public func setVenueImage(_ image: String?, at date: Date) async throws {
        try await serial { db in
            try await db.insert(into: "channel_venue").columns("id", "image", "updated_at")
                .values(SQLBind(1), image.map { SQLBind($0) } ?? SQLLiteral.null, SQLBind(date))
                .onConflict(with: ["id"]) { $0.set(excludedValueOf: "image").set(excludedValueOf: "updated_at") }
                .run()
        }
    }

    /// Archived rows only, or none of them.
    static func archived(_ query: SQLSelectBuilder, _ archived: Bool) -> SQLSelectBuilder {
        query.where("archived_at", archived ? .isNot : .is, SQLLiteral.null)
    }

    static func optional(_ date: Date?) -> any SQLExpression {
        date.map { SQLBind($0) } ?? SQLLiteral.null
    }
}
