import Foundation
import Hummingbird
import PodiumCore
import PodiumStore
import PodiumWire

/// A place as the channel's API shows it (Appendix B's POI, camelCase, with what the page needs).
struct ChannelPlaceResponse: Encodable, Sendable, Equatable {
    let id: String
    @NullEncoded var categoryId: String?
    let name: String
    let description: String
    let address: String
    let phone: String
    let website: String
    let openingHours: String
    let latitude: Double
    let longitude: Double
    @NullEncoded var imageUrl: String?
    let position: Int
    @NullEncoded var publishedAt: Date?
    let updatedAt: Date
    @NullEncoded var archivedAt: Date?
    /// Metres from the `?near=` point; nil without one.
    @NullEncoded var distanceMeters: Double?
    /// For members: how to hand off to a maps app. Nil for non-members (see `…/directions`).
    @NullEncoded var directions: Directions?

    init(_ place: ChannelPlaceRecord, distance: Double?, member: Bool) {
        id = place.id
        categoryId = place.categoryId
        name = place.name
        description = place.description
        address = place.address
        phone = place.phone
        website = place.website
        openingHours = place.openingHours
        latitude = place.latitude
        longitude = place.longitude
        imageUrl = place.image.map(DeckResponse.blobURL)
        position = place.position
        publishedAt = place.publishedAt
        updatedAt = place.updatedAt
        archivedAt = place.archivedAt
        distanceMeters = distance.map { ($0 * 10).rounded() / 10 }
        directions = member ? place.point.map { Directions(to: $0, name: place.name) } : nil
    }
}

struct ChannelPlaceCategoryResponse: Encodable, Sendable, Equatable {
    let id: String
    let name: String
    let position: Int
    /// Published places in it.
    let placeCount: Int
    let updatedAt: Date
    @NullEncoded var archivedAt: Date?

    init(_ category: ChannelPlaceCategoryRecord, placeCount: Int) {
        id = category.id
        name = category.name
        position = category.position
        self.placeCount = placeCount
        updatedAt = category.updatedAt
        archivedAt = category.archivedAt
    }
}

/// What the map needs besides the places: the offline basemap (nil when none is installed) and
/// the venue's picture.
struct ChannelMapResponse: Encodable, Sendable, Equatable {
    struct Basemap: Encodable, Sendable, Equatable {
        let tileUrl: String
        let minZoom: Int
        let maxZoom: Int
        let attribution: String
    }

    @NullEncoded var basemap: Basemap?
    @NullEncoded var venueImageUrl: String?
}

extension ChannelPlaceRecord {
    /// Its coordinates as a point; nil only for a row edited outside Podium into nonsense.
    var point: GeoPoint? { try? GeoPoint(latitude: latitude, longitude: longitude) }
}

extension ChannelPlaceResponse: ResponseEncodable {}
extension ChannelPlaceCategoryResponse: ResponseEncodable {}
