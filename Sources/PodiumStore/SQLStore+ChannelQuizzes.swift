import Foundation
import SQLKit

extension SQLStore: ChannelQuizStore {
    public func insertQuiz(_ quiz: ChannelQuizRecord, questions: [ChannelQuizQuestion]) async throws {
        try await transaction { db in
            try await db.insert(into: "channel_quizzes")
                .model(quiz, keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil).run()
            try await Self.insertQuestions(questions, quizId: quiz.id, on: db)
        }
    }

    public func quiz(id: String) async throws -> ChannelQuizRecord? {
        try await serial { db in
            try await db.select().column("*").from("channel_quizzes").where("id", .equal, id)
                .first(decoding: ChannelQuizRecord.self, with: Self.decoding)
        }
    }

    public func quizzes(_ filter: ChannelItemFilter) async throws -> [ChannelQuizRecord] {
        try await serial { db in
            var query = Self.archived(db.select().column("*").from("channel_quizzes"), filter == .archived)
            if filter == .published { query = query.where("published_at", .isNot, SQLLiteral.null) }
            return try await query.orderBy("position").orderBy("name").orderBy("id")
                .all(decoding: ChannelQuizRecord.self, with: Self.decoding)
        }
    }

    public func updateQuiz(_ quiz: ChannelQuizRecord) async throws {
        try await serial { db in
            try await db.update("channel_quizzes")
                .set("name", to: quiz.name)
                .set("description", to: quiz.description)
                .set("position", to: quiz.position)
                .set("published_at", to: Self.optional(quiz.publishedAt))
                .set("updated_at", to: quiz.updatedAt)
                .set("archived_at", to: Self.optional(quiz.archivedAt))
                .where("id", .equal, quiz.id)
                .run()
        }
    }

    public func replaceQuizQuestions(quizId: String, _ questions: [ChannelQuizQuestion], at date: Date) async throws {
        try await transaction { db in
            // Answers go with their questions (ON DELETE CASCADE).
            try await db.delete(from: "channel_quiz_questions").where("quiz_id", .equal, quizId).run()
            try await Self.insertQuestions(questions, quizId: quizId, on: db)
            try await db.update("channel_quizzes").set("updated_at", to: date).where("id", .equal, quizId).run()
        }
    }

    private static func insertQuestions(_ questions: [ChannelQuizQuestion], quizId: String, on db: any SQLDatabase)
        async throws
    {
        for (position, question) in questions.enumerated() {
            try await db.insert(into: "channel_quiz_questions").columns("id", "quiz_id", "position", "text")
                .values(SQLBind(question.id), SQLBind(quizId), SQLBind(position), SQLBind(question.text)).run()
            guard !question.answers.isEmpty else { continue }
            var insert = db.insert(into: "channel_quiz_answers").columns(
                "id", "question_id", "position", "text", "correct")
            for (index, answer) in question.answers.enumerated() {
                insert = insert.values(
                    SQLBind(answer.id), SQLBind(question.id), SQLBind(index), SQLBind(answer.text), SQLBind(answer.correct))
            }
            try await insert.run()
        }
    }

    public func quizQuestions(quizId: String) async throws -> [ChannelQuizQuestion] {
        try await serial { db in
            struct QuestionRow: Decodable {
                let id: String
                let text: String
            }
            struct AnswerRow: Decodable {
                let id: String
                let questionId: String
                let text: String
                let correct: Bool
            }
            let questions = try await db.select().columns("id", "text").from("channel_quiz_questions")
                .where("quiz_id", .equal, quizId).orderBy("position")
                .all(decoding: QuestionRow.self, with: Self.decoding)
            let answers = try await db.select()
                .columns(
                    SQLColumn("id", table: "a"), SQLColumn("question_id", table: "a"), SQLColumn("text", table: "a"),
                    SQLColumn("correct", table: "a")
                )
                .from(SQLAlias(SQLIdentifier("channel_quiz_answers"), as: SQLIdentifier("a")))
                .join(
                    SQLAlias(SQLIdentifier("channel_quiz_questions"), as: SQLIdentifier("q")),
                    on: SQLColumn("question_id", table: "a"), .equal, SQLColumn("id", table: "q")
                )
                .where(SQLColumn("quiz_id", table: "q"), .equal, SQLBind(quizId))
                .orderBy(SQLColumn("position", table: "a"))
                .all(decoding: AnswerRow.self, with: Self.decoding)
            let byQuestion = Dictionary(grouping: answers, by: \.questionId)
            return questions.map { question in
                ChannelQuizQuestion(
                    id: question.id, text: question.text,
                    answers: (byQuestion[question.id] ?? []).map {
                        ChannelQuizAnswer(id: $0.id, text: $0.text, correct: $0.correct)
                    })
            }
        }
    }

    public func quizQuestionCounts() async throws -> [String: Int] {
        try await serial { db in
            struct Row: Decodable {
                let quizId: String
                let count: Int
            }
            let rows = try await db.raw(
                "SELECT quiz_id, COUNT(*) AS count FROM channel_quiz_questions GROUP BY quiz_id"
            ).all(decoding: Row.self, with: Self.decoding)
            return Dictionary(uniqueKeysWithValues: rows.map { ($0.quizId, $0.count) })
        }
    }

    public func deleteQuiz(id: String) async throws {
        try await serial { db in try await db.delete(from: "channel_quizzes").where("id", .equal, id).run() }
    }

    public func reorderQuizzes(_ ids: [String], at date: Date) async throws {
        try await transaction { db in
            for (position, id) in ids.enumerated() {
                try await db.update("channel_quizzes").set("position", to: position).set("updated_at", to: date)
                    .where("id", .equal, id).run()
            }
        }
    }

    public func quizzesChangedAt() async throws -> Date? {
        try await serial { db in
            struct Row: Decodable { let changed: Date? }
            return try await db.raw("SELECT MAX(updated_at) AS changed FROM channel_quizzes").first(decoding: Row.self)?.changed
        }
    }

    public func recordQuizAttempt(quizId: String, viewerKey: String, score: Int, total: Int, at date: Date) async throws
        -> ChannelQuizResultRecord
    {
        try await transaction { db in
            // One statement on both databases, so two attempts at once cannot lose the better one.
            try await db.raw(
                """
                INSERT INTO channel_quiz_results (quiz_id, viewer_key, score, total, best_score, taken_at, best_at)
                VALUES (\(bind: quizId), \(bind: viewerKey), \(bind: score), \(bind: total), \(bind: score), \(bind: date), \(bind: date))
                ON CONFLICT (quiz_id, viewer_key) DO UPDATE SET
                  score = excluded.score, total = excluded.total, taken_at = excluded.taken_at,
                  best_at = CASE WHEN excluded.score > channel_quiz_results.best_score
                    THEN excluded.taken_at ELSE channel_quiz_results.best_at END,
                  best_score = CASE WHEN excluded.score > channel_quiz_results.best_score
                    THEN excluded.score ELSE channel_quiz_results.best_score END
                """
            ).run()
            return try await db.select().column("*").from("channel_quiz_results")
                .where("quiz_id", .equal, quizId).where("viewer_key", .equal, viewerKey)
                .all(decoding: ChannelQuizResultRecord.self, with: Self.decoding)[0]
        }
    }

    public func quizResults(viewerKey: String) async throws -> [String: ChannelQuizResultRecord] {
        try await serial { db in
            let rows = try await db.select().column("*").from("channel_quiz_results").where("viewer_key", .equal, viewerKey)
                .all(decoding: ChannelQuizResultRecord.self, with: Self.decoding)
            return Dictionary(uniqueKeysWithValues: rows.map { ($0.quizId, $0) })
        }
    }
}
