import Foundation
import PodiumCore

/// Shorthands for the audience's commands in tests: each goes through the one pipeline,
/// ``SessionState/take(_:id:from:at:)``, with a fresh command id.
extension SessionState {
    /// An answer `elapsed` seconds after its poll opened. Returns whether the held answer changed.
    mutating func answer(pollId: Int, _ answer: PollAnswer, viewer: String, after elapsed: Double = 0, by role: Role)
        throws(SessionError) -> Bool
    {
        let opened = polls.openedAt[pollId] ?? 0
        let decision = try take(
            .answer(pollId: pollId, answer), id: UUID().uuidString, from: Actor(role, viewerId: viewer), at: opened + elapsed)
        return !decision.records.isEmpty
    }

    /// A question; nil when it was taken before (same id).
    mutating func ask(
        id: String, text: String, page: Int?, anonymous: Bool, viewer: String, at date: Date, by role: Role
    ) throws(SessionError) -> AudienceQuestion? {
        let decision = try take(
            .ask(id: id, text: text, page: page, anonymous: anonymous), id: id, from: Actor(role, viewerId: viewer),
            at: date.timeIntervalSince1970)
        for case .question(let question) in decision.records { return question }
        return nil
    }

    /// Marks a question; returns it when it changed.
    mutating func markQuestion(id: String, answered: Bool, by role: Role) throws(SessionError) -> AudienceQuestion? {
        let decision = try take(
            .markQuestion(questionId: id, answered: answered), id: UUID().uuidString, from: Actor(role), at: 0)
        return decision.records.isEmpty ? nil : questions.question(id)
    }

    /// Approves a question; returns it when it changed.
    mutating func approveQuestion(id: String, approved: Bool, by role: Role) throws(SessionError) -> AudienceQuestion? {
        let decision = try take(
            .approveQuestion(questionId: id, approved: approved), id: UUID().uuidString, from: Actor(role), at: 0)
        return decision.records.isEmpty ? nil : questions.question(id)
    }

    /// An upvote or its withdrawal; returns whether anything changed.
    mutating func vote(questionId: String, up: Bool, viewer: String, by role: Role) throws(SessionError) -> Bool {
        let decision = try take(
            .vote(questionId: questionId, up: up), id: UUID().uuidString, from: Actor(role, viewerId: viewer), at: 0)
        return !decision.records.isEmpty
    }
}
