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

/// The audience's questions: asking, voting, and what the host does with them.
public enum QuestionCommand: Sendable, Equatable {
    /// Whether questions are public, and whether they need approval first.
    case setMode(QuestionMode)
    /// A viewer's question for the host; its id is the command's id.
    case ask(id: String, text: String, page: Int?, anonymous: Bool)
    /// The host marks a question answered or not.
    case mark(questionId: String, answered: Bool)
    /// The host approves a question for the public list, or withdraws it.
    case approve(questionId: String, approved: Bool)
    /// A viewer's upvote of a public question, or its withdrawal.
    case vote(questionId: String, up: Bool)
}

extension QuestionCommand: FeatureCommand {
    public static let wireTypes = ["setQuestionMode", "ask", "markQuestion", "approveQuestion", "vote"]

    enum Keys: String, CodingKey { case type, questions, text, page, anonymous, questionId, answered, approved, up }

    public init(wireType type: String, id: String, from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        switch type {
        case "setQuestionMode": self = .setMode(try c.decode(QuestionMode.self, forKey: .questions))
        case "ask":
            self = .ask(
                id: id, text: try c.decode(String.self, forKey: .text), page: try c.decodeIfPresent(Int.self, forKey: .page),
                anonymous: try c.decodeIfPresent(Bool.self, forKey: .anonymous) ?? false)
        case "markQuestion":
            self = .mark(
                questionId: try c.decode(String.self, forKey: .questionId),
                answered: try c.decodeIfPresent(Bool.self, forKey: .answered) ?? true)
        case "approveQuestion":
            self = .approve(
                questionId: try c.decode(String.self, forKey: .questionId),
                approved: try c.decodeIfPresent(Bool.self, forKey: .approved) ?? true)
        default:
            self = .vote(
                questionId: try c.decode(String.self, forKey: .questionId),
                up: try c.decodeIfPresent(Bool.self, forKey: .up) ?? true)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        switch self {
        case .setMode(let mode):
            try c.encode("setQuestionMode", forKey: .type)
            try c.encode(mode, forKey: .questions)
        case .ask(_, let text, let page, let anonymous):
            try c.encode("ask", forKey: .type)
            try c.encode(text, forKey: .text)
            try c.encodeIfPresent(page, forKey: .page)
            try c.encode(anonymous, forKey: .anonymous)
        case .mark(let questionId, let answered):
            try c.encode("markQuestion", forKey: .type)
            try c.encode(questionId, forKey: .questionId)
            try c.encode(answered, forKey: .answered)
        case .approve(let questionId, let approved):
            try c.encode("approveQuestion", forKey: .type)
            try c.encode(questionId, forKey: .questionId)
            try c.encode(approved, forKey: .approved)
        case .vote(let questionId, let up):
            try c.encode("vote", forKey: .type)
            try c.encode(questionId, forKey: .questionId)
            try c.encode(up, forKey: .up)
        }
    }

    public var sessionCommand: SessionCommand { .questions(self) }
}

extension SessionCommand {
    public static func setQuestionMode(_ mode: QuestionMode) -> Self { .questions(.setMode(mode)) }
    public static func ask(id: String, text: String, page: Int?, anonymous: Bool) -> Self {
        .questions(.ask(id: id, text: text, page: page, anonymous: anonymous))
    }
    public static func markQuestion(questionId: String, answered: Bool) -> Self {
        .questions(.mark(questionId: questionId, answered: answered))
    }
    public static func approveQuestion(questionId: String, approved: Bool) -> Self {
        .questions(.approve(questionId: questionId, approved: approved))
    }
    public static func vote(questionId: String, up: Bool) -> Self { .questions(.vote(questionId: questionId, up: up)) }
}

extension SessionState {
    /// Decides the question commands: asking, marking, approving, voting, and the mode.
    func decide(_ command: QuestionCommand, by actor: Actor, at time: Double) throws(SessionError) -> FeatureDecision {
        try authorize(command, by: actor)
        guard !snapshot.ended else { throw .ended }
        switch command {
        case .setMode(let mode):
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
        case .mark(let questionId, let answered):
            guard let question = questions.question(questionId) else { throw .questionNotFound }
            guard question.answered != answered else { return .nothing }
            return FeatureDecision(records: [.questionAnswered(questionId: questionId, answered)], actions: [.refreshQuestions])
        case .approve(let questionId, let approved):
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
        }
    }

    /// Who may send a question command: viewers ask and vote; the host sets the mode; whoever
    /// handles a question (the host, a room's presenter the questions of their turns) marks and
    /// approves it.
    private func authorize(_ command: QuestionCommand, by actor: Actor) throws(SessionError) {
        switch command {
        case .ask, .vote:
            guard actor.role == .viewer, actor.viewerId != nil else { throw .forbidden }
        case .mark(let id, _), .approve(let id, _):
            guard handlesQuestion(id, role: actor.role, presenterId: actor.presenterId) else { throw .forbidden }
        case .setMode:
            guard isHost(actor.role) else { throw .forbidden }
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
