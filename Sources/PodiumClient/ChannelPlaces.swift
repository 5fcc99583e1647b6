import Foundation
import PodiumCore
import PodiumWire

// ChannelPlace and ChannelMap are PodiumWire's (re-exported).

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
