import Foundation
import PodiumCore

/// A place of the channel (a point of interest on the venue map: Appendix B's POI, camelCase,
/// with what the page needs). Every field is sent, `null` when empty.
public struct ChannelPlace: Codable, Sendable, Equatable {
    public var id: String
    @NullEncoded public var categoryId: String?
    public var name: String
    public var description: String
    public var address: String
    public var phone: String
    public var website: String
    public var openingHours: String
    public var latitude: Double
    public var longitude: Double
    /// Its picture (`/blobs/…`); nil without one.
    @NullEncoded public var imageUrl: String?
    public var position: Int
    /// Nil while a draft.
    @NullEncoded public var publishedAt: Date?
    public var updatedAt: Date
    @NullEncoded public var archivedAt: Date?
    /// Metres from the `near` point of a listing; nil without one.
    @NullEncoded public var distanceMeters: Double?
    /// For members: how to hand off to a maps app; nil for others (see `…/directions`).
    @NullEncoded public var directions: Directions?

    public init(
        id: String, categoryId: String?, name: String, description: String, address: String, phone: String,
        website: String, openingHours: String, latitude: Double, longitude: Double, imageUrl: String?, position: Int,
        publishedAt: Date?, updatedAt: Date, archivedAt: Date?, distanceMeters: Double?, directions: Directions?
    ) {
        self.id = id
        self.categoryId = categoryId
        self.name = name
        self.description = description
        self.address = address
        self.phone = phone
        self.website = website
        self.openingHours = openingHours
        self.latitude = latitude
        self.longitude = longitude
        self.imageUrl = imageUrl
        self.position = position
        self.publishedAt = publishedAt
        self.updatedAt = updatedAt
        self.archivedAt = archivedAt
        self.distanceMeters = distanceMeters
        self.directions = directions
    }
}

/// A category of the channel's places.
public struct ChannelPlaceCategory: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var position: Int
    /// Published places in it.
    public var placeCount: Int
    public var updatedAt: Date
    @NullEncoded public var archivedAt: Date?

    public init(id: String, name: String, position: Int, placeCount: Int, updatedAt: Date, archivedAt: Date?) {
        self.id = id
        self.name = name
        self.position = position
        self.placeCount = placeCount
        self.updatedAt = updatedAt
        self.archivedAt = archivedAt
    }
}

/// The venue map besides its places: the offline tile basemap (nil where the server has no
/// tiles) and the venue's picture.
public struct ChannelMap: Codable, Sendable, Equatable {
    public struct Basemap: Codable, Sendable, Equatable {
        /// `/tiles/{z}/{x}/{y}.png`.
        public var tileUrl: String
        public var minZoom: Int
        public var maxZoom: Int
        public var attribution: String

        public init(tileUrl: String, minZoom: Int, maxZoom: Int, attribution: String) {
            self.tileUrl = tileUrl
            self.minZoom = minZoom
            self.maxZoom = maxZoom
            self.attribution = attribution
        }
    }

    @NullEncoded public var basemap: Basemap?
    @NullEncoded public var venueImageUrl: String?

    public init(basemap: Basemap?, venueImageUrl: String?) {
        self.basemap = basemap
        self.venueImageUrl = venueImageUrl
    }
}
