import Foundation
import PodiumCore

/// The live socket's answer to a `ping` (`{"type": "pong", "t", "server"}`): the client's `t`
/// back (`null` when the ping had none) and the server's clock in seconds since 1970, from which
/// the client estimates the server's time NTP-style. The storyboard socket answers the same.
public struct Pong: Codable, Sendable, Equatable {
    /// The ping's `t`, or nil (sent as `null`) when it had none.
    public var t: Double?
    /// The server's time when it answered, in seconds since 1970.
    public var server: Double

    public init(t: Double?, server: Double) {
        self.t = t
        self.server = server
    }

    enum CodingKeys: String, CodingKey { case type, t, server }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        t = try container.decodeIfPresent(Double.self, forKey: .t)
        server = try container.decode(Double.self, forKey: .server)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("pong", forKey: .type)
        try container.encode(t, forKey: .t)
        try container.encode(server, forKey: .server)
    }
}

/// `{"type": "deckFailed", "deckId", "title", "error": {"code", "message"}}`: a deck uploaded into
/// a room could not be processed (to its uploader's sockets and the moderator's).
public struct DeckFailedMessage: Codable, Sendable, Equatable {
    public var deckId: String
    public var title: String
    public var error: FailureDetail

    public init(deckId: String, title: String, error: FailureDetail) {
        self.deckId = deckId
        self.title = title
        self.error = error
    }

    enum CodingKeys: String, CodingKey { case type, deckId, title, error }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        deckId = try container.decode(String.self, forKey: .deckId)
        title = try container.decode(String.self, forKey: .title)
        error = try container.decode(FailureDetail.self, forKey: .error)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("deckFailed", forKey: .type)
        try container.encode(deckId, forKey: .deckId)
        try container.encode(title, forKey: .title)
        try container.encode(error, forKey: .error)
    }
}

/// A live session as the lobby lists it (never an unlisted one; never its passcode).
public struct LobbySession: Codable, Sendable, Equatable {
    public var code: String
    public var title: String
    public var presenter: String
    /// Connected viewers, on every node.
    public var viewers: Int
    /// Whether joining takes a passcode.
    public var hasPasscode: Bool
    /// The same as ``hasPasscode`` (never the passcode itself).
    public var passcode: Bool
    public var startedAt: Date
    public var kind: SessionKind

    public init(
        code: String, title: String, presenter: String, viewers: Int, hasPasscode: Bool, passcode: Bool, startedAt: Date,
        kind: SessionKind
    ) {
        self.code = code
        self.title = title
        self.presenter = presenter
        self.viewers = viewers
        self.hasPasscode = hasPasscode
        self.passcode = passcode
        self.startedAt = startedAt
        self.kind = kind
    }
}

/// `{"type": "sessions", "sessions": [...]}`: the lobby socket's (`/api/v1/lobby`) list of listed
/// live sessions, newest first, sent whenever it changes. Decoding another `type` fails.
public struct LobbyMessage: Codable, Sendable, Equatable {
    public var sessions: [LobbySession]

    public init(sessions: [LobbySession]) {
        self.sessions = sessions
    }

    enum CodingKeys: String, CodingKey { case type, sessions }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        guard type == "sessions" else {
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "not a sessions frame")
        }
        sessions = try container.decode([LobbySession].self, forKey: .sessions)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("sessions", forKey: .type)
        try container.encode(sessions, forKey: .sessions)
    }
}
