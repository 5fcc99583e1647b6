import Foundation

/// The audience's questions and their upvotes. The mode (public, approval) is in the snapshot.
public struct QuestionBoard: Sendable, Equatable {
    /// Questions in order of asking.
    public private(set) var all: [AudienceQuestion] = []
    /// Who upvoted each question (by question id).
    public private(set) var votes: [String: Set<String>] = [:]
    private var positions: [String: Int] = [:]

    public init() {}

    public func question(_ id: String) -> AudienceQuestion? { positions[id].map { all[$0] } }

    mutating func add(_ question: AudienceQuestion) {
        guard positions[question.id] == nil else { return }
        positions[question.id] = all.count
        all.append(question)
    }

    mutating func update(_ id: String, _ change: (inout AudienceQuestion) -> Void) {
        if let index = positions[id] { change(&all[index]) }
    }

    mutating func vote(_ questionId: String, viewer: String, up: Bool) {
        if up {
            votes[questionId, default: []].insert(viewer)
        } else {
            votes[questionId]?.remove(viewer)
        }
    }

    /// The questions a viewer upvoted, sorted.
    public func votes(of viewer: String) -> [String] {
        votes.filter { $0.value.contains(viewer) }.map(\.key).sorted()
    }

    /// The public list under a mode: most votes first, then oldest first.
    public func publicList(_ mode: QuestionMode) -> [AudienceQuestion] {
        all.enumerated()
            .filter { mode.shows($0.element) }
            .sorted { lhs, rhs in
                let (left, right) = (votes[lhs.element.id]?.count ?? 0, votes[rhs.element.id]?.count ?? 0)
                return left != right ? left > right : lhs.offset < rhs.offset
            }
            .map(\.element)
    }
}

extension SessionState {
    /// Decides the question commands: asking, marking, approving, voting, and the mode.
    func decideQuestions(_ command: SessionCommand, by actor: Actor, at time: Double) throws(SessionError) -> FeatureDecision {
        switch command {
        case .setQuestionMode(let mode):
            guard mode != snapshot.questionMode else { return .nothing }
            // Approval switched on: a question on screen that nobody approved comes off it.
            let unapproved = spotlitQuestion.map { mode.needsApproval && !$0.approved } ?? false
            return FeatureDecision(changes: [.questionMode(mode)] + (unapproved ? [.spotlight(nil)] : []))
        case .ask(let id, let text, let page, let anonymous):
            guard actor.role == .viewer, let viewer = actor.viewerId else { throw .forbidden }
            guard !snapshot.ended else { throw .ended }
            if questions.question(id) != nil { return .nothing }
            let trimmed = String(text.trimmingWhitespace)
            guard !trimmed.isEmpty, trimmed.count <= AudienceQuestion.maxLength else { throw .invalidQuestion }
            // A room with nothing on the stage has no slide to ask about: the question is about none.
            let page = snapshot.room != nil && snapshot.room?.deck == nil ? nil : page
            if let page { guard isPage(page) else { throw .invalidPage } }
            let question = AudienceQuestion(
                id: id, text: trimmed, page: page, anonymous: anonymous, viewerId: viewer,
                name: viewers.entry(viewer)?.displayName, askedAt: Date(timeIntervalSince1970: time),
                presenter: turns.presenter(at: time))
            return FeatureDecision(records: [.question(question)], actions: [.refreshQuestions, .refreshViewerList])
        case .markQuestion(let questionId, let answered):
            guard let question = questions.question(questionId) else { throw .questionNotFound }
            guard question.answered != answered else { return .nothing }
            return FeatureDecision(records: [.questionAnswered(questionId: questionId, answered)], actions: [.refreshQuestions])
        case .approveQuestion(let questionId, let approved):
            guard let question = questions.question(questionId) else { throw .questionNotFound }
            guard question.approved != approved else { return .nothing }
            // Withdrawn while on screen (and approval is needed): it comes off the screen too.
            let offScreen = !approved && snapshot.questionMode.needsApproval && spotlitQuestion?.id == questionId
            return FeatureDecision(
                changes: offScreen ? [.spotlight(nil)] : [],
                records: [.questionApproved(questionId: questionId, approved)], actions: [.refreshQuestions])
        case .vote(let questionId, let up):
            guard actor.role == .viewer, let viewer = actor.viewerId else { throw .forbidden }
            guard let question = questions.question(questionId), snapshot.questionMode.shows(question) else {
                throw .questionNotFound
            }
            let voted = questions.votes[questionId]?.contains(viewer) ?? false
            guard voted != up else { return .nothing }
            return FeatureDecision(
                records: [.vote(questionId: questionId, viewerId: viewer, up: up)],
                actions: [.tellVotes(viewerId: viewer), .refreshQuestions])
        default:
            return .nothing
        }
    }

    /// The question on screen, if one is.
    var spotlitQuestion: AudienceQuestion? {
        guard snapshot.spotlight?.kind == .question, let id = snapshot.spotlight?.questionId else { return nil }
        return questions.question(id)
    }

    /// The public list as the session's mode shows it.
    public var publicQuestions: [AudienceQuestion] { questions.publicList(snapshot.questionMode) }
}
