import Foundation
import Hummingbird
import PodiumCore
import PodiumStore
import PodiumWire

/// The channel's quizzes: the list (newest first, each with this person's best score), one quiz
/// to take (never saying which answer is right), attempts scored by the server; non-members take
/// only the newest quiz. Admin writes on the same paths, deleting by archiving.
struct ChannelQuizController {
    let store: any ChannelQuizStore
    let channel: ChannelConfiguration
    let now: @Sendable () -> Date

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("quizzes", use: list)
        group.post("quizzes", use: create)
        group.post("quizzes/order", use: reorder)
        group.get("quizzes/:id", use: show)
        group.patch("quizzes/:id", use: update)
        archive.addRoutes(to: group, path: "quizzes")
        group.post("quizzes/:id/attempts", use: attempt)
    }

    /// `GET /channel/quizzes`: published ones newest first; admins `?status=all|archived` (by position).
    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireChannelViewer()
        let filter = try ChannelStatusQuery.filter(request, context: context)
        let page = try ChannelAPI.page(request)
        var quizzes = try await store.quizzes(filter)
        if filter == .published { quizzes = Self.newestFirst(quizzes) }
        let openId = try await openToEveryone()
        let counts = try await store.quizQuestionCounts()
        let results = try await store.quizResults(viewerKey: viewer.key)
        let body = quizzes.dropFirst(page.offset).prefix(page.limit).map { quiz in
            ChannelQuizSummary(
                quiz, questionCount: counts[quiz.id] ?? 0, open: viewer.isMember || quiz.id == openId,
                result: results[quiz.id])
        }
        let changed = (quizzes.map(\.updatedAt) + results.values.map(\.takenAt) + [try await lastChange()].compactMap { $0 })
            .max()
        return try ChannelAPI.respond(Array(body), lastModified: changed, to: request, context: context, cache: .personal)
    }

    /// `GET /channel/quizzes/{id}`: the quiz and its questions. A non-member asking for an older
    /// quiz gets the membership message (`quiz_archive`).
    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireChannelViewer()
        let filter = try ChannelStatusQuery.filter(request, context: context)
        let quiz = try await visibleQuiz(context, filter: filter)
        let open = try await mayTake(quiz, viewer: viewer)
        if filter == .published, !open { throw ChannelLimitError(.quizArchive, configuration: channel) }
        let questions = try await store.quizQuestions(quizId: quiz.id)
        let result = try await store.quizResults(viewerKey: viewer.key)[quiz.id]
        let summary = ChannelQuizSummary(quiz, questionCount: questions.count, open: open, result: result)
        return try ChannelAPI.respond(
            ChannelQuizResponse(summary, questions: questions, revealing: filter != .published),
            lastModified: max(quiz.updatedAt, result?.takenAt ?? .distantPast), to: request, context: context,
            cache: .personal)
    }

    /// `POST /channel/quizzes/{id}/attempts {answers:[{questionId, answerId}]}`: scored here.
    @Sendable func attempt(_ request: Request, context: AppRequestContext) async throws -> ChannelQuizAttemptResponse {
        let viewer = try context.requireChannelViewer()
        let quiz = try await visibleQuiz(context, filter: .published)
        guard try await mayTake(quiz, viewer: viewer) else {
            throw ChannelLimitError(.quizArchive, configuration: channel)
        }
        let body = try await request.decode(as: ChannelQuizAttemptBody.self, context: context)
        guard body.answers.count <= ChannelQuizBody.maxQuestions else { throw APIError.badRequest("Too many answers.") }
        let questions = try await store.quizQuestions(quizId: quiz.id)
        guard !questions.isEmpty else { throw APIError.badRequest("This quiz has no questions yet.") }
        let outcome: ChannelQuizScoring.Outcome
        do {
            outcome = try ChannelQuizScoring.score(
                questions.map {
                    ChannelQuizScoring.Question(
                        id: $0.id, answerIds: $0.answers.map(\.id),
                        correctAnswerIds: Set($0.answers.filter(\.correct).map(\.id)))
                },
                choices: body.answers.map { ChannelQuizScoring.Choice(questionId: $0.questionId, answerId: $0.answerId) })
        } catch {
            throw APIError.badRequest(error.description)
        }
        let stored = try await store.recordQuizAttempt(
            quizId: quiz.id, viewerKey: viewer.key, score: outcome.score, total: outcome.total, at: now())
        let right = Dictionary(uniqueKeysWithValues: questions.map { ($0.id, $0.answers.filter(\.correct).map(\.id)) })
        return ChannelQuizAttemptResponse(
            score: outcome.score, total: outcome.total, bestScore: stored.bestScore,
            questions: outcome.questions.map {
                .init(questionId: $0.id, chosenAnswerId: $0.chosen, correct: $0.correct, correctAnswerIds: right[$0.id] ?? [])
            })
    }

    /// Members take every published quiz; others the newest only.
    private func mayTake(_ quiz: ChannelQuizRecord, viewer: ChannelViewer) async throws -> Bool {
        if viewer.isMember { return true }
        return try await openToEveryone() == quiz.id
    }

    private func openToEveryone() async throws -> String? {
        ChannelQuizAccess.openToEveryone(
            try await store.quizzes(.published).compactMap { quiz in quiz.publishedAt.map { (quiz.id, $0) } })
    }

    static func newestFirst(_ quizzes: [ChannelQuizRecord]) -> [ChannelQuizRecord] {
        quizzes.sorted {
            ($0.publishedAt ?? .distantPast, $0.id) > ($1.publishedAt ?? .distantPast, $1.id)
        }
    }

    private func visibleQuiz(_ context: AppRequestContext, filter: ChannelItemFilter) async throws -> ChannelQuizRecord {
        let id = try context.parameters.require("id")
        guard let quiz = try await store.quiz(id: id) else { throw APIError.notFound("quiz") }
        let shown =
            switch filter {
            case .published: quiz.publishedAt != nil && quiz.archivedAt == nil
            case .all: quiz.archivedAt == nil
            case .archived: quiz.archivedAt != nil
            }
        guard shown else { throw APIError.notFound("quiz") }
        return quiz
    }

    /// The newest change to any quiz, archived ones included (archiving changes the list).
    private func lastChange() async throws -> Date? {
        try await store.quizzesChangedAt()
    }

    // MARK: - Admin writes

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<
        ChannelQuizResponse
    > {
        try ChannelStatusQuery.requireAdmin(context)
        let body = try await request.decode(as: ChannelQuizBody.self, context: context)
        let date = now()
        let position = (try await store.quizzes(.all).map(\.position).max() ?? -1) + 1
        var quiz = ChannelQuizRecord(id: IDs.make("qz"), name: "", position: position, updatedAt: date)
        try apply(body, to: &quiz, now: date)
        guard !quiz.name.isEmpty else { throw APIError.badRequest("A quiz needs a name.") }
        let questions = try body.checkedQuestions(taken: try await takenIds(exceptQuiz: nil), makeID: { IDs.make($0) }) ?? []
        try await store.insertQuiz(quiz, questions: questions)
        let summary = ChannelQuizSummary(quiz, questionCount: questions.count, open: true, result: nil)
        return EditedResponse(
            status: .created, response: ChannelQuizResponse(summary, questions: questions, revealing: true))
    }

    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> ChannelQuizResponse {
        try ChannelStatusQuery.requireAdmin(context)
        var quiz = try await existingQuiz(context)
        let body = try await request.decode(as: ChannelQuizBody.self, context: context)
        let date = now()
        try apply(body, to: &quiz, now: date)
        quiz.updatedAt = date
        if let questions = try body.checkedQuestions(taken: try await takenIds(exceptQuiz: quiz.id), makeID: { IDs.make($0) }) {
            try await store.replaceQuizQuestions(quizId: quiz.id, questions, at: date)
        }
        try await store.updateQuiz(quiz)
        let questions = try await store.quizQuestions(quizId: quiz.id)
        let summary = ChannelQuizSummary(quiz, questionCount: questions.count, open: true, result: nil)
        return ChannelQuizResponse(summary, questions: questions, revealing: true)
    }

    private func apply(_ body: ChannelQuizBody, to quiz: inout ChannelQuizRecord, now date: Date) throws {
        if let name = body.name { quiz.name = try ChannelPlaceBody.text(name, field: "name", max: 200, required: true) }
        if let description = body.description {
            quiz.description = try ChannelPlaceBody.text(description, field: "description", max: 2000)
        }
        if let published = body.published { quiz.publishedAt = published ? (quiz.publishedAt ?? date) : nil }
    }

    /// Question and answer ids other quizzes use (ids are unique across quizzes).
    private func takenIds(exceptQuiz: String?) async throws -> Set<String> {
        var taken = Set<String>()
        for quiz in try await store.quizzes(.all) + store.quizzes(.archived) where quiz.id != exceptQuiz {
            for question in try await store.quizQuestions(quizId: quiz.id) {
                taken.insert(question.id)
                taken.formUnion(question.answers.map(\.id))
            }
        }
        return taken
    }

    /// The quizzes' archive; deleting for ever also deletes the quiz's scores.
    var archive: ArchivableRoutes<ChannelQuizRecord> {
        ArchivableRoutes(
            what: "quiz", now: now, find: { [store] in try await store.quiz(id: $0) },
            save: { [store] in try await store.updateQuiz($0) },
            deleteForEver: { [store] in try await store.deleteQuiz(id: $0.id) },
            restored: { [store] quiz, request, context in
                let questions = try await store.quizQuestions(quizId: quiz.id)
                let summary = ChannelQuizSummary(quiz, questionCount: questions.count, open: true, result: nil)
                return try ChannelQuizResponse(summary, questions: questions, revealing: true)
                    .response(from: request, context: context)
            })
    }

    @Sendable func reorder(_ request: Request, context: AppRequestContext) async throws -> Response {
        try ChannelStatusQuery.requireAdmin(context)
        let body = try await request.decode(as: ChannelOrderBody.self, context: context)
        let known = Set(try await store.quizzes(.all).map(\.id))
        try await store.reorderQuizzes(try body.checked(against: known), at: now())
        return Response(status: .noContent)
    }

    private func existingQuiz(_ context: AppRequestContext) async throws -> ChannelQuizRecord {
        guard let quiz = try await store.quiz(id: try context.parameters.require("id")) else {
            throw APIError.notFound("quiz")
        }
        return quiz
    }
}
