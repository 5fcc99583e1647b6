import Foundation
import PodiumCore
import PodiumStore

/// A place as an admin sends it: every field optional on PATCH (absent: unchanged); `categoryId`
/// null takes it out of its category.
struct ChannelPlaceBody: Decodable {
    var name: String?
    var description: String?
    var address: String?
    var phone: String?
    var website: String?
    var openingHours: String?
    var latitude: Double?
    var longitude: Double?
    /// Absent: unchanged; `.some(nil)`: no category.
    var categoryId: String??
    var published: Bool?

    enum CodingKeys: String, CodingKey {
        case name, description, address, phone, website, openingHours, latitude, longitude, categoryId, published
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        address = try container.decodeIfPresent(String.self, forKey: .address)
        phone = try container.decodeIfPresent(String.self, forKey: .phone)
        website = try container.decodeIfPresent(String.self, forKey: .website)
        openingHours = try container.decodeIfPresent(String.self, forKey: .openingHours)
        latitude = try container.decodeIfPresent(Double.self, forKey: .latitude)
        longitude = try container.decodeIfPresent(Double.self, forKey: .longitude)
        if container.contains(.categoryId) {
            categoryId = .some(try container.decodeIfPresent(String.self, forKey: .categoryId))
        }
        published = try container.decodeIfPresent(Bool.self, forKey: .published)
    }

    /// Applies the fields given to `place`, each checked; throws a 400 naming the first bad one.
    func apply(to place: inout ChannelPlaceRecord, now: Date) throws {
        if let name { place.name = try Self.text(name, field: "name", max: 200, required: true) }
        if let description { place.description = try Self.text(description, field: "description", max: 5000) }
        if let address { place.address = try Self.text(address, field: "address", max: 500) }
        if let openingHours { place.openingHours = try Self.text(openingHours, field: "opening hours", max: 1000) }
        if let phone {
            let cleaned = try Self.text(phone, field: "phone number", max: 40)
            guard cleaned.allSatisfy({ "+0123456789 ()-./".contains($0) }) else {
                throw APIError.badRequest("A phone number has digits, spaces and + ( ) - . / only.")
            }
            place.phone = cleaned
        }
        if let website {
            let cleaned = try Self.text(website, field: "website", max: 500)
            if !cleaned.isEmpty {
                guard let url = URL(string: cleaned), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                    url.host?.isEmpty == false
                else { throw APIError.badRequest("A website is an http:// or https:// address.") }
            }
            place.website = cleaned
        }
        if latitude != nil || longitude != nil {
            do {
                let point = try GeoPoint(
                    latitude: latitude ?? place.latitude, longitude: longitude ?? place.longitude)
                place.latitude = point.latitude
                place.longitude = point.longitude
            } catch {
                throw APIError.badRequest(error.description)
            }
        }
        if let categoryId { place.categoryId = categoryId }
        if let published { place.publishedAt = published ? (place.publishedAt ?? now) : nil }
    }

    /// `value` trimmed, at most `max` characters, not empty when `required`.
    static func text(_ value: String, field: String, max: Int, required: Bool = false) throws -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        if required, trimmed.isEmpty { throw APIError.badRequest("The \(field) must not be empty.") }
        guard trimmed.count <= max else { throw APIError.badRequest("The \(field) is longer than \(max) characters.") }
        return trimmed
    }
}

/// `{ids: [...]}`: a new order.
struct ChannelOrderBody: Decodable {
    let ids: [String]

    /// The ids, checked against those that may be ordered: each once, none unknown.
    func checked(against known: Set<String>) throws -> [String] {
        guard Set(ids).count == ids.count else { throw APIError.badRequest("An id is listed twice.") }
        if let unknown = ids.first(where: { !known.contains($0) }) {
            throw APIError.badRequest("\(unknown.prefix(40)) is not one of the items to order.")
        }
        return ids
    }
}
