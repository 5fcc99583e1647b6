import Foundation
import Testing

@testable import PodiumCore

/// What the host puts on screen for everyone: the rules of ``SessionState/decideSpotlight(_:)``,
/// its event and wire form, what it makes the server send, and its replay after a restart.
@Suite("Spotlight: results on screen for everyone")
struct SpotlightTests {
    var state = SessionState(pageCount: 3)
    var ids = 0

    mutating func run(_ command: SessionCommand, _ role: Role = .presenter) throws(SessionError) -> SessionDecision {
        ids += 1
        return try state.take(command, id: "c\(ids)", from: Actor(role), at: 1_795_300_000)
    }

    mutating func open(_ poll: Poll) throws -> Int {
        guard case .pollOpened(let opened) = try run(.openPoll(poll)).events.last?.change else { throw SessionError.invalidPoll }
        return opened.id
    }

    static let choice = Poll(kind: .choice, question: "Tea or coffee?", choices: ["Tea", "Coffee"], correct: [1])
    static let quiz = Poll(kind: .choice, question: "2 + 2?", choices: ["3", "4"], correct: [1], quiz: true)
    static let open = Poll(kind: .open, question: "One word for today?")

    @Test mutating func theHostPutsAPollsResultsOnScreenAndTakesThemOff() throws {
        let poll = try open(Self.choice)
        let on = try run(.spotlight(.pollResults(poll)))
        // A chart on the big screen is on every phone too: the poll's results are shown to everyone.
        #expect(on.events.map(\.change) == [.resultsShown(pollId: poll, shown: true), .spotlight(.pollResults(poll))])
        #expect(state.snapshot.spotlight == .pollResults(poll))
        // The tally goes out at once (once), to viewers too.
        #expect(on.actions == [.refreshResults(pollId: poll)])
        #expect(state.snapshot.poll(poll)?.resultsVisibleToViewers == true)
        #expect(state.snapshot.viewersSeeTally(of: poll))
        #expect(!state.snapshot.viewersSeeOpenAnswers(of: poll))
        // The same again changes nothing.
        #expect(try run(.spotlight(.pollResults(poll))).events.isEmpty)
        let off = try run(.spotlight(nil))
        #expect(off.events.map(\.change) == [.spotlight(nil)])
        #expect(state.snapshot.spotlight == nil)
        // Off the big screen, the results stay on the phones until the host hides them.
        #expect(state.snapshot.viewersSeeTally(of: poll))
        #expect(try run(.spotlight(nil)).events.isEmpty)
    }

    @Test mutating func theWordCloudSendsViewersTheAnswersText() throws {
        let poll = try open(Self.open)
        _ = try run(.spotlight(.wordCloud(poll)))
        #expect(state.snapshot.viewersSeeTally(of: poll))
        #expect(state.snapshot.viewersSeeOpenAnswers(of: poll))
        _ = try run(.spotlight(.sharedAnswers(poll)))
        #expect(!state.snapshot.viewersSeeOpenAnswers(of: poll))
        #expect(!state.snapshot.viewersSeeTally(of: poll))
    }

    @Test mutating func whatIsShownMustFitThePoll() throws {
        let choice = try open(Self.choice)
        let open = try open(Self.open)
        #expect(throws: SessionError.invalidSpotlight) { try self.run(.spotlight(.pollResults(open))) }
        #expect(throws: SessionError.invalidSpotlight) { try self.run(.spotlight(.wordCloud(choice))) }
        #expect(throws: SessionError.invalidSpotlight) { try self.run(.spotlight(.sharedAnswers(choice))) }
        #expect(throws: SessionError.pollNotFound) { try self.run(.spotlight(.pollResults(999))) }
        #expect(throws: SessionError.pollNotFound) { try self.run(.spotlight(Spotlight(kind: .wordCloud))) }
        // No quiz yet: no leaderboard.
        #expect(throws: SessionError.invalidSpotlight) { try self.run(.spotlight(.leaderboard)) }
        _ = try self.open(Self.quiz)
        let board = try run(.spotlight(.leaderboard))
        #expect(board.events.map(\.change) == [.spotlight(.leaderboard)])
        #expect(board.actions == [.refreshLeaderboard])
        #expect(state.snapshot.spotlight?.pollId == nil)
    }

    @Test mutating func onlyTheHostDecidesWhatIsOnScreen() throws {
        let poll = try open(Self.choice)
        #expect(throws: SessionError.forbidden) { try self.run(.spotlight(.pollResults(poll)), .viewer) }
        #expect(throws: SessionError.forbidden) { try self.run(.spotlight(nil), .viewer) }
        var room = SessionState(roomWithCommandMemory: 16)
        _ = try room.handle(.openPoll(Self.choice), id: "p", by: .moderator)
        let id = try #require(room.snapshot.polls.first?.poll.id)
        #expect(throws: SessionError.forbidden) {
            try room.handle(.spotlight(.pollResults(id)), id: "s", by: .presenter, presenterId: "ann")
        }
        _ = try room.handle(.spotlight(.pollResults(id)), id: "s2", by: .moderator)
        #expect(room.snapshot.spotlight == .pollResults(id))
    }

    @Test mutating func aQuestionGoesOnScreenWithItsTextAndNoNameWhenAnonymous() throws {
        _ = try state.ask(id: "q1", text: "  Why now? ", page: nil, anonymous: false, viewer: "v1", at: Date(), by: .viewer)
        _ = try state.ask(id: "q2", text: "Who pays?", page: 2, anonymous: true, viewer: "v2", at: Date(), by: .viewer)
        state.restoreViewers([ViewerEntry(id: "v1", number: 1, name: "Ann")])
        _ = try run(.spotlight(.question("q1")))
        #expect(state.snapshot.spotlight == Spotlight(kind: .question, questionId: "q1", text: "Why now?", name: "Ann"))
        _ = try run(.spotlight(.question("q2")))
        #expect(state.snapshot.spotlight == Spotlight(kind: .question, questionId: "q2", text: "Who pays?", name: nil))
        #expect(throws: SessionError.questionNotFound) { try self.run(.spotlight(.question("nope"))) }
        #expect(throws: SessionError.questionNotFound) { try self.run(.spotlight(Spotlight(kind: .question))) }
        // What a client sends beyond the id is the server's to fill in.
        _ = try run(.spotlight(Spotlight(kind: .question, questionId: "q1", text: "Forged", name: "Mallory")))
        #expect(state.snapshot.spotlight?.text == "Why now?")
        #expect(state.snapshot.spotlight?.name == "Ann")
    }

    @Test mutating func anUnapprovedQuestionNeverGoesOnScreen() throws {
        _ = try run(.setQuestionMode(QuestionMode(isPublic: true, needsApproval: true)))
        _ = try state.ask(id: "q1", text: "Pending?", page: nil, anonymous: true, viewer: "v1", at: Date(), by: .viewer)
        #expect(throws: SessionError.questionNotApproved) { try self.run(.spotlight(.question("q1"))) }
        #expect(state.snapshot.spotlight == nil)
        _ = try state.approveQuestion(id: "q1", approved: true, by: .presenter)
        _ = try run(.spotlight(.question("q1")))
        #expect(state.snapshot.spotlight?.questionId == "q1")
        // Withdrawing the approval takes it off the screen, in the same command.
        let withdrawn = try run(.approveQuestion(questionId: "q1", approved: false))
        #expect(withdrawn.events.map(\.change) == [.spotlight(nil)])
        #expect(withdrawn.records == [.questionApproved(questionId: "q1", false)])
        #expect(state.snapshot.spotlight == nil)
    }

    @Test mutating func switchingApprovalOnTakesAnUnapprovedQuestionOffTheScreen() throws {
        _ = try state.ask(id: "q1", text: "Open mode?", page: nil, anonymous: true, viewer: "v1", at: Date(), by: .viewer)
        _ = try run(.spotlight(.question("q1")))
        let switched = try run(.setQuestionMode(QuestionMode(isPublic: true, needsApproval: true)))
        #expect(
            switched.events.map(\.change) == [.questionMode(QuestionMode(isPublic: true, needsApproval: true)), .spotlight(nil)])
        #expect(state.snapshot.spotlight == nil)
    }

    @Test mutating func endingTheSessionTakesItOffAndRefusesMore() throws {
        let poll = try open(Self.choice)
        _ = try run(.spotlight(.pollResults(poll)))
        _ = try run(.end)
        #expect(state.snapshot.spotlight == nil)
        #expect(throws: SessionError.ended) { try self.run(.spotlight(.pollResults(poll))) }
    }

    @Test func theWireFormIsFlatWithAnExplicitNullForNothing() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let on = SessionEvent(seq: 7, change: .spotlight(Spotlight(kind: .question, questionId: "q1", text: "Why?")))
        #expect(
            String(decoding: try encoder.encode(on), as: UTF8.self)
                == #"{"seq":7,"spotlight":{"kind":"question","questionId":"q1","text":"Why?"},"type":"spotlight"}"#)
        let off = SessionEvent(seq: 8, change: .spotlight(nil))
        #expect(String(decoding: try encoder.encode(off), as: UTF8.self) == #"{"seq":8,"spotlight":null,"type":"spotlight"}"#)
        for event in [on, off] {
            #expect(try JSONDecoder().decode(SessionEvent.self, from: encoder.encode(event)) == event)
        }
        let command = try JSONDecoder().decode(
            ClientMessage.self, from: Data(#"{"type":"spotlight","id":"c1","spotlight":{"kind":"wordCloud","pollId":4}}"#.utf8))
        #expect(command == .command(id: "c1", .spotlight(.wordCloud(4))))
        let clear = try JSONDecoder().decode(
            ClientMessage.self, from: Data(#"{"type":"spotlight","id":"c2","spotlight":null}"#.utf8))
        #expect(clear == .command(id: "c2", .spotlight(nil)))
        #expect(try JSONDecoder().decode(ClientMessage.self, from: encoder.encode(command)) == command)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(
                ClientMessage.self, from: Data(#"{"type":"spotlight","id":"c3","spotlight":{"kind":"chart"}}"#.utf8))
        }
    }

    @Test mutating func aRestartedSessionShowsTheSameSpotlight() throws {
        let poll = try open(Self.choice)
        var stored: [StoredEvent] = []
        stored += try run(.spotlight(.pollResults(poll))).events.map { StoredEvent(event: $0, commandID: nil) }
        let all =
            [StoredEvent(event: SessionEvent(seq: 1, change: .pollOpened(state.snapshot.polls[0].poll)), commandID: nil)] + stored
        let replayed = try SessionState(pageCount: 3, replaying: all)
        #expect(replayed.snapshot.spotlight == .pollResults(poll))
        #expect(replayed.snapshot == state.snapshot)
    }

    @Test mutating func pollsAreNumberedInTheirOrder() throws {
        _ = try run(.goto(page: 2))
        let first = try open(Self.choice)
        let second = try open(Self.open)
        #expect(first == 2 && second == 3)
        #expect(state.snapshot.pollNumber(first) == 1)
        #expect(state.snapshot.pollNumber(second) == 2)
        #expect(state.snapshot.pollNumber(99) == nil)
    }
}
