import Foundation
import Testing

@testable import PodiumCore

@Suite("Polls and audience questions")
struct PollTests {
    var state = SessionState(pageCount: 5)
    let choice = Poll(kind: .choice, question: "Best planet?", choices: ["Mars", "Earth", "Venus"], correct: [1])

    mutating func open(_ poll: Poll) throws -> Int {
        guard case .applied(let events) = try state.handle(.openPoll(poll), id: UUID().uuidString, by: .presenter),
            case .pollOpened(let opened) = events.last?.change
        else { throw SessionError.invalidPoll }
        return opened.id
    }

    @Test mutating func aPollIsNumberedByTheSeqThatOpensIt() throws {
        _ = try state.handle(.goto(page: 2), id: "g", by: .presenter)
        let id = try open(choice)
        #expect(id == 2)
        #expect(state.snapshot.openPoll?.poll.id == 2)
        #expect(state.snapshot.openPoll?.status == .open)
    }

    @Test(arguments: [
        Poll(kind: .choice, question: "One choice", choices: ["A"]),
        Poll(kind: .choice, question: "Nine", choices: Array(repeating: "x", count: 9)),
        Poll(kind: .choice, question: "  ", choices: ["A", "B"]),
        Poll(kind: .choice, question: "Empty choice", choices: ["A", " "]),
        Poll(kind: .choice, question: "Bad correct", choices: ["A", "B"], correct: [2]),
        Poll(kind: .choice, question: "Two right, single answer", choices: ["A", "B"], multiple: false, correct: [0, 1]),
        Poll(kind: .open, question: "Open with choices", choices: ["A", "B"]),
    ])
    mutating func invalidPollsAreRefused(poll: Poll) {
        #expect(throws: SessionError.invalidPoll) { try state.handle(.openPoll(poll), id: "p", by: .presenter) }
        #expect(state.seq == 0)
    }

    @Test mutating func onlyPresentersRunPolls() throws {
        #expect(throws: SessionError.forbidden) { try state.handle(.openPoll(choice), id: "p", by: .viewer) }
        let id = try open(choice)
        #expect(throws: SessionError.forbidden) { try state.handle(.closePoll(pollId: id), id: "c", by: .viewer) }
        #expect(throws: SessionError.forbidden) { try state.answer(pollId: id, .choices([0]), viewer: "p", by: .presenter) }
    }

    @Test mutating func oneAnswerPerIdentityChangeableUntilClosed() throws {
        let id = try open(choice)
        #expect(try state.answer(pollId: id, .choices([0]), viewer: "ada", by: .viewer))
        #expect(try state.answer(pollId: id, .choices([2]), viewer: "bob", by: .viewer))
        // A retry of the same answer changes nothing; a new choice replaces the old one.
        #expect(try !state.answer(pollId: id, .choices([0]), viewer: "ada", by: .viewer))
        #expect(try state.answer(pollId: id, .choices([1]), viewer: "ada", by: .viewer))
        #expect(state.polls.tallies[id]?.counts == [0, 1, 1])
        #expect(state.polls.tallies[id]?.answeredCount == 2)

        _ = try state.handle(.closePoll(pollId: id), id: "close", by: .presenter)
        #expect(throws: SessionError.pollClosed) { try state.answer(pollId: id, .choices([0]), viewer: "ada", by: .viewer) }
        #expect(state.polls.tallies[id]?.counts == [0, 1, 1])
    }

    @Test mutating func answersMustFitThePoll() throws {
        let single = try open(choice)
        for bad: PollAnswer in [.choices([]), .choices([3]), .choices([-1]), .choices([0, 1]), .choices([0, 0]), .text("Mars")] {
            #expect(throws: SessionError.invalidAnswer) { try state.answer(pollId: single, bad, viewer: "v", by: .viewer) }
        }
        #expect(throws: SessionError.pollNotFound) { try state.answer(pollId: 99, .choices([0]), viewer: "v", by: .viewer) }
        let multiple = try open(
            Poll(kind: .choice, question: "Which?", choices: ["A", "B", "C"], multiple: true, correct: [0, 2]))
        #expect(try state.answer(pollId: multiple, .choices([2, 0]), viewer: "v", by: .viewer))
        #expect(state.polls.tallies[multiple]?.counts == [1, 0, 1])
        // Opening the second poll closed the first.
        #expect(state.snapshot.poll(single)?.status == .closed)
        let open = try open(Poll(kind: .open, question: "Why?"))
        #expect(throws: SessionError.invalidAnswer) { try state.answer(pollId: open, .text("   "), viewer: "v", by: .viewer) }
        #expect(throws: SessionError.invalidAnswer) {
            try state.answer(pollId: open, .text(String(repeating: "x", count: 501)), viewer: "v", by: .viewer)
        }
        #expect(throws: SessionError.invalidAnswer) { try state.answer(pollId: open, .choices([0]), viewer: "v", by: .viewer) }
    }

    @Test mutating func theRightAnswerStaysHiddenFromViewersUntilRevealed() throws {
        let id = try open(choice)
        let opened = try #require(state.snapshot.poll(id))
        #expect(opened.poll.correct == [1])
        #expect(opened.forViewers.poll.correct == [])
        #expect(state.snapshot.forViewers.polls.first?.poll.correct == [])
        let event = SessionEvent(seq: 1, change: .pollOpened(opened.poll))
        #expect(event.forViewers.change == .pollOpened(opened.poll.forViewers(revealed: false)))

        let reveal = try state.handle(.revealPoll(pollId: id, results: false), id: "r", by: .presenter)
        #expect(reveal == .applied([SessionEvent(seq: 2, change: .pollRevealed(pollId: id, correct: [1], results: false))]))
        #expect(state.snapshot.poll(id)?.status == .revealed)
        #expect(state.snapshot.poll(id)?.resultsRevealed == false)
        #expect(state.snapshot.forViewers.poll(id)?.poll.correct == [1])
        #expect(throws: SessionError.pollClosed) { try state.answer(pollId: id, .choices([0]), viewer: "late", by: .viewer) }
        // Then "reveal answer and results"; again changes nothing.
        #expect(try state.handle(.revealPoll(pollId: id, results: true), id: "r2", by: .presenter).ackSeq == 3)
        #expect(state.snapshot.poll(id)?.resultsRevealed == true)
        #expect(try state.handle(.revealPoll(pollId: id, results: true), id: "r3", by: .presenter) == .unchanged(seq: 3))
    }

    @Test mutating func resultsAreVisibleToViewersOnlyWhenThePresenterAllows() throws {
        let hidden = try open(choice)
        #expect(state.snapshot.poll(hidden)?.resultsVisibleToViewers == false)
        _ = try state.handle(.revealPoll(pollId: hidden, results: true), id: "r", by: .presenter)
        #expect(state.snapshot.poll(hidden)?.resultsVisibleToViewers == true)
        var live = choice
        live.showResults = true
        let shown = try open(live)
        #expect(state.snapshot.poll(shown)?.resultsVisibleToViewers == true)
    }

    @Test mutating func openAnswersHaveStableIdsAndCanBeShared() throws {
        let id = try open(Poll(kind: .open, question: "One word for today?"))
        _ = try state.answer(pollId: id, .text("  Inspiring "), viewer: "ada", by: .viewer)
        _ = try state.answer(pollId: id, .text("Long"), viewer: "bob", by: .viewer)
        _ = try state.answer(pollId: id, .text("Fun"), viewer: "ada", by: .viewer)
        let answers = try #require(state.polls.tallies[id]?.openAnswers)
        #expect(answers == [SharedAnswer(answerId: "\(id)-2", text: "Long"), SharedAnswer(answerId: "\(id)-1", text: "Fun")])
        let shared = try state.handle(.shareAnswer(pollId: id, answerId: "\(id)-1"), id: "s", by: .presenter)
        #expect(shared.ackSeq == 2)
        #expect(state.snapshot.poll(id)?.shared == [SharedAnswer(answerId: "\(id)-1", text: "Fun")])
        #expect(throws: SessionError.answerNotFound) {
            try state.handle(.shareAnswer(pollId: id, answerId: "\(id)-9"), id: "s2", by: .presenter)
        }
    }

    @Test mutating func endingClosesTheOpenPoll() throws {
        let id = try open(choice)
        _ = try state.handle(.end, id: "e", by: .presenter)
        #expect(state.snapshot.poll(id)?.status == .closed)
    }

    @Test mutating func questionsAreTakenOnceAndKeepTheirAskerPrivate() throws {
        _ = state.registerViewer("cookie-ada", name: "Ada")
        let now = Date(timeIntervalSince1970: 1000)
        let question = try #require(
            try state.ask(
                id: "q1", text: "  What about Pluto? ", page: 3, anonymous: true, viewer: "cookie-ada", at: now, by: .viewer))
        #expect(question.text == "What about Pluto?")
        #expect(question.name == "Ada")
        #expect(question.page == 3)
        #expect(
            try state.ask(
                id: "q1", text: "What about Pluto?", page: 3, anonymous: true, viewer: "cookie-ada", at: now, by: .viewer) == nil)
        #expect(state.questions.all.count == 1)
        #expect(throws: SessionError.invalidQuestion) {
            try state.ask(id: "q2", text: " ", page: nil, anonymous: false, viewer: "v", at: now, by: .viewer)
        }
        #expect(throws: SessionError.invalidPage) {
            try state.ask(id: "q3", text: "Hi", page: 6, anonymous: false, viewer: "v", at: now, by: .viewer)
        }
        #expect(throws: SessionError.forbidden) {
            try state.ask(id: "q4", text: "Hi", page: nil, anonymous: false, viewer: "v", at: now, by: .presenter)
        }

        #expect(throws: SessionError.forbidden) { try state.markQuestion(id: "q1", answered: true, by: .viewer) }
        #expect(try state.markQuestion(id: "q1", answered: true, by: .presenter)?.answered == true)
        #expect(try state.markQuestion(id: "q1", answered: true, by: .presenter) == nil)
        #expect(throws: SessionError.questionNotFound) { try state.markQuestion(id: "nope", answered: true, by: .presenter) }
    }

    @Test mutating func viewersAreGuestsNumberedByArrivalUnlessNamed() {
        #expect(state.registerViewer("a", name: nil).entry.displayName == "Guest 1")
        #expect(state.registerViewer("b", name: "  Bob ").entry.displayName == "Bob")
        #expect(state.registerViewer("a", name: nil).changed == false)
        let renamed = state.registerViewer("a", name: "Ada")
        #expect(renamed.changed && renamed.entry.displayName == "Ada" && renamed.entry.number == 1)
        #expect(state.registerViewer("c", name: "").entry.displayName == "Guest 3")
        #expect(state.viewers.all.map(\.publicId) == ["g1", "g2", "g3"])
    }

    @Test func pollEventsRoundTripOnTheWire() throws {
        let events = [
            SessionEvent(
                seq: 1, change: .pollOpened(Poll(id: 1, kind: .choice, question: "Q", choices: ["A", "B"], correct: [0]))),
            SessionEvent(seq: 2, change: .pollClosed(pollId: 1)),
            SessionEvent(seq: 3, change: .pollRevealed(pollId: 1, correct: [0], results: true)),
            SessionEvent(seq: 4, change: .answerShared(pollId: 5, SharedAnswer(answerId: "5-1", text: "Yes"))),
        ]
        for event in events {
            #expect(try JSONDecoder().decode(SessionEvent.self, from: JSONEncoder().encode(event)) == event)
        }
        let messages: [ClientMessage] = [
            .command(id: "1", .openPoll(Poll(kind: .open, question: "Why?"))), .command(id: "2", .closePoll(pollId: 3)),
            .command(id: "3", .revealPoll(pollId: 3, results: true)), .command(id: "4", .shareAnswer(pollId: 3, answerId: "3-1")),
            .command(id: "5", .answer(pollId: 3, .choices([1]))), .command(id: "6", .answer(pollId: 3, .text("Because"))),
            .command(id: "7", .ask(id: "7", text: "Hm?", page: 2, anonymous: true)),
            .command(id: "8", .markQuestion(questionId: "7", answered: true)),
            .command(id: "9", .approveQuestion(questionId: "7", approved: false)),
            .command(id: "10", .vote(questionId: "7", up: true)),
        ]
        for message in messages {
            #expect(try JSONDecoder().decode(ClientMessage.self, from: JSONEncoder().encode(message)) == message)
        }
    }
}

@Suite("Public questions")
struct PublicQuestionTests {
    var state = SessionState(pageCount: 3)
    let now = Date(timeIntervalSince1970: 0)

    mutating func ask(_ id: String, by viewer: String, anonymous: Bool = false) throws {
        _ = try state.ask(id: id, text: "Question \(id)", page: nil, anonymous: anonymous, viewer: viewer, at: now, by: .viewer)
    }

    @Test mutating func questionsArePrivateUntilThePresenterMakesThemPublic() throws {
        try ask("q1", by: "ada")
        #expect(state.publicQuestions.isEmpty)
        #expect(throws: SessionError.questionNotFound) { try state.vote(questionId: "q1", up: true, viewer: "bob", by: .viewer) }
        #expect(throws: SessionError.forbidden) {
            try state.handle(.setQuestionMode(QuestionMode(isPublic: true)), id: "m", by: .viewer)
        }
        _ = try state.handle(.setQuestionMode(QuestionMode(isPublic: true)), id: "m", by: .presenter)
        #expect(state.publicQuestions.map(\.id) == ["q1"])
    }

    @Test mutating func upvotesCountOncePerIdentityAndOrderTheList() throws {
        _ = try state.handle(.setQuestionMode(QuestionMode(isPublic: true)), id: "m", by: .presenter)
        try ask("q1", by: "ada")
        try ask("q2", by: "bob")
        #expect(try state.vote(questionId: "q2", up: true, viewer: "cyd", by: .viewer))
        #expect(try !state.vote(questionId: "q2", up: true, viewer: "cyd", by: .viewer))
        #expect(state.publicQuestions.map(\.id) == ["q2", "q1"])
        #expect(try state.vote(questionId: "q2", up: false, viewer: "cyd", by: .viewer))
        #expect(state.publicQuestions.map(\.id) == ["q1", "q2"])
        #expect(throws: SessionError.forbidden) { try state.vote(questionId: "q1", up: true, viewer: "p", by: .presenter) }
    }

    @Test mutating func approvalKeepsQuestionsOffTheListUntilApproved() throws {
        _ = try state.handle(.setQuestionMode(QuestionMode(isPublic: true, needsApproval: true)), id: "m", by: .presenter)
        try ask("q1", by: "ada", anonymous: true)
        #expect(state.publicQuestions.isEmpty)
        #expect(throws: SessionError.forbidden) { try state.approveQuestion(id: "q1", approved: true, by: .viewer) }
        #expect(try state.approveQuestion(id: "q1", approved: true, by: .presenter)?.approved == true)
        #expect(state.publicQuestions.map(\.id) == ["q1"])
        let shown = PublicQuestion(state.publicQuestions[0], asker: state.viewerEntry("ada"), votes: 0)
        #expect(shown.name == nil)
    }
}

@Suite("Quiz")
struct QuizTests {
    @Test func rightAnswersScoreMoreTheFasterTheyCome() {
        #expect(QuizScoring.points(correct: true, after: 0) == 1000)
        #expect(QuizScoring.points(correct: true, after: 15) == 750)
        #expect(QuizScoring.points(correct: true, after: 60) == 500)
        #expect(QuizScoring.points(correct: false, after: 0) == 0)
    }

    @Test func aQuizQuestionNeedsARightAnswer() {
        #expect(!Poll(kind: .choice, question: "Q", choices: ["A", "B"], quiz: true).isValid)
        #expect(Poll(kind: .choice, question: "Q", choices: ["A", "B"], correct: [0], quiz: true).isValid)
        #expect(!Poll(kind: .open, question: "Q", quiz: true).isValid)
    }

    @Test func theLeaderboardCountsClosedQuizQuestionsAndSharesRanks() throws {
        var state = SessionState(pageCount: 2)
        for (id, name) in [("a", "Ada"), ("b", "Bob"), ("c", nil), ("d", "Dee")] { _ = state.registerViewer(id, name: name) }
        let quiz = Poll(kind: .choice, question: "2+2", choices: ["3", "4"], correct: [1], quiz: true)
        _ = try state.handle(.openPoll(quiz), id: "q1", by: .presenter)
        _ = try state.answer(pollId: 1, .choices([1]), viewer: "a", after: 0, by: .viewer)
        _ = try state.answer(pollId: 1, .choices([1]), viewer: "b", after: 15, by: .viewer)
        _ = try state.answer(pollId: 1, .choices([1]), viewer: "c", after: 15, by: .viewer)
        _ = try state.answer(pollId: 1, .choices([0]), viewer: "d", after: 1, by: .viewer)
        #expect(state.leaderboard.isEmpty)  // nothing scores while the question is open
        _ = try state.handle(.closePoll(pollId: 1), id: "c1", by: .presenter)
        let board = state.leaderboard
        #expect(board.map(\.name) == ["Ada", "Bob", "Guest 3", "Dee"])
        #expect(board.map(\.score) == [1000, 750, 750, 0])
        #expect(board.map(\.rank) == [1, 2, 2, 4])
        // An opinion poll in between scores nothing.
        _ = try state.handle(.openPoll(Poll(kind: .choice, question: "Fun?", choices: ["Yes", "No"])), id: "o", by: .presenter)
        _ = try state.answer(pollId: 3, .choices([0]), viewer: "d", by: .viewer)
        _ = try state.handle(.closePoll(pollId: 3), id: "c2", by: .presenter)
        #expect(state.quizScores["d"] == 0)
    }
}
