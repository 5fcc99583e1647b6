import Foundation

/// The state machine of one live session: a pure function of state and command.
///
/// It is composed of parts with one job each: the snapshot everyone sees (the stage, polls,
/// question mode, a room's control and decks), the server's own ``PollBook`` (answers),
/// ``QuestionBoard`` (the audience's questions and votes), ``ViewerRoster`` (who came) and
/// ``ClipLog`` (the clips shown).
/// Each feature decides its commands in its own file, beside the command enum, its wire form and
/// who may send it (`decide(_: StageCommand, …)` in StageContent.swift, `PollCommand` in
/// PollBook.swift, `QuestionCommand` in QuestionBoard.swift, `ScreenCommand` in Spotlight.swift,
/// `VideoCommand` in Playback.swift, `RoomCommand` in Room.swift); a new feature is a new part,
/// a new case of ``SessionCommand`` and a new `decide`.
///
/// The server holds one per live session and is the only thing that changes it: it calls
/// ``take(_:id:from:at:)``, stores what the returned ``SessionDecision`` says, sends its events
/// and carries out its actions. Clients rebuild the snapshot from a ``SessionSnapshot`` and the
/// events after it. No I/O, no clocks: the time of a command is given.
public struct SessionState: Sendable, Equatable {
    /// The page count of a session's deck (0: a session with no deck); a room's decks are in
    /// the snapshot.
    let deckPageCount: Int
    public private(set) var snapshot: SessionSnapshot
    /// The `seq` of the last durable event; 0 before the first.
    public private(set) var seq: Int
    public private(set) var recentCommands: RecentCommands
    public private(set) var polls = PollBook()
    public private(set) var questions = QuestionBoard()
    public private(set) var viewers = ViewerRoster()
    /// A room's control changes with their times (empty for a session).
    public private(set) var turns = RoomTurns()
    /// Every clip shown, with its times on stage and how much of it played (for the report and
    /// the export).
    public private(set) var clips = ClipLog()

    /// How many command ids a session remembers: a client retries within seconds.
    public static let commandMemory = 4096

    /// A session showing a deck of `pageCount` pages (0: no deck yet).
    public init(
        pageCount: Int, snapshot: SessionSnapshot = SessionSnapshot(), seq: Int = 0,
        commandMemory: Int = SessionState.commandMemory
    ) {
        self.deckPageCount = max(0, pageCount)
        self.snapshot = snapshot
        self.seq = seq
        self.recentCommands = RecentCommands(capacity: commandMemory)
    }

    /// A room: no deck until presenters bring theirs.
    public init(roomWithCommandMemory commandMemory: Int = SessionState.commandMemory) {
        self.deckPageCount = 0
        self.snapshot = SessionSnapshot(room: RoomSnapshot())
        self.seq = 0
        self.recentCommands = RecentCommands(capacity: commandMemory)
    }

    /// Rebuilds a session (or, with `room`, a room) from its stored history, e.g. after a restart.
    public init(
        pageCount: Int, room: Bool = false, replaying events: [StoredEvent], commandMemory: Int = SessionState.commandMemory
    )
        throws(SessionError)
    {
        if room {
            self.init(roomWithCommandMemory: commandMemory)
        } else {
            self.init(pageCount: pageCount, commandMemory: commandMemory)
        }
        for stored in events {
            guard stored.event.seq == seq + 1 else {
                throw SessionError(code: "corrupt_history", message: "event \(stored.event.seq) follows \(seq)")
            }
            apply(stored.event, at: stored.at?.timeIntervalSince1970)
            if let id = stored.commandID { recentCommands.remember(id, seq: stored.event.seq) }
        }
    }

    /// Decides a command and applies what it causes.
    ///
    /// - Parameters:
    ///   - command: what the client asks for.
    ///   - id: the client's id for the command; a repeated id (from the same viewer) changes nothing.
    ///   - actor: who asks.
    ///   - time: now, in seconds since 1970: rooms record when control changes hands, quizzes
    ///     how fast an answer came, questions when they were asked.
    /// - Returns: what to store, send and refresh; it is already part of the state.
    /// - Throws: ``SessionError`` when a rule refuses the command; the state is then unchanged.
    public mutating func take(_ command: SessionCommand, id: String, from actor: Actor, at time: Double)
        throws(SessionError) -> SessionDecision
    {
        let key = actor.scoped(id)
        if let seq = recentCommands.seq(for: key) { return SessionDecision(outcome: .duplicate(seq: seq)) }
        let decided = try decide(command, by: actor, at: time)
        guard !decided.changes.isEmpty || !decided.records.isEmpty else {
            return SessionDecision(outcome: .unchanged(seq: seq))
        }
        var events: [SessionEvent] = []
        var actions = decided.actions
        for var change in decided.changes {
            if case .pollOpened(var poll) = change {
                // A poll is numbered by the seq of the event that opens it: unique, no id generator.
                poll.id = seq + 1
                change = .pollOpened(poll)
            }
            let event = SessionEvent(seq: seq + 1, change: change)
            apply(event, at: time)
            events.append(event)
            // Two changes may ask for the same refresh (results shown, and put on screen): once.
            for action in followUps(of: change) where !actions.contains(action) { actions.append(action) }
        }
        for record in decided.records { apply(record, at: time) }
        recentCommands.remember(key, seq: seq)
        return SessionDecision(
            outcome: events.isEmpty ? .recorded(seq: seq) : .applied(events), records: decided.records,
            actions: actions, commandKey: key)
    }

    /// ``take(_:id:from:at:)`` for a participant known by role: what tests and simple callers need.
    public mutating func handle(
        _ command: SessionCommand, id: String, by role: Role, presenterId: String? = nil, viewerId: String? = nil,
        at time: Double = 0
    ) throws(SessionError) -> CommandOutcome {
        try take(command, id: id, from: Actor(role, presenterId: presenterId, viewerId: viewerId), at: time).outcome
    }

    /// The pages of the deck on show: a session's deck, or the deck on a room's stage (0: none).
    public var pageCount: Int {
        guard let room = snapshot.room else { return deckPageCount }
        return room.currentDeck?.pageCount ?? 0
    }

    func isPage(_ page: Int) -> Bool { page >= 1 && page <= pageCount }

    /// The rules: the feature a command is for checks who may send it, then decides it.
    func decide(_ command: SessionCommand, by actor: Actor, at time: Double) throws(SessionError) -> FeatureDecision {
        switch command {
        case .stage(let command): return try decide(command, by: actor)
        case .polls(let command): return try decide(command, by: actor)
        case .questions(let command): return try decide(command, by: actor, at: time)
        case .screen(let command): return try decide(command, by: actor)
        case .video(let command): return try decide(command, by: actor, at: time)
        case .room(let command): return try decide(command, by: actor, at: time)
        case .lock(let locked):
            try hostOnly(actor)
            return locked == snapshot.locked ? .nothing : FeatureDecision(changes: [.lock(locked)])
        case .recording(let on):
            // The session's presenter, a room's moderator or the presenter in control.
            guard runsPolls(actor.role, presenterId: actor.presenterId) else { throw .forbidden }
            guard !snapshot.ended else { throw .ended }
            return on == snapshot.recording ? .nothing : FeatureDecision(changes: [.recording(on)])
        case .end:
            try hostOnly(actor)
            return FeatureDecision(changes: [.ended])
        }
    }

    /// The session's own commands (lock, end) are its host's, until it ended.
    private func hostOnly(_ actor: Actor) throws(SessionError) {
        guard isHost(actor.role) else { throw .forbidden }
        guard !snapshot.ended else { throw .ended }
    }

    /// Registers a viewer identity on arrival (see ``ViewerRoster/register(_:name:)``).
    public mutating func registerViewer(_ id: String, name: String?) -> (entry: ViewerEntry, changed: Bool) {
        viewers.register(id, name: name)
    }

    /// The viewers a session had before a restart, in any order.
    public mutating func restoreViewers(_ entries: [ViewerEntry]) { viewers.restore(entries) }

    /// Takes `other`'s roster: a state decided from an older one keeps the viewers who arrived
    /// since (arrivals change only the roster, and no command changes it).
    public mutating func keepViewers(of other: SessionState) { viewers = other.viewers }

    public func viewerEntry(_ id: String) -> ViewerEntry? { viewers.entry(id) }

    /// Puts back what the audience contributed before a restart: a stored record, at the time it
    /// was stored, applied as when it was taken (no rule is checked again).
    public mutating func restore(_ record: AudienceRecord, at time: Double) { apply(record, at: time) }

    /// Remembers a stored command id, so a retry after a restart still counts once.
    public mutating func restoreCommand(_ key: String, seq: Int) { recentCommands.remember(key, seq: seq) }

    /// Applies an event another node stored (read back from the store), in order.
    /// - Returns: what to refresh besides sending it, as if this node had taken its command.
    public mutating func catchUp(with stored: StoredEvent) throws(SessionError) -> [SessionAction] {
        guard stored.event.seq == seq + 1 else {
            throw SessionError(code: "corrupt_history", message: "event \(stored.event.seq) follows \(seq)")
        }
        apply(stored.event, at: stored.at?.timeIntervalSince1970)
        if let id = stored.commandID { recentCommands.remember(id, seq: stored.event.seq) }
        return followUps(of: stored.event.change)
    }

    /// What an event makes the server refresh besides sending it (after it is applied).
    func followUps(of change: SessionChange) -> [SessionAction] {
        switch change {
        case .pollOpened(let poll):
            return [.refreshResults(pollId: poll.id)]
        case .pollRevealed(let pollId, _, _):
            return [.refreshResults(pollId: pollId)] + (snapshot.poll(pollId)?.poll.quiz == true ? [.refreshLeaderboard] : [])
        case .resultsShown(let pollId, _):
            return [.refreshResults(pollId: pollId)]
        case .pollClosed(let pollId):
            return snapshot.poll(pollId)?.poll.quiz == true ? [.refreshLeaderboard] : []
        case .questionMode:
            return [.refreshQuestions]
        case .ended:
            return [.ended]
        case .spotlight(let spotlight):
            return followUps(ofSpotlight: spotlight)
        default:
            return []
        }
    }

    mutating func apply(_ event: SessionEvent, at time: Double?) {
        snapshot.apply(event.change)
        turns.record(event.change)
        clips.record(event.change, at: time, in: snapshot)
        if case .pollOpened(let poll) = event.change { polls.opened(poll.id, at: time) }
        seq = event.seq
    }

    mutating func apply(_ record: AudienceRecord, at time: Double) {
        switch record {
        case .answer(let pollId, let viewer, let answer):
            guard let poll = snapshot.poll(pollId) else { return }
            polls.record(answer, pollId: pollId, choiceCount: poll.poll.choices.count, viewer: viewer, at: time)
        case .question(var question):
            question.presenter = turns.presenter(at: question.askedAt.timeIntervalSince1970)
            questions.add(question)
        case .questionAnswered(let id, let answered):
            questions.update(id) { $0.answered = answered }
        case .questionApproved(let id, let approved):
            questions.update(id) { $0.approved = approved }
        case .vote(let questionId, let viewer, let up):
            questions.vote(questionId, viewer: viewer, up: up)
        }
    }
}

/// A durable event as the store keeps it: with the id of the command that caused it, so
/// deduplication survives a restart.
public struct StoredEvent: Sendable, Equatable {
    public var event: SessionEvent
    public var commandID: String?
    /// When it was stored (set when read back from the store).
    public var at: Date?

    public init(event: SessionEvent, commandID: String?, at: Date? = nil) {
        self.event = event
        self.commandID = commandID
        self.at = at
    }
}
