import Foundation
import PodiumCore

/// A session as it happened, for its replay (`GET /api/v1/sessions/{code}/replay`, issue #44):
/// its durable events, what a viewer saw of the ephemeral views, the pointer's side log, when each
/// recorded stroke began, and the presenter's audio takes. Every `at` is milliseconds since
/// `startedAt`.
public struct ReplayTimelineResponse: Codable, Sendable, Equatable {
    public var session: LiveSessionInfo
    public var startedAt: Date
    /// Milliseconds from start to end (a running session: to now).
    public var duration: Int
    /// The session still runs: this is its replay up to now.
    public var live: Bool
    public var events: [ReplayEvent]
    public var views: [ReplayView]
    public var pointer: [ReplayPointer]
    /// For each stroke committed while recording: when its drawing began.
    public var drawn: [String: Int]
    public var recordings: [RecordingResponse]

    public init(
        session: LiveSessionInfo, startedAt: Date, duration: Int, live: Bool, events: [ReplayEvent], views: [ReplayView],
        pointer: [ReplayPointer], drawn: [String: Int], recordings: [RecordingResponse]
    ) {
        self.session = session
        self.startedAt = startedAt
        self.duration = duration
        self.live = live
        self.events = events
        self.views = views
        self.pointer = pointer
        self.drawn = drawn
        self.recordings = recordings
    }
}

/// A durable event as it went out live, with its offset.
public struct ReplayEvent: Codable, Sendable, Equatable {
    public var at: Int
    public var event: SessionEvent

    public init(at: Int, event: SessionEvent) {
        self.at = at
        self.event = event
    }
}

/// An ephemeral view a viewer was sent, with its offset: a poll's results, the public question
/// list, the leaderboard (the live socket's own messages).
public struct ReplayView: Codable, Sendable, Equatable {
    public enum Message: Codable, Sendable, Equatable {
        case results(ResultsMessage)
        case publicQuestions(PublicQuestionsMessage)
        case leaderboard(LeaderboardMessage)

        private enum Keys: String, CodingKey { case type }

        public init(from decoder: any Decoder) throws {
            let type = try decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .type)
            switch type {
            case "results": self = .results(try ResultsMessage(from: decoder))
            case "publicQuestions": self = .publicQuestions(try PublicQuestionsMessage(from: decoder))
            case "leaderboard": self = .leaderboard(try LeaderboardMessage(from: decoder))
            default:
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "unknown view type \(type)"))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            switch self {
            case .results(let message): try message.encode(to: encoder)
            case .publicQuestions(let message): try message.encode(to: encoder)
            case .leaderboard(let message): try message.encode(to: encoder)
            }
        }
    }

    public var at: Int
    public var message: Message

    public init(at: Int, message: Message) {
        self.at = at
        self.message = message
    }
}

/// One sample of the pointer's side log: on a page at (x, y), or hidden.
public struct ReplayPointer: Codable, Sendable, Equatable {
    public var at: Int
    public var page: Int?
    /// A room's deck (null for a session's own deck); sent with every visible sample.
    public var deck: String?
    public var x: Double?
    public var y: Double?
    /// True when the pointer was hidden (no page, deck or point then).
    public var hidden: Bool?

    public init(at: Int, page: Int, deck: String?, x: Double, y: Double) {
        self.at = at
        self.page = page
        self.deck = deck
        self.x = x
        self.y = y
        self.hidden = nil
    }

    public init(hiddenAt at: Int) {
        self.at = at
        self.hidden = true
    }

    enum CodingKeys: String, CodingKey { case at, page, deck, x, y, hidden }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(at, forKey: .at)
        if hidden == true {
            try container.encode(true, forKey: .hidden)
        } else {
            try container.encodeIfPresent(page, forKey: .page)
            // An explicit null: a session's own deck.
            try container.encode(deck, forKey: .deck)
            try container.encodeIfPresent(x, forKey: .x)
            try container.encodeIfPresent(y, forKey: .y)
        }
    }
}
