import Foundation

/// A quiz as the channel lists it (Appendix B's `{name, date}` and what the page shows beside
/// it), with the asker's score. Every field is sent, `null` when empty.
public struct ChannelQuizSummary: Codable, Sendable, Equatable {
    /// The asker's last and best score.
    public struct Result: Codable, Sendable, Equatable {
        public var score: Int
        public var bestScore: Int
        public var total: Int
        public var takenAt: Date
        public var bestAt: Date

        public init(score: Int, bestScore: Int, total: Int, takenAt: Date, bestAt: Date) {
            self.score = score
            self.bestScore = bestScore
            self.total = total
            self.takenAt = takenAt
            self.bestAt = bestAt
        }
    }

    public var id: String
    public var name: String
    public var description: String
    public var questionCount: Int
    public var position: Int
    @NullEncoded public var publishedAt: Date?
    public var updatedAt: Date
    @NullEncoded public var archivedAt: Date?
    /// Whether the asker may take it (members every quiz, others only the newest).
    public var open: Bool
    /// Set (and `open` false) where only members may take it.
    public var membersOnly: Bool
    /// Nil before a first attempt.
    @NullEncoded public var result: Result?

    public init(
        id: String, name: String, description: String, questionCount: Int, position: Int, publishedAt: Date?,
        updatedAt: Date, archivedAt: Date?, open: Bool, membersOnly: Bool, result: Result?
    ) {
        self.id = id
        self.name = name
        self.description = description
        self.questionCount = questionCount
        self.position = position
        self.publishedAt = publishedAt
        self.updatedAt = updatedAt
        self.archivedAt = archivedAt
        self.open = open
        self.membersOnly = membersOnly
        self.result = result
    }
}

/// One quiz with its questions. Answers say whether they are right only to an admin editing it.
public struct ChannelQuiz: Codable, Sendable, Equatable {
    public struct Answer: Codable, Sendable, Equatable {
        public var id: String
        public var text: String
        /// Nil (left out) on the public read.
        public var correct: Bool?

        public init(id: String, text: String, correct: Bool?) {
            self.id = id
            self.text = text
            self.correct = correct
        }
    }

    public struct Question: Codable, Sendable, Equatable {
        public var id: String
        public var text: String
        public var answers: [Answer]

        public init(id: String, text: String, answers: [Answer]) {
            self.id = id
            self.text = text
            self.answers = answers
        }
    }

    public var quiz: ChannelQuizSummary
    public var questions: [Question]

    public init(quiz: ChannelQuizSummary, questions: [Question]) {
        self.quiz = quiz
        self.questions = questions
    }
}

/// One answer of a quiz attempt: the answer chosen for a question.
public struct ChannelQuizChoice: Codable, Sendable, Equatable {
    public var questionId: String
    public var answerId: String

    public init(questionId: String, answerId: String) {
        self.questionId = questionId
        self.answerId = answerId
    }
}

/// What a person hands in for a quiz attempt (`POST /api/v1/channel/quizzes/{id}/attempts`): one
/// choice per question answered. The answer is a ``ChannelQuizScore`` (the document's
/// `ChannelQuizAttempt`).
public struct ChannelQuizSubmission: Codable, Sendable, Equatable {
    public var answers: [ChannelQuizChoice]

    public init(answers: [ChannelQuizChoice]) {
        self.answers = answers
    }
}

/// The score of a quiz attempt, the best so far, and per question what was right (the
/// document's `ChannelQuizAttempt`).
public struct ChannelQuizScore: Codable, Sendable, Equatable {
    public struct Question: Codable, Sendable, Equatable {
        public var questionId: String
        /// Nil (`null`) when the question was left unanswered.
        @NullEncoded public var chosenAnswerId: String?
        public var correct: Bool
        public var correctAnswerIds: [String]

        public init(questionId: String, chosenAnswerId: String?, correct: Bool, correctAnswerIds: [String]) {
            self.questionId = questionId
            self.chosenAnswerId = chosenAnswerId
            self.correct = correct
            self.correctAnswerIds = correctAnswerIds
        }
    }

    public var score: Int
    public var total: Int
    public var bestScore: Int
    public var questions: [Question]

    public init(score: Int, total: Int, bestScore: Int, questions: [Question]) {
        self.score = score
        self.total = total
        self.bestScore = bestScore
        self.questions = questions
    }
}
