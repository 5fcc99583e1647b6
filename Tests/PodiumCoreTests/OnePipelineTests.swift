import Foundation
import Testing

@testable import PodiumCore

/// Every command, the audience's included, is decided by `take`: what it returns is what the
/// server stores, sends and refreshes.
@Suite("One command pipeline")
struct OnePipelineTests {
    var state = SessionState(pageCount: 3)
    let ada = Actor(.viewer, viewerId: "ada")
    let bob = Actor(.viewer, viewerId: "bob")
    let host = Actor(.presenter)

    mutating func openPoll(quiz: Bool = false) throws -> Int {
        let decision = try state.take(
            .openPoll(Poll(kind: .choice, question: "Tea?", choices: ["Yes", "No"], correct: [0], quiz: quiz)), id: "open",
            from: host, at: 100)
        guard case .pollOpened(let poll) = try #require(decision.events.first).change else {
            Issue.record("no poll opened")
            return 0
        }
        #expect(decision.actions == [.refreshResults(pollId: poll.id)])
        return poll.id
    }

    @Test mutating func aRetriedAnswerCountsOnceEvenAfterANewerOne() throws {
        let poll = try openPoll()
        let first = try state.take(.answer(pollId: poll, .choices([0])), id: "a1", from: ada, at: 101)
        #expect(first.outcome == .recorded(seq: 1))
        #expect(first.records == [.answer(pollId: poll, viewerId: "ada", .choices([0]))])
        #expect(first.actions == [.tellAnswer(pollId: poll, viewerId: "ada"), .refreshResults(pollId: poll)])
        #expect(first.commandKey == "ada/a1")
        _ = try state.take(.answer(pollId: poll, .choices([1])), id: "a2", from: ada, at: 102)
        // The acknowledgement of a1 was lost; the client sends it again, as the protocol says it may.
        let retry = try state.take(.answer(pollId: poll, .choices([0])), id: "a1", from: ada, at: 103)
        #expect(retry.outcome == .duplicate(seq: 1))
        #expect(retry.records.isEmpty && retry.actions.isEmpty)
        #expect(state.polls.tallies[poll]?.answers["ada"] == .choices([1]))
    }

    @Test mutating func viewersChooseTheirOwnIdsAndTheyDoNotCollide() throws {
        let poll = try openPoll()
        _ = try state.take(.answer(pollId: poll, .choices([0])), id: "1", from: ada, at: 101)
        let bobs = try state.take(.answer(pollId: poll, .choices([1])), id: "1", from: bob, at: 101)
        #expect(bobs.outcome == .recorded(seq: 1))
        #expect(state.polls.tallies[poll]?.counts == [1, 1])
    }

    @Test mutating func anUnchangedAnswerStoresNothing() throws {
        let poll = try openPoll()
        _ = try state.take(.answer(pollId: poll, .choices([0])), id: "a1", from: ada, at: 101)
        let same = try state.take(.answer(pollId: poll, .choices([0])), id: "a2", from: ada, at: 102)
        #expect(same.outcome == .unchanged(seq: 1))
        #expect(!same.changesSomething)
    }

    @Test mutating func quizSpeedComesFromTheTimeOfTheCommands() throws {
        let poll = try openPoll(quiz: true)
        _ = try state.take(.answer(pollId: poll, .choices([0])), id: "fast", from: ada, at: 100)
        _ = try state.take(.answer(pollId: poll, .choices([0])), id: "slow", from: bob, at: 130)
        let closed = try state.take(.closePoll(pollId: poll), id: "close", from: host, at: 131)
        #expect(closed.actions == [.refreshLeaderboard])
        #expect(state.quizScores == ["ada": 1000, "bob": 500])
    }

    @Test mutating func questionsAndVotesSayWhatToRefresh() throws {
        _ = try state.take(.setQuestionMode(QuestionMode(isPublic: true)), id: "mode", from: host, at: 0)
        let asked = try state.take(.ask(id: "q1", text: " Why? ", page: 2, anonymous: false), id: "q1", from: ada, at: 5)
        #expect(asked.actions == [.refreshQuestions, .refreshViewerList])
        guard case .question(let question) = try #require(asked.records.first) else { throw SessionError.badMessage }
        #expect(question.text == "Why?" && question.askedAt == Date(timeIntervalSince1970: 5))
        let vote = try state.take(.vote(questionId: "q1", up: true), id: "v1", from: bob, at: 6)
        #expect(vote.actions == [.tellVotes(viewerId: "bob"), .refreshQuestions])
        #expect(try state.take(.vote(questionId: "q1", up: true), id: "v2", from: bob, at: 7).outcome == .unchanged(seq: 1))
        let marked = try state.take(.markQuestion(questionId: "q1", answered: true), id: "m1", from: host, at: 8)
        #expect(marked.records == [.questionAnswered(questionId: "q1", true)])
        #expect(throws: SessionError.forbidden) {
            try state.take(.markQuestion(questionId: "q1", answered: false), id: "m2", from: ada, at: 9)
        }
        #expect(throws: SessionError.forbidden) {
            try state.take(.ask(id: "q2", text: "Hi", page: nil, anonymous: false), id: "q2", from: host, at: 9)
        }
    }

    @Test mutating func endingSaysSo() throws {
        let ended = try state.take(.end, id: "end", from: host, at: 0)
        #expect(ended.actions == [.ended])
        #expect(throws: SessionError.ended) {
            try state.take(.ask(id: "q", text: "Late?", page: nil, anonymous: false), id: "q", from: ada, at: 1)
        }
    }

    @Test func aSessionNeedsNoDeckToExist() throws {
        var empty = SessionState(pageCount: 0)
        #expect(empty.stageContent == nil)
        #expect(throws: SessionError.noDeck) { try empty.take(.goto(page: 1), id: "g", from: Actor(.presenter), at: 0) }
        #expect(throws: SessionError.noDeck) { try empty.pointer(PagePoint(x: 0.5, y: 0.5), by: .presenter) }
        // Everything that is not about the stage works.
        let opened = try empty.take(
            .openPoll(Poll(kind: .open, question: "Ideas?")), id: "p", from: Actor(.presenter), at: 0)
        #expect(opened.events.count == 1)
    }

    @Test mutating func pointerAndInkAddressTheContentOnStage() throws {
        _ = try state.take(.goto(page: 2), id: "g", from: host, at: 0)
        #expect(state.stageContent == .deckPage(deck: nil, page: 2))
        #expect(try state.pointer(PagePoint(x: 0.1, y: 0.2), by: .presenter).content == .deckPage(deck: nil, page: 2))
        let stroke = Stroke(id: "s", page: 3, tool: .pen, color: "#FF0000", width: 0.01, points: [[0.1, 0.1], [0.2, 0.2]])
        #expect(stroke.content == .deckPage(deck: nil, page: 3))
        #expect(state.contains(stroke.content))
        #expect(!state.contains(.deckPage(deck: nil, page: 4)))
        #expect(!state.contains(.deckPage(deck: "another", page: 1)))
    }

    @Test mutating func anotherNodesEventsAreCaughtUpWithTheirFollowUps() throws {
        var elsewhere = state
        let decision = try elsewhere.take(
            .openPoll(Poll(kind: .choice, question: "Tea?", choices: ["Yes", "No"])), id: "open", from: host, at: 7)
        let event = try #require(decision.events.first)
        let actions = try state.catchUp(
            with: StoredEvent(event: event, commandID: "open", at: Date(timeIntervalSince1970: 7)))
        #expect(actions == [.refreshResults(pollId: event.seq)])
        #expect(state == elsewhere)
        // The command id came with it: a retry here counts once.
        #expect(try state.take(.lock(false), id: "open", from: host, at: 8).outcome == .duplicate(seq: 1))
        #expect(throws: SessionError.self) { try state.catchUp(with: StoredEvent(event: event, commandID: nil)) }
    }
}
