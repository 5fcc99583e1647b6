import Foundation
import PodiumCore

/// A place of the channel (a point of interest on the venue map).
public struct ChannelPlace: Codable, Sendable, Equatable {
    public var id: String
    public var categoryId: String?
    public var name: String
    public var description: String
    public var address: String
    public var phone: String
    public var website: String
    public var openingHours: String
    public var latitude: Double
    public var longitude: Double
    /// Its picture (`/blobs/…`); nil without one.
    public var imageUrl: String?
    public var position: Int
    /// Nil while a draft.
    public var publishedAt: Date?
    public var updatedAt: Date
    public var archivedAt: Date?
    /// Metres from the `near` point of a listing; nil without one.
    public var distanceMeters: Double?
    /// For members: how to hand off to a maps app; nil for others.
    public var directions: Directions?
}

/// The venue map: the tile basemap (where the server has tiles) or a picture of the venue.
public struct ChannelMap: Codable, Sendable, Equatable {
    public struct Basemap: Codable, Sendable, Equatable {
        /// `/tiles/{z}/{x}/{y}.png`.
        public var tileUrl: String
        public var minZoom: Int
        public var maxZoom: Int
        public var attribution: String
    }
    public var basemap: Basemap?
    public var venueImageUrl: String?
}

extension Endpoint {
    public static let channelPlaceDirections = Endpoint("GET", "/api/v1/channel/pois/{id}/directions")
    public static let putChannelPlaceImage = Endpoint("PUT", "/api/v1/channel/pois/{id}/image")
    public static let deleteChannelPlaceImage = Endpoint("DELETE", "/api/v1/channel/pois/{id}/image")
    public static let channelMap = Endpoint("GET", "/api/v1/channel/map")
    public static let putVenueImage = Endpoint("PUT", "/api/v1/channel/map/venue-image")
    public static let deleteVenueImage = Endpoint("DELETE", "/api/v1/channel/map/venue-image")
    public static let tile = Endpoint("GET", "/tiles/{z}/{x}/{y}.png")
}

extension PodiumClient {
    /// Directions to a place (`from` as query fields, see docs/channel.md).
    public func channelPlaceDirections(id: String, query: [String: String?] = [:]) async throws -> Directions {
        try await call(.channelPlaceDirections, ["id": id], query: query)
    }

    /// Sets a place's picture (JPEG, PNG or WebP, judged by content).
    public func setChannelPlaceImage(id: String, file: URL) async throws -> ChannelPlace {
        try await uploadJSON(.putChannelPlaceImage, ["id": id], file: file).decode(as: ChannelPlace.self)
    }

    public func removeChannelPlaceImage(id: String) async throws -> ChannelPlace {
        try await call(.deleteChannelPlaceImage, ["id": id])
    }

    /// The venue map: its tiles or venue image and the places on it.
    public func channelMap() async throws -> ChannelMap { try await call(.channelMap) }

    public func setVenueImage(file: URL) async throws { _ = try await uploadJSON(.putVenueImage, file: file) }

    public func removeVenueImage() async throws { _ = try await callJSON(.deleteVenueImage) }

    /// One map tile (PNG).
    public func tile(z: Int, x: Int, y: Int) async throws -> Data {
        try await bytes(.tile, ["z": String(z), "x": String(x), "y": String(y)])
    }
}
