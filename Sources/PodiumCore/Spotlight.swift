/// What the host puts on screen over the stage, full-screen for every viewer and the projector:
/// a poll's results, the word cloud or the shared answers of an open poll, the quiz leaderboard,
/// or one audience question. Session state like the stage: set by a command, carried by the
/// durable `spotlight` event, in the snapshot, replayed after a restart.
///
/// On the wire: `{"kind":"pollResults","pollId":3}`, `{"kind":"question","questionId":"q1",
/// "text":"…","name":"Ann"}`, `{"kind":"leaderboard"}`. A client names the poll or the question;
/// the server fills in a question's text and asker (none when asked anonymously), so viewers who
/// never saw the question list can show it.
public struct Spotlight: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// The chart of a multiple-choice poll, live as answers arrive.
        case pollResults
        /// The words of an open poll's answers.
        case wordCloud
        /// The answers of an open poll the host shared.
        case sharedAnswers
        /// One audience question.
        case question
        /// The quiz leaderboard.
        case leaderboard
    }

    public var kind: Kind
    public var pollId: Int?
    public var questionId: String?
    /// A question's text and its asker's name (nil: anonymous), filled in by the server.
    public var text: String?
    public var name: String?

    public init(kind: Kind, pollId: Int? = nil, questionId: String? = nil, text: String? = nil, name: String? = nil) {
        self.kind = kind
        self.pollId = pollId
        self.questionId = questionId
        self.text = text
        self.name = name
    }

    public static func pollResults(_ pollId: Int) -> Spotlight { Spotlight(kind: .pollResults, pollId: pollId) }
    public static func wordCloud(_ pollId: Int) -> Spotlight { Spotlight(kind: .wordCloud, pollId: pollId) }
    public static func sharedAnswers(_ pollId: Int) -> Spotlight { Spotlight(kind: .sharedAnswers, pollId: pollId) }
    public static func question(_ questionId: String) -> Spotlight { Spotlight(kind: .question, questionId: questionId) }
    public static let leaderboard = Spotlight(kind: .leaderboard)

    /// Whether it shows a poll's tally (counts, or the answers' words): viewers then receive that
    /// poll's `results` while it is on screen.
    public var showsTally: Bool { kind == .pollResults || kind == .wordCloud }
}

/// What the big screens show over the stage, for everyone: a spotlight, how to join.
public enum ScreenCommand: Sendable, Equatable {
    /// The host puts results, answers, the leaderboard or a question on screen; nil takes it off.
    case spotlight(Spotlight?)
    /// The host shows how to join (the code, the link's QR code) on the big screens, or takes it off.
    case showJoinInfo(Bool)
}

extension ScreenCommand: FeatureCommand {
    public static let wireTypes = ["spotlight", "showJoinInfo"]

    enum Keys: String, CodingKey { case type, spotlight, on }

    public init(wireType type: String, id: String, from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        switch type {
        case "spotlight": self = .spotlight(try c.decodeIfPresent(Spotlight.self, forKey: .spotlight))
        default: self = .showJoinInfo(try c.decode(Bool.self, forKey: .on))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        switch self {
        case .spotlight(let spotlight):
            try c.encode("spotlight", forKey: .type)
            try c.encode(spotlight, forKey: .spotlight)
        case .showJoinInfo(let on):
            try c.encode("showJoinInfo", forKey: .type)
            try c.encode(on, forKey: .on)
        }
    }

    public var sessionCommand: SessionCommand { .screen(self) }
}

extension SessionCommand {
    public static func spotlight(_ spotlight: Spotlight?) -> Self { .screen(.spotlight(spotlight)) }
    public static func showJoinInfo(_ on: Bool) -> Self { .screen(.showJoinInfo(on)) }
}

extension SessionError {
    public static let invalidSpotlight = SessionError(
        code: "invalid_spotlight",
        message:
            "That cannot be put on screen: results are for multiple-choice polls, the word cloud and shared answers for open ones, the leaderboard for quizzes."
    )
    public static let questionNotApproved = SessionError(
        code: "question_not_approved", message: "Approve the question before putting it on screen.")
}

extension SessionSnapshot {
    /// Whether viewers may see a poll's tally now: the poll shows its results, or it is on screen.
    public func viewersSeeTally(of pollId: Int) -> Bool {
        if spotlight?.showsTally == true, spotlight?.pollId == pollId { return true }
        return poll(pollId)?.resultsVisibleToViewers ?? false
    }

    /// Whether viewers receive a poll's open answers (their text, never who wrote them): only
    /// while its word cloud is on screen.
    public func viewersSeeOpenAnswers(of pollId: Int) -> Bool {
        spotlight?.kind == .wordCloud && spotlight?.pollId == pollId
    }

    /// A poll's place in the session, from 1 (oldest first): how people name it ("Poll 2").
    public func pollNumber(_ pollId: Int) -> Int? {
        polls.firstIndex { $0.poll.id == pollId }.map { $0 + 1 }
    }
}

extension SessionState {
    /// Decides what the big screens show over the stage.
    func decide(_ command: ScreenCommand, by actor: Actor) throws(SessionError) -> FeatureDecision {
        try authorize(command, by: actor)
        guard !snapshot.ended else { throw .ended }
        switch command {
        case .spotlight(let spotlight):
            return try decideSpotlight(spotlight)
        case .showJoinInfo(let on):
            return on == (snapshot.joinInfo ?? false) ? .nothing : FeatureDecision(changes: [.joinInfo(on)])
        }
    }

    /// Who may change the big screens: whoever runs the polls puts results (and the rest) on
    /// everyone's screen, in a room the presenter in control as well as the moderator; the host
    /// shows how to join.
    private func authorize(_ command: ScreenCommand, by actor: Actor) throws(SessionError) {
        switch command {
        case .spotlight:
            guard runsPolls(actor.role, presenterId: actor.presenterId) else { throw .forbidden }
        case .showJoinInfo:
            guard isHost(actor.role) else { throw .forbidden }
        }
    }

    /// Decides what goes on screen: the host names it, this checks it exists and may be shown.
    ///
    /// Putting a poll's results on screen shows them to the room, revealed or not: that is the
    /// host's choice. An unapproved question never goes on screen while questions need approval.
    private func decideSpotlight(_ requested: Spotlight?) throws(SessionError) -> FeatureDecision {
        guard let requested else {
            return snapshot.spotlight == nil ? .nothing : FeatureDecision(changes: [.spotlight(nil)])
        }
        var spotlight = Spotlight(kind: requested.kind)
        switch requested.kind {
        case .pollResults, .wordCloud, .sharedAnswers:
            guard let pollId = requested.pollId, let poll = snapshot.poll(pollId) else { throw .pollNotFound }
            let wanted: Poll.Kind = requested.kind == .pollResults ? .choice : .open
            guard poll.poll.kind == wanted else { throw .invalidSpotlight }
            spotlight.pollId = pollId
            // A chart on the big screen is on every phone too: its results are shown to everyone,
            // and stay so when it is taken off screen (until the host hides them).
            if requested.kind == .pollResults, !poll.resultsVisibleToViewers, spotlight != snapshot.spotlight {
                return FeatureDecision(changes: [.resultsShown(pollId: pollId, shown: true), .spotlight(spotlight)])
            }
        case .question:
            guard let id = requested.questionId, let question = questions.question(id) else { throw .questionNotFound }
            if snapshot.questionMode.needsApproval, !question.approved { throw .questionNotApproved }
            spotlight.questionId = id
            spotlight.text = question.text
            spotlight.name = question.anonymous ? nil : (question.name ?? viewers.entry(question.viewerId)?.displayName)
        case .leaderboard:
            guard snapshot.polls.contains(where: { $0.poll.quiz }) else { throw .invalidSpotlight }
        }
        return spotlight == snapshot.spotlight ? .nothing : FeatureDecision(changes: [.spotlight(spotlight)])
    }

    /// What a spotlight makes the server send besides its event: the tally it shows, to viewers
    /// too; the leaderboard.
    func followUps(ofSpotlight spotlight: Spotlight?) -> [SessionAction] {
        guard let spotlight else { return [] }
        if spotlight.showsTally, let pollId = spotlight.pollId { return [.refreshResults(pollId: pollId)] }
        return spotlight.kind == .leaderboard ? [.refreshLeaderboard] : []
    }
}
