import Foundation
import Hummingbird
import PodiumCore
import PodiumStore
import PodiumWire

/// A deck's question bank: `GET/POST /api/v1/decks/{id}/questions`, `PATCH/DELETE …/{questionId}`.
struct QuestionBankController {
    let store: any QuestionBankStore
    let deckStore: any DeckStore
    let now: @Sendable () -> Date
    /// Lets a session's co-hosts keep the bank of the deck they present, as its owner does: a
    /// course's teachers prepare and ask its polls together (nil: owners only). The deck's other
    /// changes stay its owner's.
    var hosts: SessionHosts? = nil

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("decks/:id/questions", use: list)
        group.post("decks/:id/questions", use: create)
        group.patch("decks/:id/questions/:questionId", use: update)
        group.delete("decks/:id/questions/:questionId", use: delete)
    }

    /// A bank question as the API shows it (PodiumWire's `QuestionBankItem`; `BankQuestion` here
    /// is PodiumStore's record).
    typealias QuestionResponse = QuestionBankItem

    /// `{"poll": {...}, "position"?: n}`
    struct QuestionBody: Decodable {
        let poll: Poll?
        let position: Int?
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> [QuestionResponse] {
        let deck = try await presentedDeck(context)
        return try await store.bankQuestions(deckId: deck.id).map(QuestionResponse.init)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<QuestionResponse> {
        let deck = try await presentedDeck(context)
        let body = try await request.decode(as: QuestionBody.self, context: context)
        guard var poll = body.poll else { throw APIError.badRequest("Send the question as poll.") }
        poll.id = 0
        guard poll.isValid else { throw Self.invalid }
        let existing = try await store.bankQuestions(deckId: deck.id)
        let question = BankQuestion(
            id: IDs.make("q"), deckId: deck.id, position: body.position ?? ((existing.map(\.position).max() ?? 0) + 1),
            poll: poll,
            createdAt: now())
        try await store.saveBankQuestion(question)
        return EditedResponse(status: .created, response: QuestionResponse(question))
    }

    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> QuestionResponse {
        var question = try await ownedQuestion(context)
        let body = try await request.decode(as: QuestionBody.self, context: context)
        if var poll = body.poll {
            poll.id = 0
            guard poll.isValid else { throw Self.invalid }
            question.poll = poll
        }
        if let position = body.position { question.position = position }
        try await store.saveBankQuestion(question)
        return QuestionResponse(question)
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let question = try await ownedQuestion(context)
        try await store.deleteBankQuestion(id: question.id)
        return .noContent
    }

    static let invalid = APIError(
        .badRequest, code: "invalid_poll",
        message: "A question needs text and, for multiple choice, 2 to 8 choices with valid right answers.")

    /// The deck named in the path, if the caller owns it, is an admin or co-hosts one of its live
    /// sessions; else 404, as for a deck that does not exist.
    private func presentedDeck(_ context: AppRequestContext) async throws -> DeckRecord {
        let user = try context.requireUser()
        guard let deck = try await deckStore.deck(id: try context.parameters.require("id")),
            try await hosts?.mayPresent(deck, user: user) ?? (deck.ownerId == user.id || user.role == .admin)
        else { throw APIError.notFound("deck") }
        return deck
    }

    private func ownedQuestion(_ context: AppRequestContext) async throws -> BankQuestion {
        let deck = try await presentedDeck(context)
        let id = try context.parameters.require("questionId")
        guard let question = try await store.bankQuestions(deckId: deck.id).first(where: { $0.id == id }) else {
            throw APIError.notFound("question")
        }
        return question
    }
}

extension QuestionBankItem: ResponseEncodable {
    init(_ question: BankQuestion) {
        self.init(id: question.id, position: question.position, poll: question.poll)
    }
}
