import Foundation
import Testing

@testable import PodiumCore

/// The clips a stage showed, as the report and the export see them: each showing in order, when
/// it came on and went off, how much of it played, and where it comes among the pages shown.
@Suite("Clips shown")
struct ClipLogTests {
    static let clip = VideoOnStage(id: "vid", duration: 60)
    static let other = VideoOnStage(id: "other", duration: nil)

    var session = SessionState(pageCount: 5)
    var stored: [StoredEvent] = []
    var nextID = 0

    /// Takes a command as the presenter (or `role`) and keeps its events as the store would, with their time.
    mutating func run(_ command: SessionCommand, _ role: Role = .presenter, _ presenter: String? = nil, at time: Double) throws {
        nextID += 1
        let decision = try session.take(command, id: "c\(nextID)", from: Actor(role, presenterId: presenter), at: time)
        if case .applied(let events) = decision.outcome {
            stored += events.map { StoredEvent(event: $0, commandID: nil, at: Date(timeIntervalSince1970: time)) }
        }
    }

    var showings: [ClipLog.Showing] { session.clips.showings }

    @Test mutating func aShowingRunsFromTheClipOnStageToThePageThatTakesItOff() throws {
        try run(.goto(page: 3), at: 0)
        try run(.showVideo(Self.clip), at: 100)
        try run(.playback(.play), at: 101)  // playing from 101.5
        try run(.playback(.pause), at: 111.5)  // 10 s played
        try run(.playback(.play), at: 120)  // from 120.5
        #expect(showings.count == 1)
        #expect(showings[0].hiddenAt == nil)
        // Still on stage and playing: the open span counts up to the time asked for.
        #expect(showings[0].played(until: 125.5) == 15)
        #expect(showings[0].onStage(until: 130) == 30)
        try run(.goto(page: 4), at: 130.5)
        let shown = showings[0]
        #expect(shown.video == "vid")
        #expect(shown.duration == 60)
        #expect(shown.shownAt == 100)
        #expect(shown.hiddenAt == 130.5)
        #expect(shown.played(until: 1000) == 20)  // off stage: nothing more counts
        #expect(shown.onStage(until: 1000) == 30.5)
        #expect(shown.afterPages == 3)  // shown over page 3
    }

    @Test mutating func seeksRatesAndTheClipsEndCountWhatActuallyPlayed() throws {
        try run(.showVideo(Self.clip), at: 0)
        try run(.playback(.play), at: 0)  // from 0.5
        try run(.playback(.seek(50)), at: 10.5)  // 10 s played; from 50 at 11
        try run(.playback(.rate(2)), at: 13)  // 2 s played; 52 at 13, then twice as fast
        try run(.hideVideo, at: 100)  // reached its end (60) at 17: 8 s more
        #expect(showings[0].played(until: 100) == 20)
        // A clip paused straight after a play (before its start) played nothing.
        try run(.showVideo(Self.clip), at: 200)
        try run(.playback(.play), at: 201)
        try run(.playback(.pause), at: 201.2)
        try run(.playback(.stop), at: 202)
        #expect(showings.count == 2)
        #expect(showings[1].played(until: 300) == 0)
    }

    @Test mutating func aClipShownAgainForFreshMediaIsOneShowingCountedOnce() throws {
        let media = { (url: String) in PlaybackMedia(title: "Clip", playlist: url, poster: nil, thumbnails: nil, audioOnly: false)
        }
        try run(.showVideo(VideoOnStage(id: "vid", duration: 60, media: media("/stream/a/m.m3u8"))), at: 0)
        try run(.playback(.play), at: 0)  // from 0.5
        // Its stream URL renewed while it plays (10 s in), then again while paused.
        try run(.showVideo(VideoOnStage(id: "vid", duration: 60, media: media("/stream/b/m.m3u8"))), at: 10.5)
        try run(.playback(.pause), at: 15.5)  // 15 s played
        try run(.showVideo(VideoOnStage(id: "vid", duration: 60, media: media("/stream/c/m.m3u8"))), at: 20)
        try run(.hideVideo, at: 30)
        #expect(showings.count == 1)
        #expect(showings[0].played(until: 100) == 15)
        #expect(showings[0].onStage(until: 100) == 30)
    }

    @Test mutating func anotherClipTakesTheStageAndTheEndClosesTheLastShowing() throws {
        try run(.showVideo(Self.clip), at: 10)
        try run(.playback(.play), at: 10)
        try run(.showVideo(Self.other), at: 20.5)  // 10 s of the first clip played
        try run(.playback(.play), at: 21)
        try run(.end, at: 31.5)
        #expect(showings.map(\.video) == ["vid", "other"])
        #expect(showings.map(\.hiddenAt) == [20.5, 31.5])
        #expect(showings.map { $0.played(until: 99) } == [10, 10])
        #expect(showings[1].duration == nil)
        // The same clip shown twice is two showings.
        var again = SessionState(pageCount: 2)
        for (index, command) in [SessionCommand.showVideo(Self.clip), .hideVideo, .showVideo(Self.clip)].enumerated() {
            _ = try again.handle(command, id: "a\(index)", by: .presenter, at: Double(index))
        }
        #expect(again.clips.showings.map(\.shownAt) == [0, 2])
    }

    @Test func inARoomAClipComesAfterThePagesShownBeforeIt() throws {
        var room = SessionState(roomWithCommandMemory: 64)
        _ = try room.handle(.addDeck(RoomStateTests.deck("d1", owner: nil, pages: 4)), id: "a", by: .moderator)
        // A clip before any page: first in the export.
        _ = try room.handle(.showVideo(Self.clip), id: "v0", by: .moderator, at: 1)
        _ = try room.handle(.showDeck(deckId: "d1", page: nil), id: "s", by: .moderator, at: 2)
        _ = try room.handle(.goto(page: 3), id: "g", by: .moderator, at: 3)
        _ = try room.handle(.showVideo(Self.other), id: "v1", by: .moderator, at: 4)
        _ = try room.handle(.goto(page: 1), id: "g1", by: .moderator, at: 5)
        #expect(room.snapshot.room?.shown.map(\.page) == [1, 3])
        #expect(room.clips.showings.map(\.afterPages) == [0, 2])
    }

    @Test mutating func aRestartRebuildsTheSameLogFromTheStoredEventsAndTheirTimes() throws {
        try run(.showVideo(Self.clip), at: 0)
        try run(.playback(.play), at: 1)
        try run(.playback(.pause), at: 6.5)
        try run(.goto(page: 2), at: 8)
        try run(.showVideo(Self.other), at: 9)
        try run(.playback(.play), at: 9)
        let restarted = try SessionState(pageCount: 5, replaying: stored)
        #expect(restarted.clips == session.clips)
        #expect(restarted.clips.showings.map { $0.played(until: 20) } == [5, 10.5])
    }
}
