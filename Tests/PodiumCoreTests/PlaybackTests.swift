import Foundation
import Testing

@testable import PodiumCore

/// A video on stage: one reference (state, position at an anchor of the server's clock, rate)
/// that only durable events change, driven by whoever drives the stage.
@Suite("Video playback")
struct PlaybackTests {
    static let clip = VideoOnStage(id: "vid", duration: 60)

    var session = SessionState(pageCount: 3)
    var nextID = 0

    mutating func run(_ command: SessionCommand, _ role: Role = .presenter, _ presenter: String? = nil, at time: Double)
        throws(SessionError) -> [SessionChange]
    {
        nextID += 1
        guard
            case .applied(let events) = try session.handle(command, id: "c\(nextID)", by: role, presenterId: presenter, at: time)
        else { return [] }
        return events.map(\.change)
    }

    var playback: Playback? { session.snapshot.playback }

    // MARK: The reference's arithmetic

    @Test func aPlayingClipMovesAtItsRateFromItsAnchorAndStopsAtItsEnd() {
        let playing = Playback(video: "v", duration: 60, state: .playing, position: 10, anchor: 1000, rate: 2)
        #expect(playing.position(at: 999) == 10)  // waiting for its start
        #expect(playing.position(at: 1000) == 10)
        #expect(playing.position(at: 1005) == 20)
        #expect(playing.position(at: 1100) == 60)  // not past its end
        #expect(playing.ended(at: 1100))
        #expect(!playing.ended(at: 1005))
        let paused = Playback(video: "v", duration: 60, state: .paused, position: 10, anchor: 1000)
        #expect(paused.position(at: 5000) == 10)
        let unknownLength = Playback(video: "v", duration: nil, state: .playing, position: 0, anchor: 0)
        #expect(unknownLength.position(at: 10_000) == 10_000)
        #expect(!unknownLength.ended(at: 10_000))
    }

    // MARK: Transitions

    @Test mutating func aVideoComesOnStageStoppedAndPlaysALittleAheadSoEveryScreenStartsTogether() throws {
        #expect(try run(.showVideo(Self.clip), at: 100) == [.playback(Playback(stopped: Self.clip, at: 100))])
        #expect(session.stageContent == .video(id: "vid"))
        #expect(
            try run(.playback(.play), at: 110) == [
                .playback(Playback(video: "vid", duration: 60, state: .playing, position: 0, anchor: 110 + Playback.startLead))
            ])
        // Playing again changes nothing (no event, acknowledged as unchanged).
        #expect(try run(.playback(.play), at: 111).isEmpty)
    }

    @Test mutating func pauseKeepsThePositionReachedAndPlayGoesOnFromIt() throws {
        _ = try run(.showVideo(Self.clip), at: 0)
        _ = try run(.playback(.play), at: 10)
        _ = try run(.playback(.pause), at: 20.5)  // playing since 10.5: 10 s in
        #expect(playback?.state == .paused)
        #expect(playback?.position == 10)
        #expect(try run(.playback(.pause), at: 30).isEmpty)
        _ = try run(.playback(.play), at: 40)
        #expect(playback?.position == 10)
        #expect(playback?.anchor == 40 + Playback.startLead)
    }

    @Test mutating func stopGoesBackToTheStartAndAPlayAtTheEndStartsOver() throws {
        _ = try run(.showVideo(Self.clip), at: 0)
        _ = try run(.playback(.play), at: 0)
        _ = try run(.playback(.stop), at: 30)
        #expect(playback?.state == .stopped)
        #expect(playback?.position == 0)
        _ = try run(.playback(.play), at: 40)
        _ = try run(.playback(.play), at: 200)  // long past the end: played again from the start
        #expect(playback?.position == 0)
        #expect(playback?.anchor == 200 + Playback.startLead)
    }

    @Test mutating func seekMovesThePositionAndKeepsPlayingOrWaitsThere() throws {
        _ = try run(.showVideo(Self.clip), at: 0)
        _ = try run(.playback(.seek(42)), at: 5)
        #expect(playback?.state == .paused)  // a stopped clip moved is paused there
        #expect(playback?.position == 42)
        _ = try run(.playback(.play), at: 10)
        _ = try run(.playback(.seek(5)), at: 20)
        #expect(playback?.state == .playing)
        #expect(playback?.position == 5)
        #expect(playback?.anchor == 20 + Playback.startLead)
    }

    @Test mutating func theClipShownAgainKeepsItsCourseAndRenewsItsMedia() throws {
        let media = { (url: String) in PlaybackMedia(title: "Clip", playlist: url, poster: nil, thumbnails: nil, audioOnly: false)
        }
        let first = VideoOnStage(id: "vid", duration: 60, media: media("/stream/a/m.m3u8"))
        _ = try run(.showVideo(first), at: 0)
        _ = try run(.playback(.play), at: 0)  // anchored at 0.5
        // The same media again: nothing to do.
        #expect(try run(.showVideo(first), at: 5).isEmpty)
        // A fresh stream URL: the same course, re-anchored now, with the new media.
        let renewed = VideoOnStage(id: "vid", duration: 60, media: media("/stream/b/m.m3u8"))
        let changes = try run(.showVideo(renewed), at: 10.5)
        #expect(
            changes == [
                .playback(
                    Playback(
                        video: "vid", media: renewed.media, duration: 60, state: .playing, position: 10, anchor: 10.5))
            ])
        #expect(playback?.position(at: 20.5) == 20)
        // Paused, it stays paused where it was.
        _ = try run(.playback(.pause), at: 20.5)
        _ = try run(.showVideo(first), at: 30)
        #expect(playback?.state == .paused && playback?.position == 20 && playback?.media == first.media)
    }

    @Test mutating func aRateChangeReanchorsWhereTheClipIsNow() throws {
        _ = try run(.showVideo(Self.clip), at: 0)
        _ = try run(.playback(.play), at: 0)  // anchored at 0.5
        _ = try run(.playback(.rate(2)), at: 10.5)
        #expect(playback?.position == 10)
        #expect(playback?.anchor == 10.5)
        #expect(playback?.rate == 2)
        #expect(playback?.position(at: 15.5) == 20)
    }

    @Test(arguments: [PlaybackCommand.seek(-1), .seek(61), .seek(.nan), .rate(0), .rate(5), .rate(.infinity)])
    func outOfRangeSeeksAndRatesAreRefusedAndChangeNothing(_ command: PlaybackCommand) throws {
        var session = SessionState(pageCount: 3)
        _ = try session.handle(.showVideo(Self.clip), id: "s", by: .presenter, at: 0)
        let before = session
        #expect(throws: SessionError.invalidPlayback) { try session.handle(.playback(command), id: "x", by: .presenter, at: 1) }
        #expect(session == before)
    }

    @Test mutating func playbackNeedsAVideoOnStage() throws {
        #expect(throws: SessionError.noVideo) { try run(.playback(.play), at: 0) }
        #expect(try run(.hideVideo, at: 0).isEmpty)
    }

    // MARK: The stage: a video or a page

    @Test mutating func goingToAPageTakesTheVideoOffFirstInTwoEvents() throws {
        _ = try run(.showVideo(Self.clip), at: 0)
        #expect(try run(.goto(page: 2), at: 1) == [.playback(nil), .page(2)])
        #expect(session.stageContent == .deckPage(deck: nil, page: 2))
        // Back to the page already shown: only the video goes.
        _ = try run(.showVideo(Self.clip), at: 2)
        #expect(try run(.goto(page: 2), at: 3) == [.playback(nil)])
    }

    @Test mutating func inkZoomAndThePointerWaitForAPage() throws {
        _ = try run(.showVideo(Self.clip), at: 0)
        #expect(throws: SessionError.videoOnStage) { try run(.zoom(Viewport(x: 0, y: 0, w: 0.5, h: 0.5)), at: 1) }
        #expect(throws: SessionError.videoOnStage) { try session.pointer(PagePoint(x: 0.5, y: 0.5), by: .presenter) }
        let stroke = Stroke(
            id: "s1", page: 1, tool: .pen, color: "#FF0000", width: 0.01, points: [[0.1, 0.1, 0.5], [0.2, 0.2, 0.5]])
        #expect(throws: SessionError.videoOnStage) { try run(.stroke(stroke), at: 1) }
        _ = try run(.hideVideo, at: 2)
        #expect(try run(.stroke(stroke), at: 3).count == 1)
    }

    @Test mutating func endingTheSessionTakesTheVideoOff() throws {
        _ = try run(.showVideo(Self.clip), at: 0)
        _ = try run(.playback(.play), at: 0)
        _ = try run(.end, at: 5)
        #expect(playback == nil)
        #expect(throws: SessionError.ended) { try run(.showVideo(Self.clip), at: 6) }
    }

    // MARK: Who may

    @Test mutating func viewersMayNotDriveTheVideo() throws {
        #expect(throws: SessionError.forbidden) { try run(.showVideo(Self.clip), .viewer, at: 0) }
        _ = try run(.showVideo(Self.clip), at: 0)
        #expect(throws: SessionError.forbidden) { try run(.playback(.play), .viewer, at: 0) }
        #expect(throws: SessionError.forbidden) { try run(.hideVideo, .viewer, at: 0) }
    }

    @Test func inARoomOnlyWhoeverHoldsControlDrivesTheVideo() throws {
        var room = SessionState(roomWithCommandMemory: 64)
        _ = try room.handle(.room(.join(name: "Ann")), id: "j1", by: .presenter, presenterId: "ann")
        _ = try room.handle(.room(.join(name: "Bob")), id: "j2", by: .presenter, presenterId: "bob")
        // Nobody in control: the moderator drives.
        _ = try room.handle(.showVideo(Self.clip), id: "s", by: .moderator, at: 0)
        _ = try room.handle(.room(.grant(presenterId: "ann")), id: "g", by: .moderator, at: 1)
        #expect(throws: SessionError.notInControl) {
            try room.handle(.playback(.play), id: "p1", by: .presenter, presenterId: "bob", at: 2)
        }
        #expect(throws: SessionError.notInControl) { try room.handle(.playback(.play), id: "p2", by: .moderator, at: 2) }
        _ = try room.handle(.playback(.play), id: "p3", by: .presenter, presenterId: "ann", at: 2)
        #expect(room.snapshot.playback?.state == .playing)
    }

    // MARK: Replay

    @Test mutating func aRestartRebuildsTheSameReferenceFromTheStoredEvents() throws {
        var stored: [StoredEvent] = []
        for (command, time) in [
            (SessionCommand.showVideo(Self.clip), 0.0), (.playback(.play), 1), (.playback(.rate(1.5)), 5),
            (.playback(.seek(30)), 9), (.playback(.pause), 12),
        ] {
            nextID += 1
            let decision = try session.take(command, id: "c\(nextID)", from: Actor(.presenter), at: time)
            if case .applied(let events) = decision.outcome {
                stored += events.map { StoredEvent(event: $0, commandID: decision.commandKey) }
            }
        }
        let restarted = try SessionState(pageCount: 3, replaying: stored)
        #expect(restarted.snapshot.playback == session.snapshot.playback)
        // Typed apart: as one literal expression beside an optional it took the type checker 11 s.
        let position: Double = 30 + (12 - 9.5) * 1.5
        #expect(restarted.snapshot.playback?.position == position)
        // The event and the snapshot go over the wire and come back the same.
        let data = try JSONEncoder().encode(stored.map(\.event))
        #expect(try JSONDecoder().decode([SessionEvent].self, from: data) == stored.map(\.event))
        let snapshot = try JSONDecoder().decode(SessionSnapshot.self, from: JSONEncoder().encode(session.snapshot))
        #expect(snapshot == session.snapshot)
    }

    @Test func takingTheVideoOffIsSentAsAnExplicitNull() throws {
        let json = String(decoding: try JSONEncoder().encode(SessionEvent(seq: 4, change: .playback(nil))), as: UTF8.self)
        #expect(json.contains(#""playback":null"#))
    }
}
