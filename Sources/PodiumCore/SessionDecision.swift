import Foundation

/// Who sends a command: their role and, where it matters, who they are.
public struct Actor: Sendable, Equatable {
    public var role: Role
    /// In a room, the public id of the presenter.
    public var presenterId: String?
    /// A viewer's stable identity: answers, questions and votes are theirs.
    public var viewerId: String?

    public init(_ role: Role, presenterId: String? = nil, viewerId: String? = nil) {
        self.role = role
        self.presenterId = presenterId
        self.viewerId = viewerId
    }

    /// The identity a viewer's command ids are scoped by: viewers choose their own ids, and two
    /// of them may choose the same. Hosts and the server's own commands share one scope.
    func scoped(_ commandID: String) -> String {
        guard role == .viewer, let viewerId else { return commandID }
        return "\(viewerId)/\(commandID)"
    }
}

/// What the audience contributes that is kept but not broadcast: most of it is for the host's
/// eyes only (who answered what), so it is stored beside the event log, not in it.
public enum AudienceRecord: Sendable, Equatable {
    /// A viewer's answer to a poll, as held now (it replaces an earlier one).
    case answer(pollId: Int, viewerId: String, PollAnswer)
    case question(AudienceQuestion)
    case questionAnswered(questionId: String, Bool)
    case questionApproved(questionId: String, Bool)
    case vote(questionId: String, viewerId: String, up: Bool)
}

/// What a session does after a command besides sending its events: the views that changed.
/// The core says what; the server says how (which sockets, which frames, how often).
public enum SessionAction: Sendable, Equatable, Hashable {
    /// A poll's tally changed: the hosts' results, and the audience's when the poll shows them.
    case refreshResults(pollId: Int)
    /// Quiz scores changed: the leaderboard, and each viewer's own score.
    case refreshLeaderboard
    /// The audience's questions changed: the hosts' list, and the public list.
    case refreshQuestions
    /// Who is here (names, questions asked) changed, for the hosts.
    case refreshViewerList
    /// A viewer's own answer changed: to every socket of that viewer.
    case tellAnswer(pollId: Int, viewerId: String)
    /// A viewer's own votes changed.
    case tellVotes(viewerId: String)
    /// The session is over.
    case ended
}

/// How a command was taken.
public enum CommandOutcome: Sendable, Equatable {
    /// New durable events, already applied to the state; store them, then send them.
    case applied([SessionEvent])
    /// Only audience records changed (an answer, a question, a vote): stored, never broadcast.
    case recorded(seq: Int)
    /// Accepted, but nothing changed for anyone (a no-op, or a viewer browsing alone while unlocked).
    case unchanged(seq: Int)
    /// This command id was handled before; answer as then and change nothing.
    case duplicate(seq: Int)

    /// The `seq` to acknowledge the command with.
    public var ackSeq: Int {
        switch self {
        case .applied(let events): events.last?.seq ?? 0
        case .recorded(let seq), .unchanged(let seq), .duplicate(let seq): seq
        }
    }
}

/// Everything a command causes, decided by the core and already applied to the state: what to
/// store (events and records, in one write), what to broadcast (the events), and what else to
/// refresh (actions). The server executes it and never looks at events to decide side effects.
public struct SessionDecision: Sendable, Equatable {
    public var outcome: CommandOutcome
    public var records: [AudienceRecord]
    public var actions: [SessionAction]
    /// The scoped id the command is remembered by, to store with it (nil: nothing to store).
    public var commandKey: String?

    public init(
        outcome: CommandOutcome, records: [AudienceRecord] = [], actions: [SessionAction] = [], commandKey: String? = nil
    ) {
        self.outcome = outcome
        self.records = records
        self.actions = actions
        self.commandKey = commandKey
    }

    public var events: [SessionEvent] {
        if case .applied(let events) = outcome { return events }
        return []
    }

    /// Whether there is anything to store.
    public var changesSomething: Bool { !events.isEmpty || !records.isEmpty }
}

/// What one feature decided for a command, before the session numbers the events.
struct FeatureDecision {
    var changes: [SessionChange] = []
    var records: [AudienceRecord] = []
    var actions: [SessionAction] = []

    static let nothing = FeatureDecision()

    init(changes: [SessionChange] = [], records: [AudienceRecord] = [], actions: [SessionAction] = []) {
        self.changes = changes
        self.records = records
        self.actions = actions
    }
}
