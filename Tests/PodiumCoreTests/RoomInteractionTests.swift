import Foundation
import Testing

@testable import PodiumCore

/// Polls and questions in a room: the moderator runs them, the presenter in control runs polls
/// too, and each question knows whose turn it came in (from the room's control changes).
@Suite("Room interaction")
struct RoomInteractionTests {
    var room = SessionState(roomWithCommandMemory: 64)
    /// Every event with the time it was taken, as the store keeps them.
    var stored: [StoredEvent] = []
    var nextID = 0

    mutating func run(_ command: SessionCommand, _ actor: Actor, at time: Double = 0) throws(SessionError) {
        nextID += 1
        let decision = try room.take(command, id: "c\(nextID)", from: actor, at: time)
        stored += decision.events.map { StoredEvent(event: $0, commandID: nil, at: Date(timeIntervalSince1970: time)) }
    }

    static let moderator = Actor(.moderator)
    static let ann = Actor(.presenter, presenterId: "ann")
    static let bob = Actor(.presenter, presenterId: "bob")
    static func viewer(_ id: String) -> Actor { Actor(.viewer, viewerId: id) }
    static let poll = Poll(kind: .choice, question: "Tea?", choices: ["Yes", "No"])

    /// Ann and Bob joined; the moderator has the stage.
    mutating func populate() throws {
        try run(.room(.join(name: "Ann")), Self.ann, at: 1)
        try run(.room(.join(name: "Bob")), Self.bob, at: 2)
    }

    mutating func ask(_ id: String, at time: Double) throws {
        try run(.ask(id: id, text: "Question \(id)?", page: nil, anonymous: false), Self.viewer("v1"), at: time)
    }

    @Test mutating func eachQuestionKnowsWhoseTurnItCameIn() throws {
        try populate()
        try ask("q-moderator", at: 10)
        try run(.room(.grant(presenterId: "ann")), Self.moderator, at: 20)
        try ask("q-ann", at: 25)
        // Ann lends the stage to Bob for a demo: a question then is Bob's.
        try run(.room(.pass(presenterId: "bob")), Self.ann, at: 30)
        try ask("q-bob", at: 35)
        try run(.room(.returnControl), Self.bob, at: 40)
        try ask("q-ann-2", at: 45)
        try run(.room(.withdraw), Self.moderator, at: 50)
        try ask("q-moderator-2", at: 55)

        let presenters = room.questions.all.map { [$0.id: $0.presenter ?? "moderator"] }
        #expect(
            presenters == [
                ["q-moderator": "moderator"], ["q-ann": "ann"], ["q-bob": "bob"], ["q-ann-2": "ann"],
                ["q-moderator-2": "moderator"],
            ])
        #expect(room.questions(visibleTo: .moderator, presenterId: nil).count == 5)
        #expect(room.questions(visibleTo: .presenter, presenterId: "ann").map(\.id) == ["q-ann", "q-ann-2"])
        #expect(room.questions(visibleTo: .presenter, presenterId: "bob").map(\.id) == ["q-bob"])
        #expect(room.questions(visibleTo: .viewer, presenterId: nil).isEmpty)
        #expect(room.seesHostViews(.presenter) && room.seesHostViews(.moderator) && !room.seesHostViews(.viewer))

        // After a restart the events are replayed with their times and the questions restored as
        // stored (without a presenter): each is given to the same turn again.
        var restarted = try SessionState(pageCount: 0, room: true, replaying: stored)
        for var question in room.questions.all {
            question.presenter = nil
            restarted.restore(.question(question), at: question.askedAt.timeIntervalSince1970)
        }
        #expect(restarted.questions.all.map(\.presenter) == room.questions.all.map(\.presenter))
    }

    @Test mutating func theModeratorAndThePresenterInControlRunPolls() throws {
        try populate()
        try run(.openPoll(Self.poll), Self.moderator, at: 5)
        #expect(room.snapshot.openPoll != nil)
        // Ann is not in control: she may not.
        #expect(throws: SessionError.forbidden) { try self.run(.openPoll(Self.poll), Self.ann, at: 6) }
        #expect(throws: SessionError.forbidden) { try self.run(.openPoll(Self.poll), Self.viewer("v1"), at: 6) }
        try run(.room(.grant(presenterId: "ann")), Self.moderator, at: 10)
        try run(.openPoll(Self.poll), Self.ann, at: 11)
        let pollId = try #require(room.snapshot.openPoll?.poll.id)
        #expect(throws: SessionError.forbidden) { try self.run(.closePoll(pollId: pollId), Self.bob, at: 12) }
        try run(.revealPoll(pollId: pollId, results: true), Self.ann, at: 12)
        #expect(room.snapshot.poll(pollId)?.status == .revealed)
        // The moderator always may; the rest of running the room stays the moderator's.
        try run(.closePoll(pollId: pollId), Self.moderator, at: 13)
        #expect(throws: SessionError.forbidden) { try self.run(.lock(false), Self.ann, at: 14) }
        #expect(throws: SessionError.forbidden) {
            try self.run(.setQuestionMode(QuestionMode(isPublic: true)), Self.ann, at: 14)
        }
    }

    @Test mutating func aPresenterHandlesTheQuestionsOfTheirTurns() throws {
        try populate()
        try run(.room(.grant(presenterId: "ann")), Self.moderator, at: 10)
        try ask("q-ann", at: 11)
        try run(.room(.grant(presenterId: "bob")), Self.moderator, at: 20)
        try ask("q-bob", at: 21)
        // Ann, no longer on stage, still marks the question of her turn answered; not Bob's.
        try run(.markQuestion(questionId: "q-ann", answered: true), Self.ann, at: 22)
        #expect(room.questions.question("q-ann")?.answered == true)
        #expect(throws: SessionError.forbidden) {
            try self.run(.markQuestion(questionId: "q-bob", answered: true), Self.ann, at: 23)
        }
        try run(.markQuestion(questionId: "q-bob", answered: true), Self.moderator, at: 24)
        #expect(room.questions.question("q-bob")?.answered == true)
    }

    @Test mutating func aQuestionAboutTheSlideWhileNothingIsShownIsAboutNoSlide() throws {
        try run(.ask(id: "q", text: "Hello?", page: 1, anonymous: false), Self.viewer("v1"), at: 1)
        #expect(room.questions.question("q")?.page == nil)
    }

    @Test func turnsAnswerByTime() {
        var turns = RoomTurns()
        turns.record(.room(.control(active: "ann", lender: nil), at: 10))
        turns.record(.room(.requested(presenterId: "bob"), at: 12))
        turns.record(.room(.control(active: nil, lender: nil), at: 20))
        #expect(turns.presenter(at: 5) == nil)
        #expect(turns.presenter(at: 10) == "ann")
        #expect(turns.presenter(at: 19.9) == "ann")
        #expect(turns.presenter(at: 20) == nil)
    }
}
