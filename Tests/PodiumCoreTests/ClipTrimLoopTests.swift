import Foundation
import Testing

@testable import PodiumCore

/// A trimmed or looping clip on a stage (issue #41): the reference keeps positions inside the
/// trim, plays start at its start, and a looping clip wraps by arithmetic every screen shares.
@Suite("Clip trim and loop")
struct ClipTrimLoopTests {
    static let trimmed = VideoOnStage(id: "vid", duration: 60, start: 10, end: 20)
    static let looping = VideoOnStage(id: "vid", duration: 60, start: 10, end: 20, loop: true)

    var session = SessionState(pageCount: 3)
    var nextID = 0

    mutating func run(_ command: SessionCommand, at time: Double) throws(SessionError) -> [SessionChange] {
        nextID += 1
        guard case .applied(let events) = try session.handle(command, id: "c\(nextID)", by: .presenter, at: time)
        else { return [] }
        return events.map(\.change)
    }

    var playback: Playback? { session.snapshot.playback }

    @Test func aTrimmedClipMovesFromItsStartAndStopsAtItsEnd() {
        var playing = Playback(stopped: Self.trimmed, at: 0)
        #expect(playing.position == 10)
        playing.state = .playing
        playing.anchor = 100
        #expect(playing.position(at: 105) == 15)
        #expect(playing.position(at: 130) == 20)  // not past the trim's end
        #expect(playing.ended(at: 110))
        #expect(!playing.ended(at: 109.5))
    }

    @Test func aLoopingClipWrapsToItsStartAndNeverEnds() {
        var playing = Playback(stopped: Self.looping, at: 0)
        playing.state = .playing
        playing.anchor = 100
        #expect(playing.position(at: 109) == 19)
        #expect(playing.position(at: 110) == 10)  // at the end: the start again
        #expect(playing.position(at: 113.5) == 13.5)
        #expect(playing.position(at: 135) == 15)  // two laps and a half
        #expect(!playing.ended(at: 1000))
        // Every lap counts as played (the report's seconds played).
        #expect(playing.played(until: 135) == 35)
        playing.rate = 2
        #expect(playing.position(at: 106) == 12)  // 12 s moved: one lap and 2 s
    }

    @Test mutating func playStartsAtTheTrimsStartAndAtItsEndStartsOver() throws {
        _ = try run(.showVideo(Self.trimmed), at: 0)
        #expect(playback?.position == 10)
        _ = try run(.playback(.play), at: 1)
        #expect(playback?.position == 10)
        #expect(playback?.state == .playing)
        // Played out (at 1.5 + 10), a play starts again from the trim's start.
        _ = try run(.playback(.play), at: 30)
        #expect(playback?.position == 10)
        #expect(playback?.anchor == 30 + Playback.startLead)
        // Stop: back to the trim's start.
        _ = try run(.playback(.stop), at: 31)
        #expect(playback?.position == 10)
        #expect(try run(.playback(.stop), at: 32).isEmpty)
    }

    @Test mutating func aSeekIsClampedIntoTheTrimAndOutsideTheClipRefused() throws {
        _ = try run(.showVideo(Self.trimmed), at: 0)
        _ = try run(.playback(.seek(3)), at: 1)
        #expect(playback?.position == 10)
        _ = try run(.playback(.seek(45)), at: 2)
        #expect(playback?.position == 20)
        _ = try run(.playback(.seek(12.5)), at: 3)
        #expect(playback?.position == 12.5)
        #expect(throws: SessionError.invalidPlayback) { try run(.playback(.seek(61)), at: 4) }
    }

    @Test mutating func showingTheClipAgainTakesOnANewTrimAndKeepsItsPlaceInside() throws {
        _ = try run(.showVideo(VideoOnStage(id: "vid", duration: 60, media: Self.media("a"))), at: 0)
        _ = try run(.playback(.seek(30)), at: 1)
        let again = VideoOnStage(id: "vid", duration: 60, media: Self.media("a"), start: 5, end: 25, loop: true)
        _ = try run(.showVideo(again), at: 2)
        #expect(playback?.start == 5)
        #expect(playback?.end == 25)
        #expect(playback?.loop == true)
        #expect(playback?.position == 25)
        // The same media and the same trim: nothing changes.
        #expect(try run(.showVideo(again), at: 3).isEmpty)
    }

    @Test func theReferenceSaysItsTrimOnlyWhenItHasOne() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let plain = String(
            decoding: try encoder.encode(Playback(stopped: VideoOnStage(id: "v", duration: 5), at: 1)), as: UTF8.self)
        #expect(!plain.contains("start") && !plain.contains("loop"))
        let looping = Playback(stopped: Self.looping, at: 1)
        let data = try encoder.encode(looping)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""end":20"#) && text.contains(#""loop":true"#) && text.contains(#""start":10"#))
        #expect(try JSONDecoder().decode(Playback.self, from: data) == looping)
    }

    static func media(_ name: String) -> PlaybackMedia {
        PlaybackMedia(title: name, playlist: "/stream/\(name)/master.m3u8", poster: nil, thumbnails: nil, audioOnly: false)
    }
}

/// Where a clip is by its reference, as the core computes it: the cases the browser's
/// `referencePosition` and `shouldPlay` (Public/app/media/video-sync.js) are checked against by
/// Tests/JS/clip-positions.test.mjs, so every screen and the server agree on trims and loops.
@Suite("Clip position fixture")
struct ClipPositionFixtureTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/clip-positions.json")

    struct Case: Encodable {
        var playback: Playback
        var now: Double
        var position: Double
        var ended: Bool
    }

    struct Fixture: Encodable {
        var note =
            "Written by Tests/PodiumCoreTests/ClipTrimLoopTests.swift (PODIUM_UPDATE_FIXTURES=1); read by Tests/JS/clip-positions.test.mjs."
        var cases: [Case]
    }

    static func encoded() throws -> Data {
        var references: [Playback] = []
        for (start, end, loop) in [(nil, nil, false), (2.5, 7.25, false), (2.5, 7.25, true), (nil, 3.3, true), (1.1, nil, true)]
            as [(Double?, Double?, Bool)]
        {
            for rate in [1, 0.5, 1.75] {
                var playback = Playback(
                    video: "v", duration: 9.6, state: .playing, position: start ?? 0, anchor: 1_700_000_000.125, rate: rate)
                playback.start = start
                playback.end = end
                playback.loop = loop
                references.append(playback)
            }
        }
        var paused = references[6]
        paused.state = .paused
        paused.position = 4
        references.append(paused)
        let offsets = [-1, 0, 0.3, 4.7, 4.75, 9.6, 13.37, 100.01, 3600.5]
        let cases = references.flatMap { playback in
            offsets.map { offset in
                let now = playback.anchor + offset
                return Case(playback: playback, now: now, position: playback.position(at: now), ended: playback.ended(at: now))
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(Fixture(cases: cases))
        data.append(0x0A)
        return data
    }

    @Test func theCommittedFixtureIsWhatTheCoreComputes() throws {
        let data = try Self.encoded()
        try expectCommittedFixture(data, at: Self.fixture, suite: "ClipPositionFixtureTests", jsCheck: "video-sync.js")
    }
}
