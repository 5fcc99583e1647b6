import Foundation
import Hummingbird
import PodiumCore
import PodiumStore
import PodiumWire

/// A place as the channel's API shows it (PodiumWire's `ChannelPlace`).
typealias ChannelPlaceResponse = ChannelPlace

extension ChannelPlace {
    /// `distance`: metres from the `?near=` point, nil without one; `member`: whether the asker
    /// is told the directions (others ask `…/directions`).
    init(_ place: ChannelPlaceRecord, distance: Double?, member: Bool) {
        self.init(
            id: place.id, categoryId: place.categoryId, name: place.name, description: place.description,
            address: place.address, phone: place.phone, website: place.website, openingHours: place.openingHours,
            latitude: place.latitude, longitude: place.longitude, imageUrl: place.image.map(DeckResponse.blobURL),
            position: place.position, publishedAt: place.publishedAt, updatedAt: place.updatedAt,
            archivedAt: place.archivedAt, distanceMeters: distance.map { ($0 * 10).rounded() / 10 },
            directions: member ? place.point.map { Directions(to: $0, name: place.name) } : nil)
    }
}

/// A place category as the channel's API shows it (PodiumWire's `ChannelPlaceCategory`).
typealias ChannelPlaceCategoryResponse = ChannelPlaceCategory

extension ChannelPlaceCategory {
    init(_ category: ChannelPlaceCategoryRecord, placeCount: Int) {
        self.init(
            id: category.id, name: category.name, position: category.position, placeCount: placeCount,
            updatedAt: category.updatedAt, archivedAt: category.archivedAt)
    }
}

/// What the map needs besides the places (PodiumWire's `ChannelMap`): the offline basemap (nil
/// when none is installed) and the venue's picture.
typealias ChannelMapResponse = ChannelMap

extension ChannelPlaceRecord {
    /// Its coordinates as a point; nil only for a row edited outside Podium into nonsense.
    var point: GeoPoint? { try? GeoPoint(latitude: latitude, longitude: longitude) }
}

extension ChannelPlace: ResponseEncodable {}
extension ChannelPlaceCategory: ResponseEncodable {}
