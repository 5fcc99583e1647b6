import Foundation
import PodiumCore
import SQLKit

extension SQLStore: QuestionBankStore {
    public func bankQuestions(deckId: String) async throws -> [BankQuestion] {
        struct Row: Decodable {
            let id: String
            let deckId: String
            let position: Int
            let poll: String
            let createdAt: Date
        }
        let rows = try await serial { db in
            try await db.select().column("*").from("deck_questions").where("deck_id", .equal, deckId)
                .orderBy("position").orderBy("created_at").all(decoding: Row.self, with: Self.decoding)
        }
        let decoder = JSONDecoder()
        return try rows.map {
            BankQuestion(
                id: $0.id, deckId: $0.deckId, position: $0.position,
                poll: try decoder.decode(Poll.self, from: Data($0.poll.utf8)),
                createdAt: $0.createdAt)
        }
    }

    public func saveBankQuestion(_ question: BankQuestion) async throws {
        let poll = String(decoding: try JSONEncoder().encode(question.poll), as: UTF8.self)
        try await serial { db in
            try await db.raw(
                """
                INSERT INTO deck_questions (id, deck_id, position, poll, created_at)
                VALUES (\(bind: question.id), \(bind: question.deckId), \(bind: question.position), \(bind: poll), \(bind: question.createdAt))
                ON CONFLICT (id) DO UPDATE SET position = excluded.position, poll = excluded.poll
                """
            ).run()
        }
    }

    public func deleteBankQuestion(id: String) async throws {
        try await serial { db in
            try await db.delete(from: "deck_questions").where("id", .equal, id).run()
        }
    }
}
