import Foundation

/// One of the channel's ordered collections (places, place categories, quizzes, radios, videos,
/// video categories): list, create, reorder, read, change, delete and restore, each the endpoint
/// of `Public/openapi.yaml` (docs/channel.md describes the objects). The typed forms
/// (`list(as:)`, `get(id:as:)`, `create(_:as:)`, `update(id:_:as:)`, `restore(id:as:)` in
/// `ChannelCatalogue.swift`) decode into the collection's type; these take and give ``JSONValue``
/// (the admin pages' fields differ per collection and are not modelled as input types yet).
public struct ChannelCollection: Sendable {
    let client: PodiumClient
    public let listEndpoint: Endpoint
    public let createEndpoint: Endpoint
    public let orderEndpoint: Endpoint
    public let itemEndpoint: Endpoint
    public let updateEndpoint: Endpoint
    public let deleteEndpoint: Endpoint
    public let restoreEndpoint: Endpoint

    public func list(query: [String: String?] = [:]) async throws -> JSONValue {
        try await client.callJSON(listEndpoint, query: query)
    }

    public func create(_ fields: JSONValue) async throws -> JSONValue {
        try await client.callJSON(createEndpoint, body: fields)
    }

    /// Puts the items in this order.
    public func reorder(ids: [String]) async throws {
        _ = try await client.callJSON(orderEndpoint, body: ["ids": .array(ids.map { .string($0) })])
    }

    public func get(id: String) async throws -> JSONValue {
        try await client.callJSON(itemEndpoint, ["id": id])
    }

    public func update(id: String, _ fields: JSONValue) async throws -> JSONValue {
        try await client.callJSON(updateEndpoint, ["id": id], body: fields)
    }

    /// Deletes (archives where the channel keeps a restorable copy).
    @discardableResult
    public func delete(id: String) async throws -> JSONValue {
        try await client.callJSON(deleteEndpoint, ["id": id])
    }

    public func restore(id: String) async throws -> JSONValue {
        try await client.callJSON(restoreEndpoint, ["id": id])
    }

    var endpoints: [Endpoint] {
        [listEndpoint, createEndpoint, orderEndpoint, itemEndpoint, updateEndpoint, deleteEndpoint, restoreEndpoint]
    }

    static func endpoints(_ base: String, orderMethod: String) -> [Endpoint] {
        [
            Endpoint("GET", base), Endpoint("POST", base), Endpoint(orderMethod, base + "/order"),
            Endpoint("GET", base + "/{id}"), Endpoint("PATCH", base + "/{id}"), Endpoint("DELETE", base + "/{id}"),
            Endpoint("POST", base + "/{id}/restore"),
        ]
    }

    init(client: PodiumClient, _ base: String, orderMethod: String) {
        let all = Self.endpoints(base, orderMethod: orderMethod)
        self.client = client
        (listEndpoint, createEndpoint, orderEndpoint, itemEndpoint) = (all[0], all[1], all[2], all[3])
        (updateEndpoint, deleteEndpoint, restoreEndpoint) = (all[4], all[5], all[6])
    }
}

extension Endpoint {
    public static let channelMe = Endpoint("GET", "/api/v1/channel/me")
    public static let channelNew = Endpoint("GET", "/api/v1/channel/new")
    public static let channelNewSeen = Endpoint("POST", "/api/v1/channel/new/seen")
    public static let channelShare = Endpoint("GET", "/c/{kind}/{id}")
    public static let channelShareHead = Endpoint("HEAD", "/c/{kind}/{id}")
    public static let signedStream = Endpoint("GET", "/stream/{token}/{file}")
    public static let channelFavourites = Endpoint("GET", "/api/v1/channel/me/favourites")
    public static let addChannelFavourite = Endpoint("PUT", "/api/v1/channel/me/favourites/{videoId}")
    public static let removeChannelFavourite = Endpoint("DELETE", "/api/v1/channel/me/favourites/{videoId}")
    public static let channelContinue = Endpoint("GET", "/api/v1/channel/me/continue")
    public static let channelPosition = Endpoint("PUT", "/api/v1/channel/me/positions/{videoId}")

    static let channelCollections: [Endpoint] =
        ChannelCollection.endpoints("/api/v1/channel/pois", orderMethod: "POST")
        + ChannelCollection.endpoints("/api/v1/channel/pois/categories", orderMethod: "POST")
        + ChannelCollection.endpoints("/api/v1/channel/quizzes", orderMethod: "POST")
        + ChannelCollection.endpoints("/api/v1/channel/radios", orderMethod: "POST")
        + ChannelCollection.endpoints("/api/v1/channel/videos", orderMethod: "PUT")
        + ChannelCollection.endpoints("/api/v1/channel/videos/categories", orderMethod: "PUT")
}

extension PodiumClient {
    public var channelPlaces: ChannelCollection { ChannelCollection(client: self, "/api/v1/channel/pois", orderMethod: "POST") }
    public var channelPlaceCategories: ChannelCollection {
        ChannelCollection(client: self, "/api/v1/channel/pois/categories", orderMethod: "POST")
    }
    public var channelQuizzes: ChannelCollection {
        ChannelCollection(client: self, "/api/v1/channel/quizzes", orderMethod: "POST")
    }
    public var channelRadios: ChannelCollection { ChannelCollection(client: self, "/api/v1/channel/radios", orderMethod: "POST") }
    public var channelVideos: ChannelCollection { ChannelCollection(client: self, "/api/v1/channel/videos", orderMethod: "PUT") }
    public var channelVideoCategories: ChannelCollection {
        ChannelCollection(client: self, "/api/v1/channel/videos/categories", orderMethod: "PUT")
    }

    /// The channel as the signed-in person sees it (what is in it, whether they are a member).
    public func channelMe() async throws -> ChannelMe { try await call(.channelMe) }

    /// What is new since the person last looked.
    public func channelNew() async throws -> ChannelFeed { try await call(.channelNew) }

    public func markChannelSeen() async throws { _ = try await callJSON(.channelNewSeen) }

    /// The share page of a channel item (HTML with its preview tags).
    public func channelSharePage(kind: String, id: String) async throws -> String {
        String(decoding: try await bytes(.channelShare, ["kind": kind, "id": id]), as: UTF8.self)
    }

    /// The share page's headers (its type and length), as a link-preview fetcher asks first.
    public func channelSharePageInfo(kind: String, id: String) async throws -> FileInfo {
        try await head(.channelShareHead, ["kind": kind, "id": id])
    }

    /// A file of a signed stream URL (`/stream/{token}/{file}`), as the channel hands them out.
    public func signedStreamFile(token: String, file: String) async throws -> Data {
        try await bytes(.signedStream, ["token": token, "file": file])
    }

    /// The person's favourite videos.
    public func channelFavourites() async throws -> [ChannelVideo] { try await call(.channelFavourites) }

    public func setChannelFavourite(videoId: String, _ favourite: Bool) async throws {
        _ = try await callJSON(favourite ? .addChannelFavourite : .removeChannelFavourite, ["videoId": videoId])
    }

    /// The videos the person started and did not finish.
    public func channelContinueWatching() async throws -> [ChannelContinueWatching] { try await call(.channelContinue) }

    /// Remembers where the person is in a video.
    public func setChannelPosition(videoId: String, seconds: Double) async throws {
        _ = try await callJSON(.channelPosition, ["videoId": videoId], body: ["seconds": .number(seconds)])
    }
}
