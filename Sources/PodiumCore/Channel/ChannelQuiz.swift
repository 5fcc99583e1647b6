import Foundation

/// Scores an attempt at a quiz. The server scores: the browser is never told which answer is
/// right until it has sent its own.
public enum ChannelQuizScoring {
    /// A question as scoring sees it: its answers and which of them are right.
    public struct Question: Sendable, Equatable {
        public let id: String
        public let answerIds: [String]
        public let correctAnswerIds: Set<String>

        public init(id: String, answerIds: [String], correctAnswerIds: Set<String>) {
            self.id = id
            self.answerIds = answerIds
            self.correctAnswerIds = correctAnswerIds
        }
    }

    /// One chosen answer.
    public struct Choice: Sendable, Equatable, Codable {
        public let questionId: String
        public let answerId: String

        public init(questionId: String, answerId: String) {
            self.questionId = questionId
            self.answerId = answerId
        }
    }

    public struct Outcome: Sendable, Equatable {
        /// Questions answered right.
        public let score: Int
        /// Questions in the quiz (an unanswered one counts as wrong).
        public let total: Int
        /// Per question, in the quiz's order: what was chosen (nil: nothing) and whether it was right.
        public let questions: [(id: String, chosen: String?, correct: Bool)]

        public static func == (lhs: Outcome, rhs: Outcome) -> Bool {
            lhs.score == rhs.score && lhs.total == rhs.total
                && lhs.questions.map(\.id) == rhs.questions.map(\.id)
                && lhs.questions.map(\.chosen) == rhs.questions.map(\.chosen)
                && lhs.questions.map(\.correct) == rhs.questions.map(\.correct)
        }
    }

    /// A choice that names no question of this quiz, an answer of another question, or a question twice.
    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    public static func score(_ questions: [Question], choices: [Choice]) throws(Invalid) -> Outcome {
        var chosen: [String: String] = [:]
        let byId = Dictionary(questions.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for choice in choices {
            guard let question = byId[choice.questionId] else {
                throw Invalid(description: "Question \(choice.questionId.prefix(40)) is not in this quiz.")
            }
            guard question.answerIds.contains(choice.answerId) else {
                throw Invalid(
                    description: "Answer \(choice.answerId.prefix(40)) is not one of question \(question.id)'s answers.")
            }
            guard chosen.updateValue(choice.answerId, forKey: question.id) == nil else {
                throw Invalid(description: "Question \(question.id) is answered twice.")
            }
        }
        let results = questions.map { question in
            let answer = chosen[question.id]
            return (id: question.id, chosen: answer, correct: answer.map(question.correctAnswerIds.contains) ?? false)
        }
        return Outcome(score: results.filter(\.correct).count, total: questions.count, questions: results)
    }
}

/// Which quizzes a person may take: members every published one, non-members only the newest.
public enum ChannelQuizAccess {
    /// The quiz non-members may take: the most recently published (ties: the greater id, so every
    /// node picks the same one). Nil when none is published.
    public static func openToEveryone(_ published: [(id: String, publishedAt: Date)]) -> String? {
        published.max { ($0.publishedAt, $0.id) < ($1.publishedAt, $1.id) }?.id
    }
}
