import Foundation

/// What a resumable upload becomes when its last byte arrives (`Upload-Metadata`'s `target`).
public enum ResumableUploadTarget: String, Codable, Sendable, CaseIterable {
    /// A deck in the signed-in user's library (as `POST /api/v1/decks`).
    case deck
    /// A clip in the signed-in user's library (as `POST /api/v1/videos`).
    case video
    /// A deck brought into a room (as `POST /api/v1/sessions/{code}/decks`).
    case roomDeck = "room-deck"
    /// A clip brought into a room (as `POST /api/v1/sessions/{code}/videos`).
    case roomVideo = "room-video"
}

/// A resumable upload (tus 1.0.0, `/api/v1/uploads`): the body of its creation's `201` and of
/// `GET /api/v1/uploads/{id}`. `filename` is encoded as `null` when none was given, `result` as
/// `null` until the upload is done.
///
/// `result` is the body the target's one-shot route answers with (`{...deck, "jobId"}`,
/// `{...video, "jobId"}`, a room's `RoomDeckAdded`, ...), kept typed rather than as free JSON:
/// PodiumWire has no free JSON value (the SDK's `JSONValue` lives in PodiumClient, above this
/// module), and which body it is follows from `target`, so the decoder picks the type by the
/// upload's `target` and a client gets the same type the one-shot route gives.
public struct ResumableUpload: Codable, Sendable, Equatable {
    /// `receiving` while bytes are missing; `done` once the last one arrived and the file was
    /// taken (its `result` then says what it became).
    public enum State: String, Codable, Sendable {
        case receiving
        case done
    }

    /// The one-shot route's answer for the upload's target.
    public enum Result: Encodable, Sendable, Equatable {
        case deck(Uploaded<Deck>)
        case video(Uploaded<Video>)
        case roomDeck(RoomDeckAdded)
        case roomVideo(Uploaded<Video>)

        public var target: ResumableUploadTarget {
            switch self {
            case .deck: .deck
            case .video: .video
            case .roomDeck: .roomDeck
            case .roomVideo: .roomVideo
            }
        }

        /// Decodes the body of `target`'s one-shot route.
        public init(target: ResumableUploadTarget, from decoder: any Decoder) throws {
            switch target {
            case .deck: self = .deck(try Uploaded<Deck>(from: decoder))
            case .video: self = .video(try Uploaded<Video>(from: decoder))
            case .roomDeck: self = .roomDeck(try RoomDeckAdded(from: decoder))
            case .roomVideo: self = .roomVideo(try Uploaded<Video>(from: decoder))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            switch self {
            case .deck(let body): try body.encode(to: encoder)
            case .video(let body): try body.encode(to: encoder)
            case .roomDeck(let body): try body.encode(to: encoder)
            case .roomVideo(let body): try body.encode(to: encoder)
            }
        }
    }

    /// `u` and 32 hex digits; the upload's address is `/api/v1/uploads/{id}`.
    public var id: String
    public var target: ResumableUploadTarget
    /// The bytes received so far.
    public var offset: Int
    /// The whole file's size (`Upload-Length`).
    public var length: Int
    /// When the upload is removed unless a `PATCH` moves it on.
    public var expiresAt: Date
    public var filename: String?
    public var state: State
    public var result: Result?

    public init(
        id: String, target: ResumableUploadTarget, offset: Int, length: Int, expiresAt: Date, filename: String?,
        state: State, result: Result?
    ) {
        self.id = id
        self.target = target
        self.offset = offset
        self.length = length
        self.expiresAt = expiresAt
        self.filename = filename
        self.state = state
        self.result = result
    }

    enum CodingKeys: String, CodingKey { case id, target, offset, length, expiresAt, filename, state, result }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        target = try container.decode(ResumableUploadTarget.self, forKey: .target)
        offset = try container.decode(Int.self, forKey: .offset)
        length = try container.decode(Int.self, forKey: .length)
        expiresAt = try container.decode(Date.self, forKey: .expiresAt)
        filename = try container.decodeIfPresent(String.self, forKey: .filename)
        state = try container.decode(State.self, forKey: .state)
        if container.contains(.result), try !container.decodeNil(forKey: .result) {
            result = try Result(target: target, from: try container.superDecoder(forKey: .result))
        } else {
            result = nil
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(target, forKey: .target)
        try container.encode(offset, forKey: .offset)
        try container.encode(length, forKey: .length)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(filename, forKey: .filename)
        try container.encode(state, forKey: .state)
        if let result {
            try result.encode(to: container.superEncoder(forKey: .result))
        } else {
            try container.encodeNil(forKey: .result)
        }
    }
}
