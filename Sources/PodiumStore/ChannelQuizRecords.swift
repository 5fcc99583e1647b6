import Foundation

/// A self-paced quiz of the channel.
public struct ChannelQuizRecord: Sendable, Equatable, Codable {
    public var id: String
    public var name: String
    public var description: String
    public var position: Int
    /// Nil until published; the newest published quiz is the one non-members may take.
    public var publishedAt: Date?
    public var updatedAt: Date
    public var archivedAt: Date?

    public init(
        id: String, name: String, description: String = "", position: Int, publishedAt: Date? = nil, updatedAt: Date,
        archivedAt: Date? = nil
    ) {
        self.id = id
        self.name = name
        self.description = description
        self.position = position
        self.publishedAt = publishedAt
        self.updatedAt = updatedAt
        self.archivedAt = archivedAt
    }
}

/// One question of a quiz with its answers, in order.
public struct ChannelQuizQuestion: Sendable, Equatable, Codable {
    public var id: String
    public var text: String
    public var answers: [ChannelQuizAnswer]

    public init(id: String, text: String, answers: [ChannelQuizAnswer]) {
        self.id = id
        self.text = text
        self.answers = answers
    }
}

public struct ChannelQuizAnswer: Sendable, Equatable, Codable {
    public var id: String
    public var text: String
    /// More than one answer of a question may be right; choosing any of them scores.
    public var correct: Bool

    public init(id: String, text: String, correct: Bool) {
        self.id = id
        self.text = text
        self.correct = correct
    }
}

/// A person's (a viewer key's) last and best score on a quiz.
public struct ChannelQuizResultRecord: Sendable, Equatable, Codable {
    public var quizId: String
    public var viewerKey: String
    public var score: Int
    public var total: Int
    public var bestScore: Int
    public var takenAt: Date
    public var bestAt: Date

    public init(
        quizId: String, viewerKey: String, score: Int, total: Int, bestScore: Int, takenAt: Date, bestAt: Date
    ) {
        self.quizId = quizId
        self.viewerKey = viewerKey
        self.score = score
        self.total = total
        self.bestScore = bestScore
        self.takenAt = takenAt
        self.bestAt = bestAt
    }
}
