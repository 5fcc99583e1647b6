import Foundation
import PodiumWire

extension Endpoint {
    public static let channelQuizAttempt = Endpoint("POST", "/api/v1/channel/quizzes/{id}/attempts")
}

// ChannelQuizChoice, ChannelQuizSubmission and ChannelQuizScore are PodiumWire's (re-exported).

extension PodiumClient {
    /// Hands in a quiz attempt (one choice per question answered) and returns the score.
    public func submitChannelQuiz(id: String, answers: [ChannelQuizChoice]) async throws -> ChannelQuizScore {
        try await call(.channelQuizAttempt, ["id": id], json: ChannelQuizSubmission(answers: answers))
    }
}
