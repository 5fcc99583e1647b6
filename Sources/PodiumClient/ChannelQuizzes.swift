import Foundation

extension Endpoint {
    public static let channelQuizAttempt = Endpoint("POST", "/api/v1/channel/quizzes/{id}/attempts")
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

/// The score of a quiz attempt, the best so far, and per question what was right.
public struct ChannelQuizScore: Codable, Sendable, Equatable {
    public struct Question: Codable, Sendable, Equatable {
        public var questionId: String
        /// Nil when the question was left unanswered.
        public var chosenAnswerId: String?
        public var correct: Bool
        public var correctAnswerIds: [String]
    }
    public var score: Int
    public var total: Int
    public var bestScore: Int
    public var questions: [Question]
}

extension PodiumClient {
    /// Hands in a quiz attempt (one choice per question answered) and returns the score.
    public func submitChannelQuiz(id: String, answers: [ChannelQuizChoice]) async throws -> ChannelQuizScore {
        struct Attempt: Encodable { let answers: [ChannelQuizChoice] }
        return try await call(.channelQuizAttempt, ["id": id], json: Attempt(answers: answers))
    }
}
