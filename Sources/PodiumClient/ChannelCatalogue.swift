import Foundation

/// The channel as the signed-in person (or anonymous viewer) sees it.
public struct ChannelMe: Codable, Sendable, Equatable {
    public struct Channel: Codable, Sendable, Equatable {
        public var name: String
        public var membershipInfo: String
        public var membershipURL: String?
    }
    /// The viewer's key (a user's or an anonymous viewer's).
    public var key: String
    public var signedIn: Bool
    public var member: Bool
    public var admin: Bool
    public var name: String?
    public var channel: Channel
}

/// What is new on the channel since the person last looked.
public struct ChannelFeed: Codable, Sendable, Equatable {
    public struct Item: Codable, Sendable, Equatable {
        /// `place`, `quiz`, `radio`, `video`…
        public var kind: String
        public var id: String
        public var title: String
        public var description: String
        public var imageUrl: String?
        public var publishedAt: Date
        public var url: String
        public var shareUrl: String
    }
    /// Nil: never (the feed then shows the last month).
    public var lastSeenAt: Date?
    public var items: [Item]
}

/// A category of the channel's places.
public struct ChannelPlaceCategory: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var position: Int
    /// Published places in it.
    public var placeCount: Int
    public var updatedAt: Date
    public var archivedAt: Date?
}

/// A category (level 0) or subcategory (level 1) of the channel's videos.
public struct ChannelVideoCategory: Codable, Sendable, Equatable {
    public var id: String
    public var parentId: String?
    public var name: String
    /// `video`.
    public var kind: String
    public var level: Int
    public var position: Int
    public var updatedAt: Date
    public var archivedAt: Date?
}

/// A quiz as the channel lists it, with the asker's score.
public struct ChannelQuizSummary: Codable, Sendable, Equatable {
    /// The asker's last and best score.
    public struct Result: Codable, Sendable, Equatable {
        public var score: Int
        public var bestScore: Int
        public var total: Int
        public var takenAt: Date
        public var bestAt: Date
    }
    public var id: String
    public var name: String
    public var description: String
    public var questionCount: Int
    public var position: Int
    public var publishedAt: Date?
    public var updatedAt: Date
    public var archivedAt: Date?
    /// Whether the asker may take it (members every quiz, others only the newest).
    public var open: Bool
    public var membersOnly: Bool
    /// Nil before a first attempt.
    public var result: Result?
}

/// One quiz with its questions (which answers are right only for an admin editing it).
public struct ChannelQuiz: Codable, Sendable, Equatable {
    public struct Answer: Codable, Sendable, Equatable {
        public var id: String
        public var text: String
        /// Nil on the public read.
        public var correct: Bool?
    }
    public struct Question: Codable, Sendable, Equatable {
        public var id: String
        public var text: String
        public var answers: [Answer]
    }
    public var quiz: ChannelQuizSummary
    public var questions: [Question]
}

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
