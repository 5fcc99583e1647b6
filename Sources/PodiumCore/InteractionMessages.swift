import Foundation

/// `{"type":"results",…}`: a poll's tally. Presenters get open answers too; viewers only counts.
public struct ResultsMessage: Codable, Sendable, Equatable {
    public var type = "results"
    public var pollId: Int
    public var counts: [Int]
    public var answered: Int
    public var connected: Int
    public var answers: [SharedAnswer]?

    /// Presenters see at most this many open answers at once (newest first).
    public static let maxOpenAnswers = 200

    public init(pollId: Int, counts: [Int], answered: Int, connected: Int, answers: [SharedAnswer]?) {
        self.pollId = pollId
        self.counts = counts
        self.answered = answered
        self.connected = connected
        self.answers = answers
    }
}

/// `{"type":"myAnswer",…}`: the answer the server holds for this viewer.
public struct MyAnswerMessage: Codable, Sendable, Equatable {
    public var type = "myAnswer"
    public var pollId: Int
    public var choices: [Int]?
    public var text: String?

    public init(pollId: Int, answer: PollAnswer) {
        self.pollId = pollId
        switch answer {
        case .choices(let choices): self.choices = choices
        case .text(let text): self.text = text
        }
    }
}

/// A question as the presenter sees it: an anonymous asker is neither named nor identified.
public struct QuestionView: Codable, Sendable, Equatable {
    public var id: String
    public var text: String
    public var page: Int?
    public var anonymous: Bool
    public var name: String?
    public var viewerId: String?
    public var askedAt: Date
    public var answered: Bool
    public var approved: Bool
    public var votes: Int
    /// In a room, the presenter who had the stage when it was asked (absent: the moderator).
    public var presenter: String?

    public init(_ question: AudienceQuestion, asker: ViewerEntry?, votes: Int = 0) {
        id = question.id
        text = question.text
        page = question.page
        anonymous = question.anonymous
        name = question.anonymous ? nil : (question.name ?? asker?.displayName)
        viewerId = question.anonymous ? nil : asker?.publicId
        askedAt = question.askedAt
        answered = question.answered
        approved = question.approved
        self.votes = votes
        presenter = question.presenter
    }
}

public struct QuestionsMessage: Codable, Sendable, Equatable {
    public var type = "questions"
    public var questions: [QuestionView]

    public init(questions: [QuestionView]) { self.questions = questions }
}

/// A viewer as the presenter sees them, with their public id (never their identity cookie).
public struct ViewerView: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var connected: Bool
    /// Questions asked under their name (anonymous ones are not counted: that would give them away).
    public var questions: Int

    public init(id: String, name: String, connected: Bool, questions: Int) {
        self.id = id
        self.name = name
        self.connected = connected
        self.questions = questions
    }
}

public struct ViewerListMessage: Codable, Sendable, Equatable {
    public var type = "viewerList"
    public var viewers: [ViewerView]

    public init(viewers: [ViewerView]) { self.viewers = viewers }
}

/// What a presenter or viewer needs beyond the snapshot when they (re)join.

/// `{"type":"publicQuestions",…}`: the questions everyone sees when the presenter makes them
/// public, most votes first. Same frame for every viewer; who voted what is never in it.
public struct PublicQuestion: Codable, Sendable, Equatable {
    public var id: String
    public var text: String
    public var page: Int?
    /// The asker's name unless they asked anonymously.
    public var name: String?
    public var votes: Int
    public var answered: Bool

    public init(_ question: AudienceQuestion, asker: ViewerEntry?, votes: Int) {
        id = question.id
        text = question.text
        page = question.page
        name = question.anonymous ? nil : (question.name ?? asker?.displayName)
        self.votes = votes
        answered = question.answered
    }
}

public struct PublicQuestionsMessage: Codable, Sendable, Equatable {
    public var type = "publicQuestions"
    public var questions: [PublicQuestion]

    public init(questions: [PublicQuestion]) { self.questions = questions }
}

/// `{"type":"myVotes","questionIds":[…]}`: the questions this viewer has upvoted.
public struct MyVotesMessage: Codable, Sendable, Equatable {
    public var type = "myVotes"
    public var questionIds: [String]

    public init(questionIds: [String]) { self.questionIds = questionIds }
}

/// `{"type":"leaderboard",…}`: the top of the quiz, sent to everyone when a quiz question closes.
public struct LeaderboardMessage: Codable, Sendable, Equatable {
    public var type = "leaderboard"
    public var entries: [LeaderboardEntry]
    /// How many viewers have scored entries in all.
    public var players: Int

    public static let shown = 10

    public init(entries: [LeaderboardEntry], players: Int) {
        self.entries = entries
        self.players = players
    }
}

/// `{"type":"myScore",…}`: a viewer's own score and rank.
public struct MyScoreMessage: Codable, Sendable, Equatable {
    public var type = "myScore"
    public var score: Int
    public var rank: Int?
    public var players: Int

    public init(score: Int, rank: Int?, players: Int) {
        self.score = score
        self.rank = rank
        self.players = players
    }

    enum CodingKeys: String, CodingKey { case type, score, rank, players }

    /// `rank` is `null` for a viewer who has no score yet, as docs/protocol.md shows.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(score, forKey: .score)
        try container.encode(rank, forKey: .rank)
        try container.encode(players, forKey: .players)
    }
}
