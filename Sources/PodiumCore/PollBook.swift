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

extension SessionState {
    /// Decides the poll commands: opening, closing, revealing, sharing, and the audience's answers.
    func decidePolls(_ command: SessionCommand, by actor: Actor) throws(SessionError) -> FeatureDecision {
        switch command {
        case .openPoll(let poll):
            guard poll.isValid else { throw .invalidPoll }
            // Its id is the seq of its event, known once the session numbers it (see `handle`).
            return FeatureDecision(changes: [.pollOpened(poll)])
        case .closePoll(let pollId):
            guard let poll = snapshot.poll(pollId) else { throw .pollNotFound }
            guard poll.status == .open else { return .nothing }
            return FeatureDecision(changes: [.pollClosed(pollId: pollId)])
        case .revealPoll(let pollId, let results):
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
        default:
            return .nothing
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
