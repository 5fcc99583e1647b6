import Foundation
import Testing

@testable import PodiumCore

/// A room's talks (issue 36): a countdown per talk, set per presenter or one default, warnings
/// before the end, the countdown on the projector when the chair wants, and time on stage that adds
/// up across lends and turns instead of starting again at every control change.
@Suite("Room talks")
struct RoomTalkTests {
    var room = SessionState(roomWithCommandMemory: 64)
    var nextID = 0
    /// Every event so far, in order.
    var history: [SessionEvent] = []

    init() throws {
        _ = try run(.room(.join(name: "Ann")), .presenter, "ann")
        _ = try run(.room(.join(name: "Bob")), .presenter, "bob")
    }

    @discardableResult
    mutating func run(_ command: SessionCommand, _ role: Role, _ presenter: String? = nil, at time: Double = 0)
        throws(SessionError) -> [SessionChange]
    {
        nextID += 1
        guard case .applied(let events) = try room.handle(command, id: "c\(nextID)", by: role, presenterId: presenter, at: time)
        else { return [] }
        history += events
        return events.map(\.change)
    }

    var snapshot: RoomSnapshot { room.snapshot.room ?? RoomSnapshot() }

    @Test mutating func theModeratorSetsTalkLengthsPerPresenterOrOneDefault() throws {
        #expect(
            try run(.room(.setTalkLength(presenterId: nil, seconds: 1200)), .moderator, at: 5)
                == [.room(.talkLength(presenterId: nil, seconds: 1200), at: 5)])
        try run(.room(.setTalkLength(presenterId: "ann", seconds: 600)), .moderator)
        #expect(snapshot.talks.length(of: "ann") == 600)
        #expect(snapshot.talks.length(of: "bob") == 1200)
        // The same again changes nothing; nil takes a presenter back to the default.
        #expect(try run(.room(.setTalkLength(presenterId: "ann", seconds: 600)), .moderator).isEmpty)
        try run(.room(.setTalkLength(presenterId: "ann", seconds: nil)), .moderator)
        #expect(snapshot.talks.length(of: "ann") == 1200)
        #expect(snapshot.talks.lengths.isEmpty)
        try run(.room(.setTalkLength(presenterId: nil, seconds: nil)), .moderator)
        #expect(snapshot.talks.length(of: "ann") == nil)

        #expect(throws: SessionError.forbidden) {
            try self.run(.room(.setTalkLength(presenterId: "ann", seconds: 60)), .presenter, "ann")
        }
        #expect(throws: SessionError.notInRoom) {
            try self.run(.room(.setTalkLength(presenterId: "stranger", seconds: 60)), .moderator)
        }
        #expect(throws: SessionError.self) { try self.run(.room(.setTalkLength(presenterId: nil, seconds: 0)), .moderator) }
        #expect(throws: SessionError.self) {
            try self.run(.room(.setTalkLength(presenterId: nil, seconds: RoomTalks.maxLength + 1)), .moderator)
        }
    }

    @Test mutating func theChairPutsTheCountdownOnTheProjector() throws {
        #expect(!snapshot.talks.onProjector)
        #expect(try run(.room(.showTalkTimer(true)), .moderator, at: 7) == [.room(.talkTimerShown(true), at: 7)])
        #expect(snapshot.talks.onProjector)
        #expect(try run(.room(.showTalkTimer(true)), .moderator).isEmpty)
        #expect(throws: SessionError.forbidden) { try self.run(.room(.showTalkTimer(false)), .presenter, "ann") }
        try run(.end, .moderator)
        #expect(throws: SessionError.ended) { try self.run(.room(.showTalkTimer(false)), .moderator) }
    }

    /// The defect: the timer started again at 0:00 at every control change (a lend, its return).
    @Test mutating func timeOnStageAddsUpAcrossLendsAndTurns() throws {
        #expect(snapshot.talkClock(at: 100) == nil)  // the moderator's stage: no talk
        try run(.room(.grant(presenterId: "ann")), .moderator, at: 1000)
        #expect(snapshot.talkClock(at: 1030)?.elapsed == 30)
        // Ann lends the stage to Bob for a question: her talk runs on, in her time.
        try run(.room(.pass(presenterId: "bob")), .presenter, "ann", at: 1060)
        #expect(snapshot.talkClock(at: 1090) == TalkClock(presenter: "ann", elapsed: 90, length: nil))
        try run(.room(.returnControl), .presenter, "bob", at: 1120)
        #expect(snapshot.talkClock(at: 1150)?.elapsed == 150)
        // Bob's own turn starts at 0:00 and Ann keeps her 200 seconds.
        try run(.room(.grant(presenterId: "bob")), .moderator, at: 1200)
        #expect(snapshot.talkClock(at: 1230) == TalkClock(presenter: "bob", elapsed: 30, length: nil))
        #expect(snapshot.timeOnStage(of: "ann", at: 1230) == 200)
        // The moderator takes the stage a moment, then gives Ann her talk back where it was.
        try run(.room(.withdraw), .moderator, at: 1240)
        #expect(snapshot.talkClock(at: 1250) == nil)
        try run(.room(.grant(presenterId: "ann")), .moderator, at: 1300)
        #expect(snapshot.talkClock(at: 1310)?.elapsed == 210)
        #expect(snapshot.timeOnStage(of: "bob", at: 1310) == 40)

        // Every client rebuilds the same from the events (their `at`), as after a restart.
        let replay = try SessionState(
            pageCount: 0, room: true, replaying: history.map { StoredEvent(event: $0, commandID: nil) })
        #expect(replay.snapshot.room?.talks.used == ["ann": 200, "bob": 40])
        #expect(replay.snapshot == room.snapshot)
    }

    @Test func theCountdownWarnsAtTwoMinutesAndThirtySecondsAndWhenOver() {
        let talk = { (elapsed: Double) in TalkClock(presenter: "ann", elapsed: elapsed, length: 600) }
        #expect(talk(100).phase == .running)
        #expect(talk(100).remaining == 500)
        #expect(talk(480).phase == .warning)
        #expect(talk(569).phase == .warning)
        #expect(talk(570).phase == .closing)
        #expect(talk(600).phase == .closing)
        #expect(talk(601).phase == .over)
        #expect(talk(601).remaining == -1)
        #expect(TalkClock(presenter: "ann", elapsed: 9999, length: nil).phase == .running)
    }

    @Test mutating func theBorrowersTalkIsTheLendersAndItsLengthHers() throws {
        try run(.room(.setTalkLength(presenterId: nil, seconds: 900)), .moderator)
        try run(.room(.setTalkLength(presenterId: "ann", seconds: 300)), .moderator)
        try run(.room(.grant(presenterId: "ann")), .moderator, at: 0)
        try run(.room(.pass(presenterId: "bob")), .presenter, "ann", at: 100)
        let clock = try #require(snapshot.talkClock(at: 190))
        #expect(clock.presenter == "ann" && clock.length == 300 && clock.remaining == 110)
        #expect(clock.phase == .warning)
    }

    @Test func theWireFormat() throws {
        let decoded = try JSONDecoder().decode(
            ClientMessage.self, from: Data(#"{"type":"setTalkLength","id":"c1","presenterId":null,"seconds":1200}"#.utf8))
        #expect(decoded == .command(id: "c1", .room(.setTalkLength(presenterId: nil, seconds: 1200))))
        let shown = try JSONDecoder().decode(
            ClientMessage.self, from: Data(#"{"type":"showTalkTimer","id":"c2","on":true}"#.utf8))
        #expect(shown == .command(id: "c2", .room(.showTalkTimer(true))))
        let event = SessionEvent(seq: 3, change: .room(.talkLength(presenterId: "p1", seconds: nil), at: 10))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(event), as: UTF8.self)
        #expect(text == #"{"at":10,"presenterId":"p1","seconds":null,"seq":3,"type":"talkLength"}"#)
        #expect(try JSONDecoder().decode(SessionEvent.self, from: Data(text.utf8)) == event)
        // A snapshot stored before talks existed still reads.
        var old = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(RoomSnapshot())) as? [String: Any] ?? [:]
        old["talks"] = nil
        let read = try JSONDecoder().decode(RoomSnapshot.self, from: try JSONSerialization.data(withJSONObject: old))
        #expect(read.talks == RoomTalks())
    }
}
