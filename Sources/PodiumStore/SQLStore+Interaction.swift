import Foundation
import PodiumCore
import SQLKit

extension SQLStore: InteractionStore {
    /// Writes one audience record inside the transaction of ``append(sessionId:_:at:)``.
    static func store(_ record: AudienceRecord, sessionId: String, at date: Date, on db: any SQLDatabase) async throws {
        switch record {
        case .answer(let pollId, let viewerId, let answer):
            let body = String(decoding: try JSONEncoder().encode(answer), as: UTF8.self)
            try await db.raw(
                """
                INSERT INTO poll_answers (session_id, poll_id, viewer_id, answer, first_answered_at, updated_at)
                VALUES (\(bind: sessionId), \(bind: pollId), \(bind: viewerId), \(bind: body), \(bind: date), \(bind: date))
                ON CONFLICT (session_id, poll_id, viewer_id) DO UPDATE SET answer = excluded.answer, updated_at = excluded.updated_at
                """
            ).run()
        case .question(let question):
            try await db.raw(
                """
                INSERT INTO audience_questions (session_id, id, text, page, anonymous, viewer_id, name, asked_at, answered)
                VALUES (\(bind: sessionId), \(bind: question.id), \(bind: question.text), \(bind: question.page),
                        \(bind: question.anonymous), \(bind: question.viewerId), \(bind: question.name),
                        \(bind: question.askedAt), \(bind: question.answered))
                ON CONFLICT (session_id, id) DO NOTHING
                """
            ).run()
        case .questionAnswered(let questionId, let answered):
            try await db.update("audience_questions").set("answered", to: answered)
                .where("session_id", .equal, sessionId).where("id", .equal, questionId).run()
        case .questionApproved(let questionId, let approved):
            try await db.update("audience_questions").set("approved", to: approved)
                .where("session_id", .equal, sessionId).where("id", .equal, questionId).run()
        case .vote(let questionId, let viewerId, let up):
            if up {
                try await db.raw(
                    """
                    INSERT INTO question_votes (session_id, question_id, viewer_id)
                    VALUES (\(bind: sessionId), \(bind: questionId), \(bind: viewerId)) ON CONFLICT DO NOTHING
                    """
                ).run()
            } else {
                try await db.delete(from: "question_votes").where("session_id", .equal, sessionId)
                    .where("question_id", .equal, questionId).where("viewer_id", .equal, viewerId).run()
            }
        }
    }

    public func answers(sessionId: String) async throws -> [(pollId: Int, viewerId: String, answer: PollAnswer, at: Date)] {
        struct Row: Decodable {
            let pollId: Int
            let viewerId: String
            let answer: String
            let updatedAt: Date
        }
        let rows = try await serial { db in
            try await db.select().columns("poll_id", "viewer_id", "answer", "updated_at").from("poll_answers")
                .where("session_id", .equal, sessionId).orderBy("poll_id").orderBy("first_answered_at")
                .all(decoding: Row.self, with: Self.decoding)
        }
        let decoder = JSONDecoder()
        return try rows.map {
            ($0.pollId, $0.viewerId, try decoder.decode(PollAnswer.self, from: Data($0.answer.utf8)), $0.updatedAt)
        }
    }

    public func questions(sessionId: String) async throws -> [AudienceQuestion] {
        try await serial { db in
            try await db.select().columns(
                "id", "text", "page", "anonymous", "viewer_id", "name", "asked_at", "answered", "approved"
            )
            .from("audience_questions").where("session_id", .equal, sessionId).orderBy("asked_at")
            .all(decoding: AudienceQuestion.self, with: Self.decoding)
        }
    }

    public func votes(sessionId: String) async throws -> [(questionId: String, viewerId: String)] {
        struct Row: Decodable {
            let questionId: String
            let viewerId: String
        }
        return try await serial { db in
            try await db.select().columns("question_id", "viewer_id").from("question_votes")
                .where("session_id", .equal, sessionId).all(decoding: Row.self, with: Self.decoding)
        }.map { ($0.questionId, $0.viewerId) }
    }

    public func saveViewer(sessionId: String, _ viewer: ViewerEntry, at date: Date) async throws -> ViewerEntry {
        try await retryingTakenNumbers {
            try await self.transaction { db in
                let stored = try await Self.upsertViewer(viewer, sessionId: sessionId, at: date, on: db)
                try await Self.logAudience([AudienceLogEntry(change: .viewer(stored))], sessionId: sessionId, at: date, on: db)
                return stored
            }
        }
    }

    /// Stores a viewer: a newcomer takes the session's next number, read and taken in one
    /// statement; a viewer the store has already keeps their number, and their name unless a new
    /// one is given.
    static func upsertViewer(_ viewer: ViewerEntry, sessionId: String, at date: Date, on db: any SQLDatabase)
        async throws -> ViewerEntry
    {
        struct Row: Decodable {
            let viewerId: String
            let number: Int
            let name: String?
        }
        let stored = try await db.raw(
            """
            INSERT INTO session_viewers (session_id, viewer_id, number, name, first_seen)
            SELECT \(bind: sessionId), \(bind: viewer.id), COALESCE(MAX(number), 0) + 1, \(bind: viewer.name),
              \(bind: date)
            FROM session_viewers WHERE session_id = \(bind: sessionId)
            ON CONFLICT (session_id, viewer_id) DO UPDATE SET name = COALESCE(excluded.name, session_viewers.name)
            RETURNING viewer_id, number, name
            """
        ).first(decoding: Row.self, with: Self.decoding)
        guard let stored else { throw NothingReturned() }
        return ViewerEntry(id: stored.viewerId, number: stored.number, name: stored.name)
    }

    /// Two nodes taking the same viewer number at once break the unique (session, number)
    /// index: the loser tries again and takes the next.
    func retryingTakenNumbers<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await body()
            } catch  where attempt < 100 && Self.isUniqueViolation(error) {
                continue
            }
        }
    }

    public func viewers(sessionId: String) async throws -> [ViewerEntry] {
        struct Row: Decodable {
            let viewerId: String
            let number: Int
            let name: String?
        }
        return try await serial { db in
            try await db.select().columns("viewer_id", "number", "name").from("session_viewers")
                .where("session_id", .equal, sessionId).orderBy("number").all(decoding: Row.self, with: Self.decoding)
        }.map { ViewerEntry(id: $0.viewerId, number: $0.number, name: $0.name) }
    }
}

/// A statement that always returns a row returned none.
struct NothingReturned: Error, CustomStringConvertible {
    var description: String { "the database returned no row" }
}
