import Foundation
import PodiumStore
import PodiumWire

/// A quiz as an admin sends it. On PATCH absent fields stay; `questions`, when given, replace
/// all of them (ids sent back keep theirs, so a person halfway through still scores).
struct ChannelQuizBody: Decodable {
    var name: String?
    var description: String?
    var published: Bool?
    var questions: [Question]?

    struct Question: Decodable {
        var id: String?
        var text: String
        var answers: [Answer]
    }

    struct Answer: Decodable {
        var id: String?
        var text: String
        var correct: Bool
    }

    static let maxQuestions = 100
    static let maxAnswers = 10

    /// The questions checked, with new ids where none were given (or one belongs to another
    /// quiz: `taken` lists the ids of every other quiz's questions and answers).
    func checkedQuestions(taken: Set<String>, makeID: (String) -> String) throws -> [ChannelQuizQuestion]? {
        guard let questions else { return nil }
        guard questions.count <= Self.maxQuestions else {
            throw APIError.badRequest("A quiz has at most \(Self.maxQuestions) questions.")
        }
        var seen = Set<String>()
        func id(_ given: String?, prefix: String) -> String {
            if let given, !given.isEmpty, given.count <= 40, !taken.contains(given), seen.insert(given).inserted {
                return given
            }
            let made = makeID(prefix)
            seen.insert(made)
            return made
        }
        return try questions.enumerated().map { index, question in
            let text = try ChannelPlaceBody.text(question.text, field: "question \(index + 1)", max: 500, required: true)
            guard (2...Self.maxAnswers).contains(question.answers.count) else {
                throw APIError.badRequest("Question \(index + 1) needs 2 to \(Self.maxAnswers) answers.")
            }
            guard question.answers.contains(where: \.correct) else {
                throw APIError.badRequest("Question \(index + 1) needs a right answer.")
            }
            let answers = try question.answers.map { answer in
                ChannelQuizAnswer(
                    id: id(answer.id, prefix: "qa"),
                    text: try ChannelPlaceBody.text(
                        answer.text, field: "answer of question \(index + 1)", max: 300, required: true),
                    correct: answer.correct)
            }
            return ChannelQuizQuestion(id: id(question.id, prefix: "qq"), text: text, answers: answers)
        }
    }
}

/// `POST /channel/quizzes/{id}/attempts` (PodiumWire's `ChannelQuizSubmission`).
typealias ChannelQuizAttemptBody = ChannelQuizSubmission
