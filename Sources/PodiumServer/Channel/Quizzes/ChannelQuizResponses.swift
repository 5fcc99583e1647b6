import Foundation
import Hummingbird
import PodiumCore
import PodiumStore

/// A quiz in the list: Appendix B's `{name, date}` and what the page shows beside it.
struct ChannelQuizSummary: Encodable, Sendable, Equatable {
    let id: String
    let name: String
    let description: String
    let questionCount: Int
    let position: Int
    @NullEncoded var publishedAt: Date?
    let updatedAt: Date
    @NullEncoded var archivedAt: Date?
    /// Whether this person may take it: members every quiz, others only the newest.
    let open: Bool
    /// Set (and `open` false) where only members may take it.
    let membersOnly: Bool
    /// This person's last and best score; nil before a first attempt.
    @NullEncoded var result: Result?

    struct Result: Encodable, Sendable, Equatable {
        let score: Int
        let bestScore: Int
        let total: Int
        let takenAt: Date
        let bestAt: Date
    }

    init(_ quiz: ChannelQuizRecord, questionCount: Int, open: Bool, result: ChannelQuizResultRecord?) {
        id = quiz.id
        name = quiz.name
        description = quiz.description
        self.questionCount = questionCount
        position = quiz.position
        publishedAt = quiz.publishedAt
        updatedAt = quiz.updatedAt
        archivedAt = quiz.archivedAt
        self.open = open
        membersOnly = !open
        self.result = result.map {
            Result(score: $0.score, bestScore: $0.bestScore, total: $0.total, takenAt: $0.takenAt, bestAt: $0.bestAt)
        }
    }
}

/// One quiz with its questions. Answers say whether they are right only to admins editing it.
struct ChannelQuizResponse: Encodable, Sendable, Equatable {
    let quiz: ChannelQuizSummary
    let questions: [Question]

    struct Question: Encodable, Sendable, Equatable {
        let id: String
        let text: String
        let answers: [Answer]
    }

    struct Answer: Encodable, Sendable, Equatable {
        let id: String
        let text: String
        /// Nil (left out) on the public read.
        let correct: Bool?
    }

    init(_ summary: ChannelQuizSummary, questions: [ChannelQuizQuestion], revealing: Bool) {
        quiz = summary
        self.questions = questions.map { question in
            Question(
                id: question.id, text: question.text,
                answers: question.answers.map { Answer(id: $0.id, text: $0.text, correct: revealing ? $0.correct : nil) })
        }
    }
}

/// The answer to an attempt: the score, the best so far, and per question what was right.
struct ChannelQuizAttemptResponse: Encodable, Sendable, Equatable {
    let score: Int
    let total: Int
    let bestScore: Int
    let questions: [Question]

    struct Question: Encodable, Sendable, Equatable {
        let questionId: String
        @NullEncoded var chosenAnswerId: String?
        let correct: Bool
        let correctAnswerIds: [String]
    }
}

extension ChannelQuizResponse: ResponseEncodable {}
extension ChannelQuizAttemptResponse: ResponseEncodable {}
