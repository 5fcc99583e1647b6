import Foundation
import PodiumCore
import PodiumWire

/// One message from the server on the live socket, decoded into `PodiumCore`'s types.
public enum LiveMessage: Sendable, Equatable {
    case welcome(Welcome)
    /// A durable event (it has a `seq`).
    case event(SessionEvent)
    case ack(Ack)
    case error(ErrorMessage)
    case pong(Pong)
    case pointer(PointerMessage)
    case inking(InkingMessage)
    case presence(PresenceMessage)
    case reconnect(ReconnectMessage)
    case results(ResultsMessage)
    case myAnswer(MyAnswerMessage)
    case questions(QuestionsMessage)
    case viewerList(ViewerListMessage)
    case publicQuestions(PublicQuestionsMessage)
    case myVotes(MyVotesMessage)
    case leaderboard(LeaderboardMessage)
    case myScore(MyScoreMessage)
    case roomPresence(RoomPresenceMessage)
    case deckFailed(DeckFailedMessage)
    /// A type this SDK does not know (a newer server); passed on whole.
    case other(type: String, JSONValue)

    /// The durable events' types (each comes with a `seq`).
    public static let eventTypes: Set<String> = [
        "page", "zoom", "blank", "lock", "ended", "pollOpened", "pollClosed", "pollRevealed", "resultsShown", "answerShared",
        "questionMode",
        "stroke", "erased", "pageCleared", "presenterJoined", "requested", "requestCancelled", "control", "doNotDisturb",
        "queueCap", "deckAdded", "deckShown", "background", "spotlight", "playback", "joinInfo", "recording",
        "talkLength", "talkTimerShown",
    ]

    /// Every type this enum decodes to a case of its own (what the drift test compares with
    /// docs/protocol.md).
    public static let knownTypes: Set<String> = eventTypes.union([
        "welcome", "ack", "error", "pong", "pointer", "inking", "presence", "reconnect", "results", "myAnswer", "questions",
        "viewerList", "publicQuestions", "myVotes", "leaderboard", "myScore", "roomPresence", "deckFailed",
    ])

    struct Header: Decodable {
        let type: String
        let seq: Int?
    }

    /// Decodes one text frame.
    public static func decode(_ text: String) throws -> LiveMessage {
        let data = Data(text.utf8)
        let decoder = PodiumClient.makeDecoder()
        let header = try decoder.decode(Header.self, from: data)
        func as_<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(T.self, from: data) }
        if header.seq != nil, eventTypes.contains(header.type) { return .event(try as_(SessionEvent.self)) }
        switch header.type {
        case "welcome": return .welcome(try as_(Welcome.self))
        case "ack": return .ack(try as_(Ack.self))
        case "error": return .error(try as_(ErrorMessage.self))
        case "pong": return .pong(try as_(Pong.self))
        case "pointer": return .pointer(try as_(PointerMessage.self))
        case "inking": return .inking(try as_(InkingMessage.self))
        case "presence": return .presence(try as_(PresenceMessage.self))
        case "reconnect": return .reconnect(try as_(ReconnectMessage.self))
        case "results": return .results(try as_(ResultsMessage.self))
        case "myAnswer": return .myAnswer(try as_(MyAnswerMessage.self))
        case "questions": return .questions(try as_(QuestionsMessage.self))
        case "viewerList": return .viewerList(try as_(ViewerListMessage.self))
        case "publicQuestions": return .publicQuestions(try as_(PublicQuestionsMessage.self))
        case "myVotes": return .myVotes(try as_(MyVotesMessage.self))
        case "leaderboard": return .leaderboard(try as_(LeaderboardMessage.self))
        case "myScore": return .myScore(try as_(MyScoreMessage.self))
        case "roomPresence": return .roomPresence(try as_(RoomPresenceMessage.self))
        case "deckFailed": return .deckFailed(try as_(DeckFailedMessage.self))
        default: return .other(type: header.type, try as_(JSONValue.self))
        }
    }
}

/// What a program sends on the live socket besides `hello`: the types of `PodiumCore`'s
/// `ClientMessage` and `SessionCommand` as the SDK sends them (the drift test compares this
/// list with docs/protocol.md).
public enum LiveCommands {
    /// Every feature's command types and the socket's own messages, as PodiumCore decodes them.
    public static let types: Set<String> = ClientMessage.wireTypes

    /// The `type` a command goes out with.
    public static func type(of message: ClientMessage) -> String {
        guard let data = try? JSONEncoder().encode(message),
            let header = try? JSONDecoder().decode(LiveMessage.Header.self, from: data)
        else { return "" }
        return header.type
    }
}
