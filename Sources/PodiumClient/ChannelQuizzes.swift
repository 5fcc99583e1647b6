import Foundation

extension Endpoint {
    public static let channelQuizAttempt = Endpoint("POST", "/api/v1/channel/quizzes/{id}/attempts")
}

extension PodiumClient {
    /// Hands in a quiz attempt (`answers` as docs/channel.md shows) and returns the score.
    public func submitChannelQuiz(id: String, _ attempt: JSONValue) async throws -> JSONValue {
        try await callJSON(.channelQuizAttempt, ["id": id], body: attempt)
    }
}
