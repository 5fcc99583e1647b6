import Foundation
import Testing

@testable import PodiumCore

/// Where a poll's results are, as one state (#36): hidden from the audience, on every viewer's
/// device (`showResults` → `resultsShown`), or on the big screen too (the `pollResults` spotlight,
/// which implies the phones).
@Suite("Results shown: one state for where a poll's results are")
struct ResultsShownTests {
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

    @Test mutating func theHostShowsResultsOnPhonesAndHidesThemAgain() throws {
        let poll = try open(Self.choice)
        #expect(!state.snapshot.viewersSeeTally(of: poll))
        let shown = try run(.showResults(pollId: poll, shown: true))
        #expect(shown.events.map(\.change) == [.resultsShown(pollId: poll, shown: true)])
        #expect(shown.actions == [.refreshResults(pollId: poll)])
        #expect(state.snapshot.poll(poll)?.status == .open, "voting goes on")
        #expect(state.snapshot.viewersSeeTally(of: poll))
        #expect(try run(.showResults(pollId: poll, shown: true)).events.isEmpty)
        let hidden = try run(.showResults(pollId: poll, shown: false))
        #expect(hidden.events.map(\.change) == [.resultsShown(pollId: poll, shown: false)])
        #expect(!state.snapshot.viewersSeeTally(of: poll))
        #expect(try run(.showResults(pollId: poll, shown: false)).events.isEmpty)
    }

    @Test mutating func hidingRevealedResultsHidesThemAndTakesTheChartOffScreen() throws {
        let poll = try open(Self.choice)
        _ = try run(.revealPoll(pollId: poll, results: true))
        #expect(state.snapshot.poll(poll)?.resultsRevealed == true)
        _ = try run(.spotlight(.pollResults(poll)))
        let hidden = try run(.showResults(pollId: poll, shown: false))
        #expect(hidden.events.map(\.change) == [.resultsShown(pollId: poll, shown: false), .spotlight(nil)])
        #expect(state.snapshot.spotlight == nil)
        #expect(state.snapshot.poll(poll)?.resultsRevealed == false)
        #expect(state.snapshot.poll(poll)?.status == .revealed, "the right answer stays revealed")
        #expect(!state.snapshot.viewersSeeTally(of: poll))
    }

    @Test mutating func onlyWhoeverRunsThePollsDecides() throws {
        let poll = try open(Self.choice)
        #expect(throws: SessionError.forbidden) { try self.run(.showResults(pollId: poll, shown: true), .viewer) }
        #expect(throws: SessionError.pollNotFound) { try self.run(.showResults(pollId: 999, shown: true)) }
    }

    @Test func itsWireForms() throws {
        let command = try JSONDecoder().decode(
            ClientMessage.self, from: Data(#"{"type":"showResults","id":"c1","pollId":3,"shown":true}"#.utf8))
        #expect(command == .command(id: "c1", .showResults(pollId: 3, shown: true)))
        let again = try JSONDecoder().decode(ClientMessage.self, from: JSONEncoder().encode(command))
        #expect(again == command)
        let event = SessionEvent(seq: 7, change: .resultsShown(pollId: 3, shown: false))
        let json = try #require(String(data: JSONEncoder().encode(event), encoding: .utf8))
        #expect(json.contains(#""type":"resultsShown""#) && json.contains(#""shown":false"#))
        #expect(try JSONDecoder().decode(SessionEvent.self, from: Data(json.utf8)) == event)
    }
}
