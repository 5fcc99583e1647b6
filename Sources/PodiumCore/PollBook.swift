/// What only the server knows of a session's polls: every answer, and when each poll opened.
/// The polls themselves (question, status, shared answers) are in the snapshot, for everyone.
public struct PollBook: Sendable, Equatable {
    /// Answers per poll id. Never sent whole to viewers.
    public private(set) var tallies: [Int: PollTally] = [:]
    /// When each poll opened (seconds since 1970), for quiz speed points.
    public private(set) var openedAt: [Int: Double] = [:]

    public init() {}

    mutating func opened(_ pollId: Int, at time: Double?) {
        if let time { openedAt[pollId] = time }
    }

    /// Seconds from a poll's opening to `time`; a poll whose opening time is unknown gives no
    /// speed bonus.
    func elapsed(pollId: Int, at time: Double) -> Double {
        openedAt[pollId].map { time - $0 } ?? QuizScoring.bonusWindow
    }

    mutating func record(_ answer: PollAnswer, pollId: Int, choiceCount: Int, viewer: String, at time: Double) {
        tallies[pollId, default: PollTally(pollId: pollId, choiceCount: choiceCount)]
            .record(answer, from: viewer, after: elapsed(pollId: pollId, at: time))
    }
}

/// What runs a session's polls, and the audience's answers.
public enum PollCommand: Sendable, Equatable {
    case open(Poll)
    case close(pollId: Int)
    /// Shows the right answer (a quiz's) and, with `results`, the results.
    case reveal(pollId: Int, results: Bool)
    /// Where a poll's results are: on every viewer's device (true) or hidden from the audience.
    case showResults(pollId: Int, shown: Bool)
    case shareAnswer(pollId: Int, answerId: String)
    /// A viewer's answer to a poll (one per viewer, changeable while the poll is open).
    case answer(pollId: Int, PollAnswer)
}

extension PollCommand: FeatureCommand {
    public static let wireTypes = ["openPoll", "closePoll", "revealPoll", "showResults", "shareAnswer", "answer"]

    enum Keys: String, CodingKey { case type, poll, pollId, results, shown, answerId, choices, text }

    public init(wireType type: String, id: String, from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        switch type {
        case "openPoll": self = .open(try c.decode(Poll.self, forKey: .poll))
        case "closePoll": self = .close(pollId: try c.decode(Int.self, forKey: .pollId))
        case "revealPoll":
            self = .reveal(
                pollId: try c.decode(Int.self, forKey: .pollId),
                results: try c.decodeIfPresent(Bool.self, forKey: .results) ?? false)
        case "showResults":
            self = .showResults(pollId: try c.decode(Int.self, forKey: .pollId), shown: try c.decode(Bool.self, forKey: .shown))
        case "shareAnswer":
            self = .shareAnswer(
                pollId: try c.decode(Int.self, forKey: .pollId), answerId: try c.decode(String.self, forKey: .answerId))
        default:
            let answer: PollAnswer
            if let text = try c.decodeIfPresent(String.self, forKey: .text) {
                answer = .text(text)
            } else {
                answer = .choices(try c.decode([Int].self, forKey: .choices))
            }
            self = .answer(pollId: try c.decode(Int.self, forKey: .pollId), answer)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        switch self {
        case .open(let poll):
            try c.encode("openPoll", forKey: .type)
            try c.encode(poll, forKey: .poll)
        case .close(let pollId):
            try c.encode("closePoll", forKey: .type)
            try c.encode(pollId, forKey: .pollId)
        case .reveal(let pollId, let results):
            try c.encode("revealPoll", forKey: .type)
            try c.encode(pollId, forKey: .pollId)
            try c.encode(results, forKey: .results)
        case .showResults(let pollId, let shown):
            try c.encode("showResults", forKey: .type)
            try c.encode(pollId, forKey: .pollId)
            try c.encode(shown, forKey: .shown)
        case .shareAnswer(let pollId, let answerId):
            try c.encode("shareAnswer", forKey: .type)
            try c.encode(pollId, forKey: .pollId)
            try c.encode(answerId, forKey: .answerId)
        case .answer(let pollId, let answer):
            try c.encode("answer", forKey: .type)
            try c.encode(pollId, forKey: .pollId)
            switch answer {
            case .choices(let choices): try c.encode(choices, forKey: .choices)
            case .text(let text): try c.encode(text, forKey: .text)
            }
        }
    }

    public var sessionCommand: SessionCommand { .polls(self) }
}

extension SessionCommand {
    public static func openPoll(_ poll: Poll) -> Self { .polls(.open(poll)) }
    public static func closePoll(pollId: Int) -> Self { .polls(.close(pollId: pollId)) }
    public static func revealPoll(pollId: Int, results: Bool) -> Self { .polls(.reveal(pollId: pollId, results: results)) }
    public static func showResults(pollId: Int, shown: Bool) -> Self { .polls(.showResults(pollId: pollId, shown: shown)) }
    public static func shareAnswer(pollId: Int, answerId: String) -> Self {
        .polls(.shareAnswer(pollId: pollId, answerId: answerId))
    }
    public static func answer(pollId: Int, _ answer: PollAnswer) -> Self { .polls(.answer(pollId: pollId, answer)) }
}

extension SessionState {
    /// Decides the poll commands: opening, closing, revealing, sharing, and the audience's answers.
    func decide(_ command: PollCommand, by actor: Actor) throws(SessionError) -> FeatureDecision {
        try authorize(command, by: actor)
        guard !snapshot.ended else { throw .ended }
        switch command {
        case .open(let poll):
            guard poll.isValid else { throw .invalidPoll }
            // Its id is the seq of its event, known once the session numbers it (see `handle`).
            return FeatureDecision(changes: [.pollOpened(poll)])
        case .close(let pollId):
            guard let poll = snapshot.poll(pollId) else { throw .pollNotFound }
            guard poll.status == .open else { return .nothing }
            return FeatureDecision(changes: [.pollClosed(pollId: pollId)])
        case .reveal(let pollId, let results):
            guard let poll = snapshot.poll(pollId) else { throw .pollNotFound }
            let unchanged = poll.status == .revealed && (poll.resultsRevealed || !results)
            if unchanged { return .nothing }
            return FeatureDecision(changes: [.pollRevealed(pollId: pollId, correct: poll.poll.correct, results: results)])
        case .showResults(let pollId, let shown):
            guard let poll = snapshot.poll(pollId) else { throw .pollNotFound }
            var changes: [SessionChange] = []
            if poll.resultsVisibleToViewers != shown { changes.append(.resultsShown(pollId: pollId, shown: shown)) }
            // Hidden means hidden everywhere: not on the big screen either.
            if !shown, let spotlight = snapshot.spotlight, spotlight.showsTally, spotlight.pollId == pollId {
                changes.append(.spotlight(nil))
            }
            return FeatureDecision(changes: changes)
        case .shareAnswer(let pollId, let answerId):
            guard snapshot.poll(pollId)?.poll.kind == .open else { throw .pollNotFound }
            guard let text = polls.tallies[pollId]?.openAnswer(id: answerId) else { throw .answerNotFound }
            let answer = SharedAnswer(answerId: answerId, text: text)
            if snapshot.poll(pollId)?.shared.contains(answer) == true { return .nothing }
            return FeatureDecision(changes: [.answerShared(pollId: pollId, answer)])
        case .answer(let pollId, let answer):
            return try decideAnswer(pollId: pollId, answer, by: actor)
        }
    }

    /// Who may send a poll command: viewers answer; whoever runs the polls does the rest.
    private func authorize(_ command: PollCommand, by actor: Actor) throws(SessionError) {
        switch command {
        case .answer:
            guard actor.role == .viewer, actor.viewerId != nil else { throw .forbidden }
        case .open, .close, .reveal, .showResults, .shareAnswer:
            guard runsPolls(actor.role, presenterId: actor.presenterId) else { throw .forbidden }
        }
    }

    /// A viewer's answer: one per identity, changeable while the poll is open.
    private func decideAnswer(pollId: Int, _ answer: PollAnswer, by actor: Actor) throws(SessionError) -> FeatureDecision {
        guard actor.role == .viewer, let viewer = actor.viewerId else { throw .forbidden }
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
        if polls.tallies[pollId]?.answers[viewer] == cleaned { return .nothing }
        return FeatureDecision(
            records: [.answer(pollId: pollId, viewerId: viewer, cleaned)],
            actions: [.tellAnswer(pollId: pollId, viewerId: viewer), .refreshResults(pollId: pollId)])
    }

    /// Quiz points per viewer, from every quiz poll that no longer takes answers.
    public var quizScores: [String: Int] {
        var scores: [String: Int] = [:]
        for snapshot in snapshot.polls where snapshot.poll.quiz && snapshot.status != .open {
            guard let tally = polls.tallies[snapshot.poll.id] else { continue }
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
                ? lhs.score > rhs.score
                : (viewers.entry(lhs.viewer)?.number ?? 0) < (viewers.entry(rhs.viewer)?.number ?? 0)
        }
        var entries: [LeaderboardEntry] = []
        for (index, row) in ordered.enumerated() {
            let rank = index > 0 && entries[index - 1].score == row.score ? entries[index - 1].rank : index + 1
            entries.append(
                LeaderboardEntry(
                    rank: rank, name: viewers.entry(row.viewer)?.displayName ?? "Guest", score: row.score,
                    viewerId: row.viewer))
        }
        return entries
    }

    /// Whether any quiz question has closed, so there is a leaderboard to show.
    public var hasScoredQuiz: Bool {
        snapshot.polls.contains { $0.poll.quiz && $0.status != .open }
    }
}
