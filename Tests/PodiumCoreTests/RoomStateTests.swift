import Foundation
import Testing

@testable import PodiumCore

/// The room as a whole: control decides who drives the stage, decks come and go on it, and ink
/// belongs to a deck's page in this room.
@Suite("Room state")
struct RoomStateTests {
    var room = SessionState(roomWithCommandMemory: 64)
    var nextID = 0

    static func deck(_ id: String, owner: String?, pages: Int) -> RoomDeck {
        RoomDeck(
            id: id, title: id.uppercased(), owner: owner,
            pages: (1...pages).map {
                PageInfo(number: $0, width: 800, height: 600, imageUrl: "", mediumUrl: "", thumbnailUrl: "")
            })
    }

    mutating func run(_ command: SessionCommand, _ role: Role, _ presenter: String? = nil, at time: Double = 0)
        throws(SessionError)
        -> [SessionChange]
    {
        nextID += 1
        guard case .applied(let events) = try room.handle(command, id: "c\(nextID)", by: role, presenterId: presenter, at: time)
        else { return [] }
        return events.map(\.change)
    }

    /// Ann and Bob joined, each with a deck; the moderator has one too.
    mutating func populate() throws {
        _ = try run(.room(.join(name: "Ann")), .presenter, "ann")
        _ = try run(.room(.join(name: "Bob")), .presenter, "bob")
        _ = try run(.addDeck(Self.deck("a", owner: "ann", pages: 3)), .presenter, "ann")
        _ = try run(.addDeck(Self.deck("b", owner: "bob", pages: 2)), .presenter, "bob")
        _ = try run(.addDeck(Self.deck("m", owner: nil, pages: 5)), .moderator)
    }

    @Test mutating func aRoomStartsIdleAndTheModeratorDrives() throws {
        #expect(room.snapshot.room?.deck == nil)
        #expect(room.pageCount == 0)
        #expect(throws: SessionError.noDeck) { try self.run(.goto(page: 1), .moderator) }
        try populate()
        #expect(try run(.showDeck(deckId: "m", page: nil), .moderator) == [.deckShown(deck: "m", page: 1)])
        #expect(try run(.goto(page: 4), .moderator) == [.page(4)])
        #expect(room.snapshot.room?.deck("m")?.page == 4)
        #expect(throws: SessionError.invalidPage) { try self.run(.goto(page: 6), .moderator) }
        #expect(throws: SessionError.notInControl) { try self.run(.goto(page: 2), .presenter, "ann") }
        #expect(throws: SessionError.forbidden) { try self.run(.room(.request), .viewer) }
    }

    @Test mutating func grantingControlPutsThePresentersDeckOnStageWhereTheyLeftIt() throws {
        try populate()
        _ = try run(.room(.request), .presenter, "ann")
        let changes = try run(.room(.grant(presenterId: "ann")), .moderator, at: 1000)
        #expect(changes == [.room(.control(active: "ann", lender: nil), at: 1000), .deckShown(deck: "a", page: 1)])
        #expect(room.snapshot.room?.controlSince == 1000)
        #expect(try run(.goto(page: 3), .presenter, "ann") == [.page(3)])
        // The moderator no longer drives, but may still blank the projector.
        #expect(throws: SessionError.notInControl) { try self.run(.goto(page: 1), .moderator) }
        #expect(try run(.blank(.black), .moderator) == [.blank(.black)])
        // Ann may not show Bob's deck; a deck not in the room is not found.
        #expect(throws: SessionError.forbidden) { try self.run(.showDeck(deckId: "b", page: nil), .presenter, "ann") }
        #expect(throws: SessionError.deckNotInRoom) { try self.run(.showDeck(deckId: "x", page: nil), .presenter, "ann") }

        _ = try run(.room(.grant(presenterId: "bob")), .moderator)
        #expect(room.snapshot.room?.deck == "b")
        _ = try run(.room(.grant(presenterId: "ann")), .moderator)
        #expect(room.snapshot.room?.deck == "a")
        #expect(room.snapshot.page == 3, "Ann resumes on the page she left")
        #expect(
            room.snapshot.room?.shown == [
                ShownPage(deck: "a", page: 1), ShownPage(deck: "a", page: 3), ShownPage(deck: "b", page: 1),
            ])
    }

    @Test mutating func decksJoinOnlyFromThoseWhoMayBringThem() throws {
        _ = try run(.room(.join(name: "Ann")), .presenter, "ann")
        #expect(throws: SessionError.forbidden) {
            try self.run(.addDeck(Self.deck("a", owner: "bob", pages: 1)), .presenter, "ann")
        }
        #expect(throws: SessionError.forbidden) {
            try self.run(.addDeck(Self.deck("x", owner: "eve", pages: 1)), .presenter, "eve")
        }
        #expect(throws: SessionError.forbidden) { try self.run(.addDeck(Self.deck("v", owner: nil, pages: 1)), .viewer) }
        #expect(throws: SessionError.forbidden) { try self.run(.addDeck(Self.deck("m", owner: "ann", pages: 1)), .moderator) }
        #expect(try run(.addDeck(Self.deck("a", owner: "ann", pages: 2)), .presenter, "ann").count == 1)
        #expect(try run(.addDeck(Self.deck("a", owner: "ann", pages: 2)), .presenter, "ann").isEmpty)
    }

    @Test mutating func inkBelongsToTheDeckOnStage() throws {
        try populate()
        _ = try run(.showDeck(deckId: "m", page: 2), .moderator)
        let line = Stroke(id: "s1", page: 2, tool: .pen, color: "#FF0000", width: 0.01, points: [[0.1, 0.1], [0.2, 0.2]])
        _ = try run(.stroke(line), .moderator)
        #expect(room.snapshot.strokes.first?.deck == "m")
        _ = try run(.room(.grant(presenterId: "ann")), .moderator)
        var other = line
        other.id = "s2"
        _ = try run(.stroke(other), .presenter, "ann")
        #expect(room.snapshot.strokes.map(\.deck) == ["m", "a"])
        #expect(throws: SessionError.notInControl) { try self.run(.clearPage(page: 2), .moderator) }
        // Clearing Ann's page 2 leaves the moderator's page 2 alone.
        #expect(try run(.clearPage(page: 2), .presenter, "ann") == [.pageCleared(page: 2, deck: "a")])
        #expect(room.snapshot.strokes.map(\.id) == ["s1"])
    }

    @Test mutating func theModeratorRunsTheAudienceSideAndPresentersDoNot() throws {
        try populate()
        _ = try run(.room(.grant(presenterId: "ann")), .moderator)
        #expect(throws: SessionError.forbidden) { try self.run(.lock(false), .presenter, "ann") }
        #expect(try run(.lock(false), .moderator) == [.lock(false)])
        #expect(throws: SessionError.forbidden) { try self.run(.setBackground("#222222"), .presenter, "ann") }
        #expect(try run(.setBackground("#222222"), .moderator) == [.background("#222222")])
        #expect(throws: SessionError.self) { try self.run(.setBackground("grey"), .moderator) }
        #expect(room.isHost(.moderator) && !room.isHost(.presenter))
    }

    @Test func sessionsRefuseRoomCommands() throws {
        var session = SessionState(pageCount: 3)
        #expect(throws: SessionError.notARoom) { try session.handle(.room(.request), id: "x", by: .presenter) }
        #expect(throws: SessionError.forbidden) { try session.handle(.goto(page: 2), id: "y", by: .moderator) }
    }

    @Test func replayingARoomsEventsFromTheirWireFormRebuildsIt() throws {
        var state = SessionState(roomWithCommandMemory: 64)
        var history: [StoredEvent] = []
        var counter = 0
        func apply(_ command: SessionCommand, _ role: Role, _ presenter: String?, _ time: Double = 0) throws {
            counter += 1
            guard
                case .applied(let events) = try state.handle(
                    command, id: "r\(counter)", by: role, presenterId: presenter, at: time)
            else { return }
            // As the store keeps them: encoded to JSON and read back.
            for event in events {
                let decoded = try JSONDecoder().decode(SessionEvent.self, from: try JSONEncoder().encode(event))
                #expect(decoded == event)
                history.append(StoredEvent(event: decoded, commandID: nil))
            }
        }
        try apply(.room(.join(name: "Ann")), .presenter, "ann")
        try apply(.room(.join(name: "Bob")), .presenter, "bob")
        try apply(.addDeck(Self.deck("a", owner: "ann", pages: 3)), .presenter, "ann")
        try apply(.addDeck(Self.deck("b", owner: "bob", pages: 2)), .presenter, "bob")
        try apply(.room(.setQueueCap(2)), .moderator, nil)
        try apply(.room(.request), .presenter, "bob")
        try apply(.room(.handOverNext), .moderator, nil, 50)
        try apply(.goto(page: 2), .presenter, "bob")
        try apply(.room(.doNotDisturb(true)), .presenter, "bob")
        try apply(.room(.pass(presenterId: "ann")), .presenter, "bob", 60)
        try apply(.setBackground("#101010"), .moderator, nil)

        let replay = try SessionState(pageCount: 0, room: true, replaying: history)
        #expect(replay.snapshot == state.snapshot)
        #expect(replay.seq == history.count)
        #expect(replay.snapshot.room?.control.active == "ann")
        #expect(replay.snapshot.room?.control.lender == "bob")
        #expect(replay.snapshot.room?.controlSince == 60)
        #expect(replay.snapshot.room?.deck == "a")
        #expect(replay.snapshot.room?.background == "#101010")
    }
}
