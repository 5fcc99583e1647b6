import Testing

@testable import PodiumCore

@Suite("Room control")
struct RoomControlTests {
    var room = RoomControl()

    init() throws {
        for (id, name) in [("ann", "Ann"), ("ben", "Ben"), ("cat", "Cat")] {
            _ = try room.handle(.join(name: name), by: .presenter(id))
        }
    }

    @Test mutating func theModeratorHasControlUntilGrantingIt() throws {
        #expect(room.active == nil)
        #expect(try room.handle(.grant(presenterId: "ann"), by: .moderator) == [.control(active: "ann", lender: nil)])
        #expect(room.active == "ann")
        #expect(try room.handle(.withdraw, by: .moderator) == [.control(active: nil, lender: nil)])
        #expect(room.active == nil)
    }

    @Test mutating func requestsQueueOncePerPresenterAndLeaveTheQueueWhenGranted() throws {
        _ = try room.handle(.request, by: .presenter("ben"))
        _ = try room.handle(.request, by: .presenter("cat"))
        #expect(throws: SessionError.alreadyRequested) { try room.handle(.request, by: .presenter("ben")) }
        #expect(room.queue == ["ben", "cat"])
        _ = try room.handle(.handOverNext, by: .moderator)
        #expect(room.active == "ben")
        #expect(room.queue == ["cat"])
        #expect(throws: SessionError.alreadyPresenting) { try room.handle(.request, by: .presenter("ben")) }
        _ = try room.handle(.cancelRequest, by: .presenter("cat"))
        #expect(room.queue.isEmpty)
        #expect(throws: SessionError.noRequests) { try room.handle(.handOverNext, by: .moderator) }
    }

    @Test mutating func theModeratorCanCapTheQueue() throws {
        _ = try room.handle(.setQueueCap(1), by: .moderator)
        _ = try room.handle(.request, by: .presenter("ann"))
        #expect(throws: SessionError.queueFull) { try room.handle(.request, by: .presenter("ben")) }
        #expect(throws: SessionError.forbidden) { try room.handle(.setQueueCap(5), by: .presenter("ann")) }
    }

    @Test mutating func theActivePresenterLendsControlAndGetsItBack() throws {
        _ = try room.handle(.grant(presenterId: "ann"), by: .moderator)
        _ = try room.handle(.request, by: .presenter("ben"))
        #expect(try room.handle(.pass(presenterId: "ben"), by: .presenter("ann")) == [.control(active: "ben", lender: "ann")])
        // A lend is not Ben's own turn: his request keeps its place.
        #expect(room.queue == ["ben"])
        // The borrower may not lend on, nor hand over.
        #expect(throws: SessionError.notInControl) { try room.handle(.pass(presenterId: "cat"), by: .presenter("ben")) }
        // Either of them returns it.
        #expect(try room.handle(.returnControl, by: .presenter("ann")) == [.control(active: "ann", lender: nil)])
        _ = try room.handle(.pass(presenterId: "cat"), by: .presenter("ann"))
        _ = try room.handle(.returnControl, by: .presenter("cat"))
        #expect(room.active == "ann" && room.lender == nil)
        #expect(throws: SessionError.notInControl) { try room.handle(.returnControl, by: .presenter("ann")) }
    }

    /// Issue 36: a presenter who had asked for control, is lent the stage and gives it back is
    /// still queued, at the same place; the moderator's count says so. Only a turn of their own
    /// (a grant or a hand-over) uses the request.
    @Test mutating func aLendKeepsTheBorrowersPlaceInTheQueue() throws {
        _ = try room.handle(.grant(presenterId: "ann"), by: .moderator)
        _ = try room.handle(.request, by: .presenter("ben"))
        _ = try room.handle(.request, by: .presenter("cat"))
        _ = try room.handle(.pass(presenterId: "cat"), by: .presenter("ann"))
        #expect(room.queue == ["ben", "cat"])
        _ = try room.handle(.returnControl, by: .presenter("cat"))
        #expect(room.active == "ann" && room.lender == nil)
        #expect(room.queue == ["ben", "cat"])
        // Lent the stage again, then taken back by the moderator: still waiting.
        _ = try room.handle(.pass(presenterId: "ben"), by: .presenter("ann"))
        _ = try room.handle(.withdraw, by: .moderator)
        #expect(room.queue == ["ben", "cat"])
        // A borrower who had not asked may ask for a turn of their own while they borrow.
        _ = try room.handle(.cancelRequest, by: .presenter("cat"))
        _ = try room.handle(.grant(presenterId: "ann"), by: .moderator)
        _ = try room.handle(.pass(presenterId: "cat"), by: .presenter("ann"))
        #expect(try room.handle(.request, by: .presenter("cat")) == [.requested(presenterId: "cat")])
        // The moderator grants the borrower the stage in their own right: that uses the request.
        _ = try room.handle(.grant(presenterId: "cat"), by: .moderator)
        #expect(room.active == "cat" && room.lender == nil)
        #expect(room.queue == ["ben"])
        _ = try room.handle(.handOverNext, by: .moderator)
        #expect(room.active == "ben" && room.queue.isEmpty)
    }

    @Test mutating func theModeratorCanAlwaysTakeControlBack() throws {
        _ = try room.handle(.grant(presenterId: "ann"), by: .moderator)
        _ = try room.handle(.pass(presenterId: "ben"), by: .presenter("ann"))
        _ = try room.handle(.withdraw, by: .moderator)
        #expect(room.active == nil && room.lender == nil)
        #expect(throws: SessionError.notInControl) { try room.handle(.returnControl, by: .presenter("ben")) }
    }

    @Test mutating func doNotDisturbBelongsToTheModeratorAndTheActivePresenter() throws {
        #expect(try room.handle(.doNotDisturb(true), by: .moderator) == [.doNotDisturb(moderator: true, on: true)])
        #expect(throws: SessionError.notInControl) { try room.handle(.doNotDisturb(true), by: .presenter("ann")) }
        _ = try room.handle(.grant(presenterId: "ann"), by: .moderator)
        _ = try room.handle(.doNotDisturb(true), by: .presenter("ann"))
        #expect(room.presenterDoNotDisturb)
        // Requests still queue; clients hold the notification while do-not-disturb is on.
        _ = try room.handle(.request, by: .presenter("cat"))
        #expect(room.queue == ["cat"])
        // It ends with the presenter's turn.
        _ = try room.handle(.grant(presenterId: "ben"), by: .moderator)
        #expect(!room.presenterDoNotDisturb)
        #expect(room.moderatorDoNotDisturb)
    }

    @Test mutating func whoMayDoWhat() throws {
        for command in [RoomCommand.grant(presenterId: "ann"), .handOverNext, .withdraw] {
            #expect(throws: SessionError.forbidden) { try room.handle(command, by: .presenter("ann")) }
        }
        for command in [RoomCommand.request, .cancelRequest, .pass(presenterId: "ann"), .returnControl, .join(name: "M")] {
            #expect(throws: SessionError.forbidden) { try room.handle(command, by: .moderator) }
        }
        #expect(throws: SessionError.notInRoom) { try room.handle(.request, by: .presenter("stranger")) }
        #expect(throws: SessionError.notInRoom) { try room.handle(.grant(presenterId: "stranger"), by: .moderator) }
        #expect(throws: SessionError.badMessage("A presenter needs a name.")) {
            try room.handle(.join(name: " "), by: .presenter("x"))
        }
    }

    @Test mutating func replayingTheChangesRebuildsTheSameRoom() throws {
        var changes: [RoomChange] = room.presenters.map { .presenterJoined(id: $0.id, name: $0.name) }
        changes += try room.handle(.request, by: .presenter("ben"))
        changes += try room.handle(.grant(presenterId: "ann"), by: .moderator)
        changes += try room.handle(.pass(presenterId: "ben"), by: .presenter("ann"))
        changes += try room.handle(.doNotDisturb(true), by: .moderator)
        var rebuilt = RoomControl()
        for change in changes { rebuilt.apply(change) }
        #expect(rebuilt == room)
    }
}
