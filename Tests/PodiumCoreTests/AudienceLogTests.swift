import Foundation
import Testing

@testable import PodiumCore

/// Another node's audience records, applied one by one from the record log
/// (``SessionState/catchUp(with:)-(StoredAudienceRecord)``): the state ends as the deciding
/// node's, and each record says which views to refresh.
@Suite("Audience record log")
struct AudienceLogTests {
    /// The node that decides the commands, and the node that only reads the record log.
    var here = SessionState(pageCount: 3)
    var there = SessionState(pageCount: 3)
    var log: [StoredAudienceRecord] = []
    let ada = Actor(.viewer, viewerId: "ada")
    let bob = Actor(.viewer, viewerId: "bob")
    let host = Actor(.presenter)

    /// Takes a command here; its events reach the other node as a catch-up, its records go
    /// to the log as the store numbers them (the command's id on the last, when it has no event).
    @discardableResult
    mutating func take(_ command: SessionCommand, id: String, from actor: Actor, at time: Double) throws -> SessionDecision {
        let decision = try here.take(command, id: id, from: actor, at: time)
        for event in decision.events {
            _ = try there.catchUp(with: StoredEvent(event: event, commandID: nil, at: Date(timeIntervalSince1970: time)))
        }
        for (index, record) in decision.records.enumerated() {
            let last = index == decision.records.count - 1 && decision.events.isEmpty
            log.append(
                StoredAudienceRecord(
                    rseq: log.count + 1, change: .record(record), at: Date(timeIntervalSince1970: time),
                    commandID: last ? decision.commandKey : nil, commandSeq: last ? decision.outcome.ackSeq : nil))
        }
        return decision
    }

    /// Applies the log after `rseq` on the other node; returns the actions of each record.
    mutating func applyThere(after rseq: Int) -> [[SessionAction]] {
        log.filter { $0.rseq > rseq }.map { there.catchUp(with: $0) }
    }

    @Test mutating func answersAppliedOneByOneEndInTheSameTallies() throws {
        try take(.openPoll(Poll(kind: .choice, question: "Tea?", choices: ["Yes", "No"])), id: "open", from: host, at: 100)
        try take(.answer(pollId: 1, .choices([0])), id: "a1", from: ada, at: 101)
        try take(.answer(pollId: 1, .choices([1])), id: "b1", from: bob, at: 102)
        #expect(
            applyThere(after: 0) == [
                [.tellAnswer(pollId: 1, viewerId: "ada"), .refreshResults(pollId: 1)],
                [.tellAnswer(pollId: 1, viewerId: "bob"), .refreshResults(pollId: 1)],
            ])
        #expect(there.polls.tallies[1]?.counts == [1, 1])
        // Ada changes her mind: only the new record is applied, and the tally follows.
        try take(.answer(pollId: 1, .choices([1])), id: "a2", from: ada, at: 103)
        #expect(applyThere(after: 2) == [[.tellAnswer(pollId: 1, viewerId: "ada"), .refreshResults(pollId: 1)]])
        #expect(there.polls == here.polls)
        // A record applied twice (this node's own come back from the log too) changes nothing,
        // and the log read again from the start ends where it ended.
        #expect(there.catchUp(with: log[2]) == [])
        _ = applyThere(after: 0)
        #expect(there.polls.tallies[1]?.counts == [0, 2])
    }

    @Test mutating func aCommandWithRecordsOnlyIsADuplicateOnTheOtherNode() throws {
        try take(.openPoll(Poll(kind: .choice, question: "Tea?", choices: ["Yes", "No"])), id: "open", from: host, at: 100)
        let first = try take(.answer(pollId: 1, .choices([0])), id: "a1", from: ada, at: 101)
        _ = applyThere(after: 0)
        // Ada's browser reconnects to the other node and sends the answer again with its id.
        let retry = try there.take(.answer(pollId: 1, .choices([1])), id: "a1", from: ada, at: 102)
        #expect(retry.outcome == .duplicate(seq: first.outcome.ackSeq))
    }

    @Test mutating func aClosedQuizRefreshesTheLeaderboard() throws {
        try take(
            .openPoll(Poll(kind: .choice, question: "2+2?", choices: ["4", "5"], correct: [0], quiz: true)), id: "open",
            from: host, at: 100)
        try take(.answer(pollId: 1, .choices([0])), id: "a1", from: ada, at: 101)
        // Stored before the close, read after it: the scores it counts in changed.
        try take(.closePoll(pollId: 1), id: "close", from: host, at: 102)
        #expect(
            applyThere(after: 0) == [[.tellAnswer(pollId: 1, viewerId: "ada"), .refreshResults(pollId: 1), .refreshLeaderboard]])
        #expect(there.quizScores == here.quizScores)
    }

    @Test mutating func questionsMarksAndVotesAppliedOneByOne() throws {
        try take(.setQuestionMode(QuestionMode(isPublic: true)), id: "mode", from: host, at: 0)
        try take(.ask(id: "q1", text: "Why?", page: 2, anonymous: false), id: "q1", from: ada, at: 5)
        try take(.vote(questionId: "q1", up: true), id: "v1", from: bob, at: 6)
        try take(.markQuestion(questionId: "q1", answered: true), id: "m1", from: host, at: 7)
        try take(.vote(questionId: "q1", up: false), id: "v2", from: bob, at: 8)
        #expect(
            applyThere(after: 0) == [
                [.refreshQuestions, .refreshViewerList],
                [.tellVotes(viewerId: "bob"), .refreshQuestions],
                [.refreshQuestions],
                [.tellVotes(viewerId: "bob"), .refreshQuestions],
            ])
        #expect(there.questions == here.questions)
        #expect(there.questions.question("q1")?.answered == true)
        #expect(there.questions.votes(of: "bob").isEmpty)
    }

    @Test mutating func viewersArriveAndRenameThroughTheLog() {
        let arrived = StoredAudienceRecord(rseq: 1, change: .viewer(ViewerEntry(id: "ada", number: 1, name: nil)), at: Date())
        #expect(there.catchUp(with: arrived) == [.refreshViewerList])
        #expect(there.catchUp(with: arrived) == [])
        let renamed = StoredAudienceRecord(rseq: 2, change: .viewer(ViewerEntry(id: "ada", number: 1, name: "Ada")), at: Date())
        #expect(there.catchUp(with: renamed) == [.refreshViewerList])
        // Stored again without a name (a known viewer's new visit): the name stays.
        #expect(there.catchUp(with: arrived) == [])
        #expect(there.viewerEntry("ada") == ViewerEntry(id: "ada", number: 1, name: "Ada"))
        let second = StoredAudienceRecord(rseq: 4, change: .viewer(ViewerEntry(id: "bob", number: 2, name: nil)), at: Date())
        #expect(there.catchUp(with: second) == [.refreshViewerList])
        #expect(there.viewers.all.map(\.number) == [1, 2])
    }
}
