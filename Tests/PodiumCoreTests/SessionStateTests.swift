import Testing

@testable import PodiumCore

@Suite("Session state machine")
struct SessionStateTests {
    var state = SessionState(pageCount: 5)

    @Test func startsOnPageOneLockedWithNothingHappened() {
        #expect(state.snapshot == SessionSnapshot(page: 1, viewport: .fullPage, blank: .none, locked: true, ended: false))
        #expect(state.seq == 0)
    }

    @Test mutating func presenterChangesPageWithIncreasingSeq() throws {
        let first = try state.handle(.goto(page: 2), id: "a", by: .presenter)
        let second = try state.handle(.goto(page: 5), id: "b", by: .presenter)
        #expect(first == .applied([SessionEvent(seq: 1, change: .page(2))]))
        #expect(second == .applied([SessionEvent(seq: 2, change: .page(5))]))
        #expect(state.snapshot.page == 5)
        #expect(state.seq == 2)
    }

    @Test(arguments: [0, -1, 6, Int.max])
    mutating func pagesOutsideTheDeckAreRefused(page: Int) {
        #expect(throws: SessionError.invalidPage) { try state.handle(.goto(page: page), id: "x", by: .presenter) }
        #expect(state.seq == 0)
    }

    @Test mutating func gotoTheSamePageIsAcceptedWithoutAnEvent() throws {
        let outcome = try state.handle(.goto(page: 1), id: "a", by: .presenter)
        #expect(outcome == .unchanged(seq: 0))
    }

    @Test mutating func viewerGotoIsForbiddenWhileLockedAndChangesNothing() {
        let before = state
        #expect(throws: SessionError.followingPresenter) { try state.handle(.goto(page: 3), id: "v", by: .viewer) }
        #expect(state == before)
    }

    @Test mutating func viewerGotoWhileUnlockedIsPrivate() throws {
        _ = try state.handle(.lock(false), id: "unlock", by: .presenter)
        let outcome = try state.handle(.goto(page: 3), id: "v", by: .viewer)
        #expect(outcome == .unchanged(seq: 1))
        #expect(state.snapshot.page == 1)
        #expect(throws: SessionError.invalidPage) { try state.handle(.goto(page: 9), id: "v2", by: .viewer) }
    }

    @Test(arguments: [
        SessionCommand.zoom(Viewport(x: 0, y: 0, w: 0.5, h: 0.5)), .blank(.black), .lock(false), .end,
    ])
    mutating func viewersMayNotSendPresenterCommands(command: SessionCommand) {
        #expect(throws: SessionError.forbidden) { try state.handle(command, id: "v", by: .viewer) }
        #expect(state.seq == 0)
    }

    @Test mutating func zoomIsKeptUntilThePageChanges() throws {
        let rect = Viewport(x: 0.25, y: 0.5, w: 0.5, h: 0.5)
        _ = try state.handle(.zoom(rect), id: "z", by: .presenter)
        #expect(state.snapshot.viewport == rect)
        _ = try state.handle(.goto(page: 2), id: "g", by: .presenter)
        #expect(state.snapshot.viewport == .fullPage)
    }

    @Test mutating func goingBackToTheWholeCurrentPageFromAZoomIsAnEvent() throws {
        _ = try state.handle(.zoom(Viewport(x: 0, y: 0, w: 0.5, h: 0.5)), id: "z", by: .presenter)
        let outcome = try state.handle(.goto(page: 1), id: "g", by: .presenter)
        #expect(outcome == .applied([SessionEvent(seq: 2, change: .page(1))]))
        #expect(state.snapshot.viewport == .fullPage)
    }

    @Test(arguments: [
        Viewport(x: -0.1, y: 0, w: 0.5, h: 0.5), Viewport(x: 0.6, y: 0, w: 0.5, h: 0.5),
        Viewport(x: 0, y: 0, w: 0.01, h: 0.5), Viewport(x: .nan, y: 0, w: 0.5, h: 0.5),
        Viewport(x: 0, y: 0.9, w: 0.5, h: 0.2), Viewport(x: 0, y: 0, w: .infinity, h: 1),
    ])
    mutating func viewportsOutsideThePageAreRefused(viewport: Viewport) {
        #expect(throws: SessionError.invalidViewport) { try state.handle(.zoom(viewport), id: "z", by: .presenter) }
    }

    @Test mutating func blankAndLockOnlyEmitRealChanges() throws {
        #expect(try state.handle(.blank(.none), id: "1", by: .presenter) == .unchanged(seq: 0))
        #expect(
            try state.handle(.blank(.white), id: "2", by: .presenter) == .applied([SessionEvent(seq: 1, change: .blank(.white))]))
        #expect(try state.handle(.lock(true), id: "3", by: .presenter) == .unchanged(seq: 1))
        #expect(try state.handle(.lock(false), id: "4", by: .presenter) == .applied([SessionEvent(seq: 2, change: .lock(false))]))
    }

    @Test mutating func aRetriedCommandTakesEffectOnce() throws {
        let first = try state.handle(.goto(page: 2), id: "same", by: .presenter)
        _ = try state.handle(.goto(page: 3), id: "other", by: .presenter)
        let retry = try state.handle(.goto(page: 2), id: "same", by: .presenter)
        #expect(first.ackSeq == 1)
        #expect(retry == .duplicate(seq: 1))
        #expect(state.snapshot.page == 3)
        #expect(state.seq == 2)
    }

    @Test mutating func aRefusedCommandDoesNotBurnItsID() throws {
        #expect(throws: SessionError.invalidPage) { try state.handle(.goto(page: 99), id: "id", by: .presenter) }
        #expect(try state.handle(.goto(page: 2), id: "id", by: .presenter) == .applied([SessionEvent(seq: 1, change: .page(2))]))
    }

    @Test mutating func endingUnlocksUnblanksAndStopsFurtherCommands() throws {
        _ = try state.handle(.blank(.black), id: "b", by: .presenter)
        #expect(try state.handle(.end, id: "e", by: .presenter) == .applied([SessionEvent(seq: 2, change: .ended)]))
        #expect(state.snapshot.ended)
        #expect(!state.snapshot.locked)
        #expect(state.snapshot.blank == .none)
        #expect(throws: SessionError.ended) { try state.handle(.goto(page: 2), id: "g", by: .presenter) }
        #expect(throws: SessionError.ended) { try state.handle(.end, id: "e2", by: .presenter) }
        // Viewers can still read on their own.
        #expect(try state.handle(.goto(page: 4), id: "v", by: .viewer) == .unchanged(seq: 2))
    }

    @Test mutating func pointerIsForPresentersOnLivePagesInsideThePage() throws {
        _ = try state.handle(.goto(page: 3), id: "g", by: .presenter)
        let update = try state.pointer(PagePoint(x: 0.5, y: 0.25), by: .presenter)
        #expect(update == PointerUpdate(content: .deckPage(deck: nil, page: 3), point: PagePoint(x: 0.5, y: 0.25)))
        #expect(try state.pointer(nil, by: .presenter) == PointerUpdate(content: .deckPage(deck: nil, page: 3), point: nil))
        #expect(throws: SessionError.forbidden) { try state.pointer(PagePoint(x: 0.5, y: 0.5), by: .viewer) }
        #expect(throws: SessionError.invalidPoint) { try state.pointer(PagePoint(x: 1.5, y: 0.5), by: .presenter) }
        _ = try state.handle(.end, id: "e", by: .presenter)
        #expect(throws: SessionError.ended) { try state.pointer(PagePoint(x: 0.5, y: 0.5), by: .presenter) }
    }

    @Test mutating func replayingTheHistoryRebuildsTheSameState() throws {
        var stored: [StoredEvent] = []
        for (index, command) in [
            SessionCommand.goto(page: 4), .zoom(Viewport(x: 0.1, y: 0.1, w: 0.5, h: 0.5)), .blank(.white), .lock(false),
        ].enumerated() {
            if case .applied(let events) = try state.handle(command, id: "c\(index)", by: .presenter) {
                stored += events.map { StoredEvent(event: $0, commandID: "c\(index)") }
            }
        }
        let rebuilt = try SessionState(pageCount: 5, replaying: stored)
        #expect(rebuilt.snapshot == state.snapshot)
        #expect(rebuilt.seq == 4)
        var copy = rebuilt
        #expect(try copy.handle(.goto(page: 4), id: "c0", by: .presenter) == .duplicate(seq: 1))
    }

    @Test func replayingAHistoryWithAGapFails() {
        let events = [
            StoredEvent(event: SessionEvent(seq: 1, change: .page(2)), commandID: nil),
            StoredEvent(event: SessionEvent(seq: 3, change: .page(3)), commandID: nil),
        ]
        #expect(throws: SessionError.self) { try SessionState(pageCount: 5, replaying: events) }
    }
}

@Suite("Recent command ids")
struct RecentCommandsTests {
    @Test func forgetsTheOldestBeyondCapacity() {
        var recent = RecentCommands(capacity: 3)
        for n in 1...5 { recent.remember("id\(n)", seq: n) }
        #expect(recent.count == 3)
        #expect(recent.seq(for: "id1") == nil)
        #expect(recent.seq(for: "id2") == nil)
        #expect(recent.seq(for: "id5") == 5)
    }

    @Test func rememberingTheSameIDTwiceKeepsTheFirstSeqSlot() {
        var recent = RecentCommands(capacity: 2)
        recent.remember("a", seq: 1)
        recent.remember("a", seq: 1)
        recent.remember("b", seq: 2)
        #expect(recent.seq(for: "a") == 1)
        #expect(recent.count == 2)
    }
}

@Suite("Join codes")
struct JoinCodeTests {
    @Test func randomCodesUseOnlyUnambiguousCharacters() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let code = JoinCode.random(using: &generator)
            #expect(code.count == 6)
            #expect(!code.contains { "01OIL".contains($0) })
            #expect(JoinCode.normalize(code) == code)
        }
    }

    @Test func normalisesWhatPeopleType() {
        #expect(JoinCode.normalize("abc-def") == "ABCDEF")
        #expect(JoinCode.normalize(" k7m 2pq ") == "K7M2PQ")
        #expect(JoinCode.normalize("ABC0EF") == nil)
        #expect(JoinCode.normalize("ABCDE") == nil)
        #expect(JoinCode.normalize("ABCDEFG") == nil)
    }
}

@Suite("Ink strokes")
struct InkStateTests {
    var state = SessionState(pageCount: 3)
    let stroke = Stroke(
        id: "s1", page: 2, tool: .pen, color: "#112233", width: 0.01, points: [[0.1, 0.1, 0.5], [0.2, 0.2, 0.5]])

    @Test mutating func strokesAreCommittedOnceErasedAndClearedPerPage() throws {
        #expect(
            try state.handle(.stroke(stroke), id: "s1", by: .presenter)
                == .applied([SessionEvent(seq: 1, change: .stroke(stroke))]))
        #expect(throws: SessionError.forbidden) { try state.handle(.stroke(stroke), id: "v", by: .viewer) }
        var other = stroke
        other.id = "s2"
        other.page = 3
        _ = try state.handle(.stroke(other), id: "s2", by: .presenter)
        _ = try state.handle(.clearPage(page: 2), id: "c", by: .presenter)
        #expect(state.snapshot.strokes.map(\.id) == ["s2"])
        #expect(try state.handle(.clearPage(page: 2), id: "c2", by: .presenter) == .unchanged(seq: 3))
        _ = try state.handle(.erase(strokeId: "s2"), id: "e", by: .presenter)
        #expect(state.snapshot.strokes.isEmpty)
        #expect(throws: SessionError.strokeNotFound) { try state.handle(.erase(strokeId: "s2"), id: "e2", by: .presenter) }
    }

    @Test(arguments: [
        Stroke(id: "x", page: 4, tool: .pen, color: "#112233", width: 0.01, points: [[0.1, 0.1]]),
        Stroke(id: "x", page: 1, tool: .pen, color: "#11223", width: 0.01, points: [[0.1, 0.1]]),
        Stroke(id: "x", page: 1, tool: .pen, color: "#112233", width: 0.5, points: [[0.1, 0.1]]),
        Stroke(id: "x", page: 1, tool: .pen, color: "#112233", width: 0.01, points: []),
        Stroke(id: "x", page: 1, tool: .pen, color: "#112233", width: 0.01, points: [[0.1, .nan]]),
        Stroke(id: "", page: 1, tool: .pen, color: "#112233", width: 0.01, points: [[0.1, 0.1]]),
    ])
    mutating func invalidStrokesAreRefused(stroke: Stroke) {
        #expect(throws: SessionError.invalidStroke) { try state.handle(.stroke(stroke), id: "x", by: .presenter) }
    }
}

@Suite("Session viewers")
struct SessionViewerTests {
    @Test func viewersRestoredInAnyOrderKeepTheirNumbersAndNewcomersComeAfter() {
        var state = SessionState(pageCount: 3)
        state.restoreViewers([
            ViewerEntry(id: "c", number: 3, name: nil), ViewerEntry(id: "a", number: 1, name: "Ada"),
            ViewerEntry(id: "b", number: 2, name: nil), ViewerEntry(id: "a", number: 1, name: "Ada"),
        ])
        #expect(state.viewers.all.map(\.id) == ["a", "b", "c"])
        #expect(state.viewerEntry("b")?.number == 2)
        #expect(state.viewerEntry("nobody") == nil)
        // A known viewer is found again, and renamed; a new one gets the next number.
        let (known, renamed) = state.registerViewer("c", name: "Cat")
        #expect(known.number == 3 && known.name == "Cat" && renamed)
        let (again, changed) = state.registerViewer("a", name: nil)
        #expect(again.name == "Ada" && again.number == 1 && !changed)
        let (newcomer, added) = state.registerViewer("d", name: nil)
        #expect(newcomer.number == 4 && added)
        #expect(state.viewerEntry("d")?.displayName == "Guest 4")
        #expect(state.viewerEntry("c")?.name == "Cat")
    }

    /// Arrivals numbered by the store are appended; one from another node with a lower number
    /// than the last (it arrived there earlier) still takes its place in order, found by id.
    @Test func storeNumberedArrivalsAppendAndAnEarlierNumberTakesItsPlace() {
        var state = SessionState(pageCount: 3)
        for number in 1...5 where number != 3 {
            state.restoreViewers([ViewerEntry(id: "v\(number)", number: number, name: nil)])
        }
        #expect(state.viewers.all.map(\.number) == [1, 2, 4, 5])
        state.restoreViewers([ViewerEntry(id: "v3", number: 3, name: "Ada")])
        #expect(state.viewers.all.map(\.id) == ["v1", "v2", "v3", "v4", "v5"])
        #expect(state.viewerEntry("v3")?.name == "Ada" && state.viewerEntry("v5")?.number == 5)
        #expect(state.registerViewer("v6", name: nil).entry.number == 6)
    }
}
