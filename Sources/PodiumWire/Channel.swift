import Foundation

/// An optional sent as `null` when empty, not left out as synthesized `Encodable` does: the
/// channel's API sends every field it documents (Appendix B's clients read `null`). Read
/// leniently: `null` and an absent field are both nil.
@propertyWrapper
public struct NullEncoded<Value: Sendable>: Sendable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }
}

extension NullEncoded: Equatable where Value: Equatable {}

extension NullEncoded: Encodable where Value: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension NullEncoded: Decodable where Value: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }
}

extension KeyedDecodingContainer {
    /// A ``NullEncoded`` field that is absent is nil, as a plain optional's would be (synthesized
    /// decoding asks for the key of a non-optional wrapper).
    public func decode<Value: Decodable>(_ type: NullEncoded<Value>.Type, forKey key: Key) throws -> NullEncoded<Value> {
        NullEncoded(wrappedValue: try decodeIfPresent(Value.self, forKey: key))
    }
}

/// The channel as the signed-in person (or anonymous viewer) sees it (`GET /api/v1/channel/me`).
/// Every field is sent, `null` when empty.
public struct ChannelMe: Codable, Sendable, Equatable {
    /// The channel's name and what a non-member is told about membership.
    public struct Channel: Codable, Sendable, Equatable {
        public var name: String
        public var membershipInfo: String
        @NullEncoded public var membershipURL: String?

        public init(name: String, membershipInfo: String, membershipURL: String?) {
            self.name = name
            self.membershipInfo = membershipInfo
            self.membershipURL = membershipURL
        }
    }

    /// The viewer's key (a user's or an anonymous viewer's).
    public var key: String
    public var signedIn: Bool
    public var member: Bool
    public var admin: Bool
    @NullEncoded public var name: String?
    public var channel: Channel

    public init(key: String, signedIn: Bool, member: Bool, admin: Bool, name: String?, channel: Channel) {
        self.key = key
        self.signedIn = signedIn
        self.member = member
        self.admin = admin
        self.name = name
        self.channel = channel
    }
}

/// What is new on the channel since the person last looked (`GET /api/v1/channel/new`), newest
/// first. Every field is sent, `null` when empty.
public struct ChannelFeed: Codable, Sendable, Equatable {
    /// A published item and where it is: its place on the channel page and its share page.
    public struct Item: Codable, Sendable, Equatable {
        /// `place`, `quiz`, `radio`, `video`…
        public var kind: String
        public var id: String
        public var title: String
        public var description: String
        @NullEncoded public var imageUrl: String?
        public var publishedAt: Date
        public var url: String
        public var shareUrl: String

        public init(
            kind: String, id: String, title: String, description: String, imageUrl: String?, publishedAt: Date, url: String,
            shareUrl: String
        ) {
            self.kind = kind
            self.id = id
            self.title = title
            self.description = description
            self.imageUrl = imageUrl
            self.publishedAt = publishedAt
            self.url = url
            self.shareUrl = shareUrl
        }
    }

    /// Nil: never (the feed then shows the last month).
    @NullEncoded public var lastSeenAt: Date?
    public var items: [Item]

    public init(lastSeenAt: Date?, items: [Item]) {
        self.lastSeenAt = lastSeenAt
        self.items = items
    }
}
