import Foundation

// ChannelMe, ChannelFeed, ChannelPlaceCategory, ChannelVideoCategory, ChannelQuizSummary and
// ChannelQuiz are PodiumWire's (re-exported).

/// Typed reads and writes of a collection: `Item` is the collection's type, e.g.
/// `podium.channelPlaces.list(as: ChannelPlace.self)`; the quizzes list ``ChannelQuizSummary`` and
/// read, create and change ``ChannelQuiz``; places ``ChannelPlace``, their categories
/// ``ChannelPlaceCategory``, radios ``ChannelRadioStation``, videos ``ChannelVideo`` and their
/// categories ``ChannelVideoCategory``.
extension ChannelCollection {
    public func list<Item: Decodable>(as type: Item.Type, query: [String: String?] = [:]) async throws -> [Item] {
        try await client.call(listEndpoint, query: query)
    }

    public func create<Item: Decodable>(_ fields: some Encodable, as type: Item.Type) async throws -> Item {
        try await client.call(createEndpoint, json: fields)
    }

    public func get<Item: Decodable>(id: String, as type: Item.Type) async throws -> Item {
        try await client.call(itemEndpoint, ["id": id])
    }

    public func update<Item: Decodable>(id: String, _ fields: some Encodable, as type: Item.Type) async throws -> Item {
        try await client.call(updateEndpoint, ["id": id], json: fields)
    }

    public func restore<Item: Decodable>(id: String, as type: Item.Type) async throws -> Item {
        try await client.call(restoreEndpoint, ["id": id])
    }
}
