import Foundation

/// The state machine of one live session: a pure function of state and command.
///
/// The server's hub holds one per live session and is the only thing that mutates it: it calls
/// ``handle(_:id:by:)``, stores the returned events, then fans them out. Clients rebuild the same
/// state from a ``SessionSnapshot`` and the events after it. No I/O, no clocks.
public struct SessionState: Sendable, Equatable {
    /// The page count of a session's deck; a room's decks are in the snapshot.
    private let deckPageCount: Int
    public private(set) var snapshot: SessionSnapshot
    /// The `seq` of the last durable event; 0 before the first.
    public private(set) var seq: Int
    public private(set) var recentCommands: RecentCommands
    /// Answers per poll id. Kept by the server, never sent whole to viewers.
    public private(set) var tallies: [Int: PollTally] = [:]
    /// Questions from the audience, in order of asking.
    public private(set) var questions: [AudienceQuestion] = []
    /// Who upvoted each question (by question id).
    public private(set) var votes: [String: Set<String>] = [:]
    /// Everyone who has joined as a viewer, in order of first arrival.
    public private(set) var viewers: [ViewerEntry] = []
    /// Where each viewer identity is in `viewers`: joins, questions and the leaderboard look a
    /// viewer up, and a hall has thousands.
    private var viewerPositions: [String: Int] = [:]

    public init(pageCount: Int, snapshot: SessionSnapshot = SessionSnapshot(), seq: Int = 0, commandMemory: Int = 4096) {
        precondition(pageCount >= 1, "a session shows a deck with at least one page")
        self.deckPageCount = pageCount
        self.snapshot = snapshot
        self.seq = seq
        self.recentCommands = RecentCommands(capacity: commandMemory)
    }

    /// A room: no deck until presenters bring theirs.
    public init(roomWithCommandMemory commandMemory: Int = 4096) {
        self.deckPageCount = 0
        self.snapshot = SessionSnapshot(room: RoomSnapshot())
        self.seq = 0
        self.recentCommands = RecentCommands(capacity: commandMemory)
    }

    /// Rebuilds a session (or, with `room`, a room) from its stored history, e.g. after a restart.
    public init(pageCount: Int, room: Bool = false, replaying events: [StoredEvent], commandMemory: Int = 4096)
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
            apply(stored.event)
            if let id = stored.commandID { recentCommands.remember(id, seq: stored.event.seq) }
        }
    }

    /// Decides a command, and applies what it causes.
    ///
    /// - Parameters:
    ///   - command: what the client asks for.
    ///   - id: the client's id for the command; a repeated id changes nothing.
    ///   - role: who asks.
    /// - Returns: the outcome; `.applied` events are already part of the state.
    /// - Throws: ``SessionError`` when a rule refuses the command; the state is then unchanged.
    ///   - presenterId: in a room, the public id of the presenter who asks.
    ///   - time: now, in seconds since 1970: rooms record when control changes hands.
    public mutating func handle(
        _ command: SessionCommand, id: String, by role: Role, presenterId: String? = nil, at time: Double = 0
    ) throws(SessionError) -> CommandOutcome {
        if let seq = recentCommands.seq(for: id) { return .duplicate(seq: seq) }
        let changes = try decide(command, by: role, presenterId: presenterId, at: time)
        guard !changes.isEmpty else { return .unchanged(seq: seq) }
        var events: [SessionEvent] = []
        for var change in changes {
            if case .pollOpened(var poll) = change {
                // A poll is numbered by the seq of the event that opens it: unique, no id generator.
                poll.id = seq + 1
                change = .pollOpened(poll)
            }
            let event = SessionEvent(seq: seq + 1, change: change)
            apply(event)
            events.append(event)
        }
        recentCommands.remember(id, seq: seq)
        return .applied(events)
    }

    /// Authorises a laser-pointer move. Pointer moves are ephemeral: they change no state.
    public func pointer(_ point: PagePoint?, by role: Role, presenterId: String? = nil) throws(SessionError) -> PointerUpdate {
        guard drives(role, presenterId: presenterId) else { throw snapshot.room == nil ? .forbidden : .notInControl }
        guard !snapshot.ended else { throw .ended }
        guard let point else { return PointerUpdate(page: snapshot.page, point: nil) }
        guard point.isValid else { throw .invalidPoint }
        return PointerUpdate(page: snapshot.page, point: point)
    }

    /// The rules. Returns the changes a command causes, or throws why it may not.
    /// The pages of the deck on show: a session's deck, or the deck on a room's stage (0: none).
    public var pageCount: Int {
        guard let room = snapshot.room else { return deckPageCount }
        return room.currentDeck?.pageCount ?? 0
    }

    func isPage(_ page: Int) -> Bool { page >= 1 && page <= pageCount }

    func decide(_ command: SessionCommand, by role: Role, presenterId: String? = nil, at time: Double = 0) throws(SessionError)
        -> [SessionChange]
    {
        if let changes = try decideRoom(command, by: role, presenterId: presenterId, at: time) { return changes }
        if case .goto(let page) = command, role == .viewer {
            // A viewer's own navigation never changes the session for anyone else.
            guard isPage(page) else { throw .invalidPage }
            guard !snapshot.locked else { throw .followingPresenter }
            return []
        }
        try authorize(command, by: role, presenterId: presenterId)
        guard !snapshot.ended else { throw .ended }
        switch command {
        case .goto(let page):
            guard isPage(page) else { throw .invalidPage }
            let unchanged = page == snapshot.page && snapshot.viewport == .fullPage
            return unchanged ? [] : [.page(page)]
        case .zoom(let viewport):
            guard viewport.isValid else { throw .invalidViewport }
            return viewport == snapshot.viewport ? [] : [.zoom(viewport)]
        case .blank(let mode):
            return mode == snapshot.blank ? [] : [.blank(mode)]
        case .lock(let locked):
            return locked == snapshot.locked ? [] : [.lock(locked)]
        case .end:
            return [.ended]
        case .openPoll(let poll):
            guard poll.isValid else { throw .invalidPoll }
            return [.pollOpened(poll)]
        case .closePoll(let pollId):
            guard let poll = snapshot.poll(pollId) else { throw .pollNotFound }
            return poll.status == .open ? [.pollClosed(pollId: pollId)] : []
        case .revealPoll(let pollId, let results):
            guard let poll = snapshot.poll(pollId) else { throw .pollNotFound }
            let unchanged = poll.status == .revealed && (poll.resultsRevealed || !results)
            return unchanged ? [] : [.pollRevealed(pollId: pollId, correct: poll.poll.correct, results: results)]
        case .shareAnswer(let pollId, let answerId):
            guard snapshot.poll(pollId)?.poll.kind == .open else { throw .pollNotFound }
            guard let text = tallies[pollId]?.openAnswer(id: answerId) else { throw .answerNotFound }
            let answer = SharedAnswer(answerId: answerId, text: text)
            return snapshot.poll(pollId)?.shared.contains(answer) == true ? [] : [.answerShared(pollId: pollId, answer)]
        case .setQuestionMode(let mode):
            return mode == snapshot.questionMode ? [] : [.questionMode(mode)]
        case .stroke(var stroke):
            stroke.deck = snapshot.room?.deck
            guard stroke.isValid(pageCount: pageCount), !stroke.id.isEmpty else { throw .invalidStroke }
            guard !snapshot.strokes.contains(where: { $0.id == stroke.id }) else { return [] }
            return [.stroke(stroke)]
        case .erase(let strokeId):
            guard snapshot.strokes.contains(where: { $0.id == strokeId }) else { throw .strokeNotFound }
            return [.erased(strokeId: strokeId)]
        case .clearPage(let page):
            guard isPage(page) else { throw .invalidPage }
            let deck = snapshot.room?.deck
            return snapshot.strokes.contains { $0.page == page && $0.deck == deck } ? [.pageCleared(page: page, deck: deck)] : []
        case .room, .addDeck, .showDeck, .setBackground:
            return []  // decided by decideRoom
        }
    }

    /// Who may do what: the one who drives the stage moves it and draws on it; the host runs the
    /// session; in a room the moderator may always blank the projector.
    private func authorize(_ command: SessionCommand, by role: Role, presenterId: String?) throws(SessionError) {
        switch command {
        case .goto, .zoom, .stroke, .erase, .clearPage:
            guard drives(role, presenterId: presenterId) else { throw snapshot.room == nil ? .forbidden : .notInControl }
            if snapshot.room != nil, snapshot.room?.deck == nil { throw .noDeck }
        case .blank:
            guard drives(role, presenterId: presenterId) || (snapshot.room != nil && role == .moderator) else {
                throw snapshot.room == nil ? .forbidden : .notInControl
            }
        default:
            guard isHost(role) else { throw .forbidden }
        }
    }

    /// Takes a viewer's answer to a poll: one per identity, changeable while the poll is open.
    /// - Returns: whether the held answer changed.
    public mutating func answer(
        pollId: Int, _ answer: PollAnswer, viewer: String, after elapsed: Double = 0, by role: Role
    ) throws(SessionError) -> Bool {
        guard role == .viewer else { throw .forbidden }
        guard let poll = snapshot.poll(pollId) else { throw .pollNotFound }
        guard poll.status == .open else { throw .pollClosed }
        let cleaned: PollAnswer
        switch (poll.poll.kind, answer) {
        case (.choice, .choices(let picked)):
            guard !picked.isEmpty, Set(picked).count == picked.count, picked.allSatisfy(poll.poll.choices.indices.contains),
                poll.poll.multiple || picked.count == 1
            else { throw .invalidAnswer }
            cleaned = .choices(picked.sorted())
        case (.open, .text(let text)):
            let trimmed = String(text.trimmingWhitespace)
            guard !trimmed.isEmpty, trimmed.count <= PollAnswer.maxTextLength else { throw .invalidAnswer }
            cleaned = .text(trimmed)
        default:
            throw .invalidAnswer
        }
        return tallies[pollId, default: PollTally(pollId: pollId, choiceCount: poll.poll.choices.count)]
            .record(cleaned, from: viewer, after: elapsed)
    }

    /// Puts back an answer from the store after a restart, without the open-poll rule.
    public mutating func restoreAnswer(pollId: Int, _ answer: PollAnswer, viewer: String, after elapsed: Double = 0) {
        guard let poll = snapshot.poll(pollId) else { return }
        tallies[pollId, default: PollTally(pollId: pollId, choiceCount: poll.poll.choices.count)]
            .record(answer, from: viewer, after: elapsed)
    }

    /// Quiz points per viewer, from every quiz poll that no longer takes answers.
    public var quizScores: [String: Int] {
        var scores: [String: Int] = [:]
        for snapshot in snapshot.polls where snapshot.poll.quiz && snapshot.status != .open {
            guard let tally = tallies[snapshot.poll.id] else { continue }
            let correct = Set(snapshot.poll.correct)
            for (viewer, answer) in tally.answers {
                guard case .choices(let picked) = answer else { continue }
                scores[viewer, default: 0] += QuizScoring.points(
                    correct: Set(picked) == correct, after: tally.answeredAfter[viewer] ?? QuizScoring.bonusWindow)
            }
        }
        return scores
    }

    /// Everyone who answered a scored quiz question, best first; equal scores share a rank.
    public var leaderboard: [LeaderboardEntry] {
        let ordered = quizScores.map { (viewer: $0.key, score: $0.value) }.sorted { lhs, rhs in
            lhs.score != rhs.score
                ? lhs.score > rhs.score : (viewerEntry(lhs.viewer)?.number ?? 0) < (viewerEntry(rhs.viewer)?.number ?? 0)
        }
        var entries: [LeaderboardEntry] = []
        for (index, row) in ordered.enumerated() {
            let rank = index > 0 && entries[index - 1].score == row.score ? entries[index - 1].rank : index + 1
            entries.append(
                LeaderboardEntry(
                    rank: rank, name: viewerEntry(row.viewer)?.displayName ?? "Guest", score: row.score, viewerId: row.viewer))
        }
        return entries
    }

    /// Takes a viewer's question for the presenter. A retried question (same id) is taken once.
    /// - Returns: the question, or nil when it was already taken.
    public mutating func ask(
        id: String, text: String, page: Int?, anonymous: Bool, viewer: String, at date: Date, by role: Role
    ) throws(SessionError) -> AudienceQuestion? {
        guard role == .viewer else { throw .forbidden }
        guard !snapshot.ended else { throw .ended }
        if questions.contains(where: { $0.id == id }) { return nil }
        let trimmed = String(text.trimmingWhitespace)
        guard !trimmed.isEmpty, trimmed.count <= AudienceQuestion.maxLength else { throw .invalidQuestion }
        if let page { guard isPage(page) else { throw .invalidPage } }
        let question = AudienceQuestion(
            id: id, text: trimmed, page: page, anonymous: anonymous, viewerId: viewer, name: viewerEntry(viewer)?.displayName,
            askedAt: date)
        questions.append(question)
        return question
    }

    /// Marks a question answered or not. Returns the changed question.
    public mutating func markQuestion(id: String, answered: Bool, by role: Role) throws(SessionError) -> AudienceQuestion? {
        guard isHost(role) else { throw .forbidden }
        guard let index = questions.firstIndex(where: { $0.id == id }) else { throw .questionNotFound }
        guard questions[index].answered != answered else { return nil }
        questions[index].answered = answered
        return questions[index]
    }

    /// Approves a question for the public list, or withdraws it. Returns the changed question.
    public mutating func approveQuestion(id: String, approved: Bool, by role: Role) throws(SessionError) -> AudienceQuestion? {
        guard isHost(role) else { throw .forbidden }
        guard let index = questions.firstIndex(where: { $0.id == id }) else { throw .questionNotFound }
        guard questions[index].approved != approved else { return nil }
        questions[index].approved = approved
        return questions[index]
    }

    /// A viewer's upvote (or its withdrawal) of a public question: one per identity.
    /// - Returns: whether anything changed.
    public mutating func vote(questionId: String, up: Bool, viewer: String, by role: Role) throws(SessionError) -> Bool {
        guard role == .viewer else { throw .forbidden }
        guard let question = questions.first(where: { $0.id == questionId }), snapshot.questionMode.shows(question) else {
            throw .questionNotFound
        }
        if up { return votes[questionId, default: []].insert(viewer).inserted }
        return votes[questionId]?.remove(viewer) != nil
    }

    public mutating func restoreVote(questionId: String, viewer: String) {
        votes[questionId, default: []].insert(viewer)
    }

    /// The public list: most votes first, then oldest first.
    public var publicQuestions: [AudienceQuestion] {
        questions.enumerated()
            .filter { snapshot.questionMode.shows($0.element) }
            .sorted { lhs, rhs in
                let (left, right) = (votes[lhs.element.id]?.count ?? 0, votes[rhs.element.id]?.count ?? 0)
                return left != right ? left > right : lhs.offset < rhs.offset
            }
            .map(\.element)
    }

    /// Puts back a question from the store after a restart.
    public mutating func restoreQuestion(_ question: AudienceQuestion) {
        if !questions.contains(where: { $0.id == question.id }) { questions.append(question) }
    }

    /// Registers a viewer identity on arrival. The first arrival fixes their guest number; a
    /// name given later replaces an earlier one.
    /// - Returns: the entry, and whether it is new or changed (to store it).
    public mutating func registerViewer(_ id: String, name: String?) -> (entry: ViewerEntry, changed: Bool) {
        let cleaned = name.map { String($0.trimmingWhitespace) }.flatMap { $0.isEmpty ? nil : $0 }
        if let index = viewerPositions[id] {
            guard let cleaned, viewers[index].name != cleaned else { return (viewers[index], false) }
            viewers[index].name = cleaned
            return (viewers[index], true)
        }
        let entry = ViewerEntry(id: id, number: viewers.count + 1, name: cleaned)
        viewerPositions[id] = viewers.count
        viewers.append(entry)
        return (entry, true)
    }

    /// The viewers a session had before a restart, in any order.
    public mutating func restoreViewers(_ entries: [ViewerEntry]) {
        for entry in entries where viewerPositions[entry.id] == nil {
            viewerPositions[entry.id] = viewers.count
            viewers.append(entry)
        }
        viewers.sort { $0.number < $1.number }
        for (index, entry) in viewers.enumerated() { viewerPositions[entry.id] = index }
    }

    public func viewerEntry(_ id: String) -> ViewerEntry? { viewerPositions[id].map { viewers[$0] } }

    mutating func apply(_ event: SessionEvent) {
        snapshot.apply(event.change)
        seq = event.seq
    }
}

/// Where the laser pointer is now; `point` nil hides it.
public struct PointerUpdate: Sendable, Equatable {
    public var page: Int
    public var point: PagePoint?
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
