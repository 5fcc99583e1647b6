import Foundation
import Hummingbird
import PodiumCore
import PodiumStore
import PodiumWire

extension ChannelQuizSummary {
    /// A quiz in the list for one person: `open` whether they may take it, `result` their last
    /// and best score (nil before a first attempt).
    init(_ quiz: ChannelQuizRecord, questionCount: Int, open: Bool, result: ChannelQuizResultRecord?) {
        self.init(
            id: quiz.id, name: quiz.name, description: quiz.description, questionCount: questionCount,
            position: quiz.position, publishedAt: quiz.publishedAt, updatedAt: quiz.updatedAt, archivedAt: quiz.archivedAt,
            open: open, membersOnly: !open,
            result: result.map {
                Result(score: $0.score, bestScore: $0.bestScore, total: $0.total, takenAt: $0.takenAt, bestAt: $0.bestAt)
            })
    }
}

/// One quiz with its questions (PodiumWire's `ChannelQuiz`). Answers say whether they are right
/// only to admins editing it.
typealias ChannelQuizResponse = ChannelQuiz

extension ChannelQuiz {
    init(_ summary: ChannelQuizSummary, questions: [ChannelQuizQuestion], revealing: Bool) {
        self.init(
            quiz: summary,
            questions: questions.map { question in
                Question(
                    id: question.id, text: question.text,
                    answers: question.answers.map { Answer(id: $0.id, text: $0.text, correct: revealing ? $0.correct : nil) }
                )
            })
    }
}

/// The answer to an attempt (PodiumWire's `ChannelQuizScore`): the score, the best so far, and
/// per question what was right.
typealias ChannelQuizAttemptResponse = ChannelQuizScore

extension ChannelQuiz: ResponseEncodable {}
extension ChannelQuizScore: ResponseEncodable {}
