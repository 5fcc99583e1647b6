import Foundation

/// One change to what the audience contributed, as the session's record log keeps it: an
/// ``AudienceRecord`` a command stored, or a viewer's entry stored on arrival (a newcomer with the
/// number the store gave, or a known viewer with a new name).
public enum AudienceChange: Sendable, Equatable {
    case record(AudienceRecord)
    case viewer(ViewerEntry)
}

/// An audience change as the store numbers it: every session has a second sequence beside its
/// events, the record seq (`rseq`), dense from 1 and given in the transaction that stores the
/// change. A node keeps the `rseq` it has applied and reads only the changes after it (see
/// ``SessionState/catchUp(with:)-(StoredAudienceRecord)``).
public struct StoredAudienceRecord: Sendable, Equatable {
    public var rseq: Int
    public var change: AudienceChange
    /// When it was stored.
    public var at: Date
    /// For the last record of a command that stored records but no event: the command's scoped
    /// id and the `seq` it was acknowledged with, so a retry on another node counts once.
    public var commandID: String?
    public var commandSeq: Int?

    public init(rseq: Int, change: AudienceChange, at: Date, commandID: String? = nil, commandSeq: Int? = nil) {
        self.rseq = rseq
        self.change = change
        self.at = at
        self.commandID = commandID
        self.commandSeq = commandSeq
    }
}

extension SessionState {
    /// Applies one audience change another node stored (read back from the record log, in
    /// `rseq` order, after the events stored before it), as a restart would have restored it.
    /// - Returns: the views to refresh, as if this node had taken its command.
    public mutating func catchUp(with stored: StoredAudienceRecord) -> [SessionAction] {
        if let key = stored.commandID, let seq = stored.commandSeq { restoreCommand(key, seq: seq) }
        switch stored.change {
        case .viewer(let entry):
            return restoreViewer(entry) ? [.refreshViewerList] : []
        case .record(let record):
            // Judged before it is applied, on the one thing it touches: no copy of the state
            // (a hall's tallies) per record.
            let actions = followUps(of: record)
            let time: Double
            if case .question(let question) = record {
                time = question.askedAt.timeIntervalSince1970
            } else {
                time = stored.at.timeIntervalSince1970
            }
            restore(record, at: time)
            return actions
        }
    }

    /// A viewer's entry as the store holds it: a newcomer joins the roster, a known viewer takes
    /// a new name. Returns whether the roster changed.
    public mutating func restoreViewer(_ entry: ViewerEntry) -> Bool {
        guard let known = viewerEntry(entry.id) else {
            restoreViewers([entry])
            return true
        }
        guard let name = entry.name, known.name != name else { return false }
        return registerViewer(entry.id, name: name).changed
    }

    /// What a stored record will change in the views, judged before it is applied.
    func followUps(of record: AudienceRecord) -> [SessionAction] {
        switch record {
        case .answer(let pollId, let viewerId, let answer):
            guard let poll = snapshot.poll(pollId), polls.tallies[pollId]?.answers[viewerId] != answer else { return [] }
            var actions: [SessionAction] = [.tellAnswer(pollId: pollId, viewerId: viewerId), .refreshResults(pollId: pollId)]
            // Scores count only the quizzes that no longer take answers.
            if poll.poll.quiz, poll.status != .open { actions.append(.refreshLeaderboard) }
            return actions
        case .question(let question):
            return questions.question(question.id) == nil ? [.refreshQuestions, .refreshViewerList] : []
        case .questionAnswered(let id, let answered):
            return questions.question(id).map { $0.answered != answered } == true ? [.refreshQuestions] : []
        case .questionApproved(let id, let approved):
            return questions.question(id).map { $0.approved != approved } == true ? [.refreshQuestions] : []
        case .vote(let questionId, let viewerId, let up):
            guard (questions.votes[questionId]?.contains(viewerId) ?? false) != up else { return [] }
            return [.tellVotes(viewerId: viewerId), .refreshQuestions]
        }
    }
}
