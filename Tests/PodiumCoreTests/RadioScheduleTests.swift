import Foundation
import Testing

@testable import PodiumCore

/// The radio's live window from the wall clock alone: numbering across tracks and loops,
/// discontinuities, now playing, a restart (a new schedule object later) and an admin's change.
@Suite("Radio schedule")
struct RadioScheduleTests {
    static let epoch = Date(timeIntervalSince1970: 1_800_000_000)

    static func track(_ id: String, _ durations: [Double]) -> RadioSchedule.Track {
        RadioSchedule.Track(
            id: id, title: "Title \(id)", artist: "Artist \(id)", website: nil,
            segments: durations.enumerated().map { RadioSchedule.Segment(blob: "\(id)-\($0.offset)", duration: $0.element) })
    }

    // a: 6+6+3 = 15 s, b: 6+2 = 8 s; a loop is 23 s and 5 segments.
    static let tracks = [track("a", [6, 6, 3]), track("b", [6, 2])]

    static func at(_ seconds: Double) -> Date { epoch.addingTimeInterval(seconds) }

    @Test func sequenceNumbersCountSegmentsSinceTheEpochAcrossLoops() throws {
        let schedule = RadioSchedule(tracks: Self.tracks, epoch: Self.epoch)
        #expect(schedule.sequence(at: Self.at(0)) == 0)
        #expect(schedule.sequence(at: Self.at(5.99)) == 0)
        #expect(schedule.sequence(at: Self.at(6)) == 1)
        #expect(schedule.sequence(at: Self.at(15)) == 3)  // b's first
        #expect(schedule.sequence(at: Self.at(22.9)) == 4)
        #expect(schedule.sequence(at: Self.at(23)) == 5)  // a again, second loop
        #expect(schedule.sequence(at: Self.at(23 * 1000 + 16)) == 5003)
        #expect(schedule.sequence(at: Self.at(-1)) == nil)

        let placed = try #require(schedule.segment(sequence: 5003))
        #expect(placed.track.id == "b" && placed.index == 0 && placed.discontinuity)
        #expect(placed.start == Self.at(23 * 1000 + 15))
        #expect(placed.segment.blob == "b-0")
        // Track starts before and at it: two per loop for 1000 loops, then a and b.
        #expect(placed.discontinuitySequence == 2002)
        #expect(schedule.segment(sequence: 5004)?.discontinuity == false)
    }

    @Test func theWindowListsTheLastCompletedSegmentsWithADiscontinuityAtEachTrack() throws {
        let schedule = RadioSchedule(tracks: Self.tracks, epoch: Self.epoch, windowLength: 3)
        let window = schedule.window(at: Self.at(23 + 7))  // playing seq 6; completed up to 5
        #expect(window.segments.map(\.sequence) == [3, 4, 5])
        #expect(window.mediaSequence == 3)
        // seq 3 starts track b: the discontinuities before it are a (seq 0) only.
        #expect(window.discontinuitySequence == 1)
        #expect(window.segments.map(\.discontinuity) == [true, false, true])
        #expect(window.targetDuration == 6)

        let playlist = schedule.playlist(at: Self.at(23 + 7))
        #expect(playlist.contains("#EXT-X-MEDIA-SEQUENCE:3\n#EXT-X-DISCONTINUITY-SEQUENCE:1\n"))
        #expect(
            playlist.contains("#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:2027-01-15T08:00:23.000Z\n#EXTINF:6.000,\n5.ts"))
        #expect(!playlist.contains("6.ts"))
    }

    @Test func consecutiveWindowsContinueAcrossTrackBoundariesAndLoops() {
        let schedule = RadioSchedule(tracks: Self.tracks, epoch: Self.epoch, windowLength: 4)
        var previous = schedule.window(at: Self.at(30))
        for second in stride(from: 31.0, through: 200, by: 0.5) {
            let window = schedule.window(at: Self.at(second))
            Self.expectContinues(window, previous)
            previous = window
        }
    }

    @Test func aRestartedServerGivesTheWindowThatContinuesTheEarlierOne() {
        let before = RadioSchedule(tracks: Self.tracks, epoch: Self.epoch).window(at: Self.at(40))
        // A new process: a new schedule object from the stored epoch, a while later.
        let after = RadioSchedule(tracks: Self.tracks, epoch: Self.epoch).window(at: Self.at(47))
        Self.expectContinues(after, before)
        #expect(after.mediaSequence > before.mediaSequence)
    }

    @Test func nowPlayingGivesTheTrackElapsedRemainingAndNext() throws {
        let schedule = RadioSchedule(tracks: Self.tracks, epoch: Self.epoch)
        let playing = try #require(schedule.nowPlaying(at: Self.at(23 + 10)))
        #expect(playing.track.id == "a")
        #expect(playing.startedAt == Self.at(23))
        #expect(playing.elapsed == 10)
        #expect(playing.remaining == 5)
        #expect(playing.next?.id == "b")
        #expect(schedule.nowPlaying(at: Self.at(23 + 16))?.next?.id == "a")  // b, then the loop
        let alone = RadioSchedule(tracks: [Self.track("a", [6, 6])], epoch: Self.epoch)
        #expect(alone.nowPlaying(at: Self.at(1))?.next?.id == "a")
        #expect(RadioSchedule(tracks: [], epoch: Self.epoch).nowPlaying(at: Self.at(1)) == nil)
    }

    @Test func changingTheTracksKeepsTheSequenceIncreasingAndTheWindowContinuing() throws {
        let old = RadioSchedule(tracks: Self.tracks, epoch: Self.epoch, windowLength: 3)
        let change = Self.at(23 + 8)  // playing seq 6 (a's second segment, 29…35)
        let new = old.reanchored(tracks: [Self.track("c", [4, 4])], at: change)
        #expect(new.epoch == Self.at(35))
        #expect(new.baseSequence == 7)
        // Still the old segment until it ends, then c from its start with a discontinuity.
        #expect(new.nowPlaying(at: Self.at(34))?.track.id == "a")
        let first = try #require(new.segment(sequence: 7))
        #expect(first.track.id == "c" && first.discontinuity && first.start == Self.at(35))

        var previous = old.window(at: change)
        for second in stride(from: 31.5, through: 120, by: 0.5) {
            let window = new.window(at: Self.at(second))
            Self.expectContinues(window, previous)
            previous = window
        }
        // The old segments stay servable while a window may list them.
        #expect(new.segment(sequence: 6)?.segment.blob == "a-1")
        // And a restart after the change (no lead-in in memory) still numbers on.
        let restarted = RadioSchedule(
            tracks: [Self.track("c", [4, 4])], epoch: new.epoch, baseSequence: new.baseSequence,
            baseDiscontinuity: new.baseDiscontinuity, windowLength: 3)
        #expect(new.startSequence == 7)
        #expect(restarted.window(at: Self.at(60)) == new.window(at: Self.at(60)))
    }

    @Test func editingATitleOrAddingATrackGoesOnWhereThePlayWas() throws {
        let old = RadioSchedule(tracks: Self.tracks, epoch: Self.epoch, windowLength: 3)
        let change = Self.at(23 + 8)  // playing seq 6, a's second segment; next is a's third
        var renamed = Self.tracks
        renamed[0].title = "A new title"
        let new = old.reanchored(tracks: [Self.track("z", [5])] + renamed, at: change)
        let next = try #require(new.segment(sequence: 7))
        #expect(next.track.title == "A new title" && next.index == 2 && !next.discontinuity)
        #expect(next.start == Self.at(35))
        #expect(next.discontinuitySequence == old.segment(sequence: 6)?.discontinuitySequence)
        #expect(new.segment(sequence: 8)?.track.id == "b")
        #expect(new.segment(sequence: 10)?.track.id == "z")  // the loop's new first track comes round
        var previous = old.window(at: change)
        for second in stride(from: 31.5, through: 120, by: 0.5) {
            let window = new.window(at: Self.at(second))
            Self.expectContinues(window, previous)
            previous = window
        }
        let playing = try #require(new.nowPlaying(at: Self.at(36)))
        #expect(playing.track.title == "A new title" && playing.startedAt == Self.at(23) && playing.elapsed == 13)
    }

    /// `window` follows `previous` as a player expects: the media sequence never goes back, a
    /// segment listed in both has the same number, place and discontinuity numbering.
    static func expectContinues(_ window: RadioSchedule.Window, _ previous: RadioSchedule.Window) {
        #expect(window.mediaSequence >= previous.mediaSequence)
        #expect(window.discontinuitySequence >= previous.discontinuitySequence)
        let earlier = Dictionary(uniqueKeysWithValues: previous.segments.map { ($0.sequence, $0) })
        for placed in window.segments {
            if let same = earlier[placed.sequence] {
                #expect(same == placed)
            }
        }
        if let last = previous.segments.last, let first = window.segments.first {
            #expect(first.sequence <= last.sequence + 1)  // no gap
        }
        // Within a window, numbers are consecutive and each discontinuity counts once.
        for (a, b) in zip(window.segments, window.segments.dropFirst()) {
            #expect(b.sequence == a.sequence + 1)
            #expect(b.discontinuitySequence == a.discontinuitySequence + (b.discontinuity ? 1 : 0))
            #expect(abs(b.start.timeIntervalSince(a.end)) < 0.001)
        }
        if let first = window.segments.first {
            #expect(window.discontinuitySequence == first.discontinuitySequence - (first.discontinuity ? 1 : 0))
        }
    }
}
