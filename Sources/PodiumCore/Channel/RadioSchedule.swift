import Foundation

/// A radio station as live HLS without a daemon: its ready tracks play in a loop from an epoch,
/// and everything a listener sees follows from the wall clock alone. Segment `n` after the epoch
/// (across loops) has media sequence `baseSequence + n`, so a playlist, a segment request and a
/// "now playing" question each need only the schedule and the time: two servers, or one server
/// before and after a restart, give the same answer.
///
/// When the admin changes the tracks, ``reanchored(tracks:at:)`` starts a new schedule at the end
/// of the segment playing then, numbered after it, keeping the old schedule's last segments as a
/// lead-in so the next playlist continues the last one.
public struct RadioSchedule: Sendable, Equatable {
    public struct Segment: Sendable, Equatable, Codable {
        /// Where its bytes are (a blob name).
        public var blob: String
        /// Seconds.
        public var duration: Double

        public init(blob: String, duration: Double) {
            self.blob = blob
            self.duration = duration
        }
    }

    public struct Track: Sendable, Equatable {
        public var id: String
        public var title: String
        public var artist: String
        public var website: String?
        public var segments: [Segment]

        public init(id: String, title: String, artist: String, website: String?, segments: [Segment]) {
            self.id = id
            self.title = title
            self.artist = artist
            self.website = website
            self.segments = segments
        }

        public var duration: Double { segments.reduce(0) { $0 + $1.duration } }
    }

    /// One segment placed on the wall clock.
    public struct Placed: Sendable, Equatable {
        public var sequence: Int
        /// The discontinuity sequence number of this segment (RFC 8216 §6.2.1): how many
        /// discontinuities came before it, its own included.
        public var discontinuitySequence: Int
        /// Whether a discontinuity tag comes before it: the first segment of a track.
        public var discontinuity: Bool
        public var start: Date
        public var segment: Segment
        public var track: Track
        /// When its track began playing, and which segment of it this is.
        public var trackStart: Date
        public var index: Int

        public var end: Date { start.addingTimeInterval(segment.duration) }
    }

    /// What plays at a moment.
    public struct NowPlaying: Sendable, Equatable {
        public var track: Track
        public var startedAt: Date
        public var elapsed: Double
        public var remaining: Double
        public var next: Track?
    }

    /// The live playlist's content at a moment.
    public struct Window: Sendable, Equatable {
        public var mediaSequence: Int
        public var discontinuitySequence: Int
        public var targetDuration: Int
        public var segments: [Placed]
    }

    /// The tracks in play order; those without segments are left out.
    public let tracks: [Track]
    /// When the first loop began (its first track's first segment).
    public let epoch: Date
    /// The media sequence of the epoch's first segment.
    public let baseSequence: Int
    /// Discontinuities before the epoch's first segment (its own not counted).
    public let baseDiscontinuity: Int
    /// The first sequence this schedule plays itself; those before it are the lead-in's.
    public let startSequence: Int
    /// The end of the schedule this one replaced: its segments still in a window when this one
    /// starts, numbered just before `startSequence`. Kept in memory only: after a restart the
    /// stored anchor alone numbers the past the same way, only with the new tracks.
    public let lead: [Placed]
    /// The packager's segment length: the least target duration a playlist states.
    public static let minimumTargetDuration = 6

    /// How many completed segments a playlist lists.
    public let windowLength: Int

    // Derived once: the loop's segments with their offsets from the loop's start.
    private let starts: [Double]
    private let owners: [(track: Int, index: Int)]
    private let loopDuration: Double

    public static func == (lhs: RadioSchedule, rhs: RadioSchedule) -> Bool {
        lhs.tracks == rhs.tracks && lhs.epoch == rhs.epoch && lhs.baseSequence == rhs.baseSequence
            && lhs.baseDiscontinuity == rhs.baseDiscontinuity && lhs.startSequence == rhs.startSequence && lhs.lead == rhs.lead
            && lhs.windowLength == rhs.windowLength
    }

    public init(
        tracks: [Track], epoch: Date, baseSequence: Int = 0, baseDiscontinuity: Int = 0, startSequence: Int? = nil,
        lead: [Placed] = [], windowLength: Int = 5
    ) {
        let playable = tracks.filter { !$0.segments.isEmpty && $0.segments.allSatisfy { $0.duration > 0 } }
        self.tracks = playable
        self.epoch = epoch
        self.baseSequence = baseSequence
        self.baseDiscontinuity = baseDiscontinuity
        self.startSequence = max(baseSequence, startSequence ?? baseSequence)
        self.lead = lead
        self.windowLength = max(1, windowLength)
        var starts: [Double] = []
        var owners: [(track: Int, index: Int)] = []
        var offset = 0.0
        for (trackIndex, track) in playable.enumerated() {
            for (index, segment) in track.segments.enumerated() {
                starts.append(offset)
                owners.append((trackIndex, index))
                offset += segment.duration
            }
        }
        self.starts = starts
        self.owners = owners
        loopDuration = offset
    }

    /// Whether there is anything to play.
    public var isEmpty: Bool { tracks.isEmpty }

    /// Segments in one loop.
    private var loopCount: Int { starts.count }

    /// The segment with media sequence `sequence`, if the schedule has it (a lead-in segment, or
    /// one at or after the epoch). It may lie in the future: the caller decides whether to serve it.
    public func segment(sequence: Int) -> Placed? {
        if sequence < startSequence { return lead.first { $0.sequence == sequence } }
        guard !isEmpty else { return nil }
        let n = sequence - baseSequence
        let loop = n / loopCount
        let position = n % loopCount
        let (trackIndex, index) = owners[position]
        let loopStart = Double(loop) * loopDuration
        let start = loopStart + starts[position]
        let firstOfTrack = position - index
        // Track starts before this segment: every track of each whole loop, then this loop's up to it.
        let discontinuities = baseDiscontinuity + loop * tracks.count + trackIndex + 1
        return Placed(
            sequence: sequence, discontinuitySequence: discontinuities, discontinuity: index == 0,
            start: epoch.addingTimeInterval(start), segment: tracks[trackIndex].segments[index], track: tracks[trackIndex],
            trackStart: epoch.addingTimeInterval(loopStart + starts[firstOfTrack]), index: index)
    }

    /// The media sequence of the segment playing at `date`; nil before anything plays.
    public func sequence(at date: Date) -> Int? {
        guard !isEmpty, let start = segment(sequence: startSequence)?.start, date >= start else {
            return lead.last { $0.start <= date }?.sequence
        }
        let t = date.timeIntervalSince(epoch)
        let loop = Int((t / loopDuration).rounded(.down))
        let within = t - Double(loop) * loopDuration
        // The last start at or before `within`.
        var low = 0
        var high = loopCount - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= within { low = middle } else { high = middle - 1 }
        }
        return baseSequence + loop * loopCount + low
    }

    /// The playlist at `now`: the last ``windowLength`` segments that have ended by then.
    public func window(at now: Date) -> Window {
        var segments: [Placed] = []
        if let playing = sequence(at: now) {
            var sequence = playing - 1
            while segments.count < windowLength, let placed = segment(sequence: sequence) {
                segments.append(placed)
                sequence -= 1
            }
            segments.reverse()
        }
        let first = segments.first
        // Never below the packager's segment length, so it does not change with the tracks (RFC
        // 8216 asks it to stay); each EXTINF rounded must not exceed it.
        let longest = (tracks.flatMap(\.segments) + lead.map(\.segment)).map(\.duration).max() ?? 0
        return Window(
            mediaSequence: first?.sequence ?? (sequence(at: now) ?? baseSequence),
            // Discontinuities gone before the first listed segment.
            discontinuitySequence: first.map { $0.discontinuitySequence - ($0.discontinuity ? 1 : 0) } ?? baseDiscontinuity,
            targetDuration: max(Self.minimumTargetDuration, Int(longest.rounded())), segments: segments)
    }

    /// What plays at `date`, with the track after it.
    public func nowPlaying(at date: Date) -> NowPlaying? {
        guard let sequence = sequence(at: date), let placed = segment(sequence: sequence) else { return nil }
        let elapsed = date.timeIntervalSince(placed.trackStart)
        let duration = placed.track.duration
        return NowPlaying(
            track: placed.track, startedAt: placed.trackStart, elapsed: elapsed, remaining: max(0, duration - elapsed),
            next: nextTrack(after: placed))
    }

    /// The track that follows the one `placed` belongs to.
    private func nextTrack(after placed: Placed) -> Track? {
        let remainingInTrack = placed.track.segments.count - placed.index
        return segment(sequence: placed.sequence + remainingInTrack)?.track
    }

    /// A schedule of `tracks` that continues this one: from the end of the segment playing at
    /// `now`, numbered after it, with this schedule's last segments as its lead-in. The next
    /// segment stays the same where it can (an edited title, a track added elsewhere); when its
    /// track is gone, the new order plays from its start.
    public func reanchored(tracks: [Track], at now: Date) -> RadioSchedule {
        let fresh = RadioSchedule(tracks: tracks, epoch: now, windowLength: windowLength)
        guard let playing = sequence(at: now), let current = segment(sequence: playing), !fresh.isEmpty else {
            return RadioSchedule(
                tracks: tracks, epoch: max(now, epoch), baseSequence: startSequence, baseDiscontinuity: baseDiscontinuity,
                lead: lead, windowLength: windowLength)
        }
        var kept: [Placed] = []
        var sequence = playing
        while kept.count <= windowLength, let placed = segment(sequence: sequence) {
            kept.append(placed)
            sequence -= 1
        }
        // Where the new loop goes on: the old next segment's place in it, if its track is unchanged.
        var position = 0
        if let next = segment(sequence: playing + 1),
            let trackIndex = fresh.tracks.firstIndex(where: { $0.id == next.track.id && $0.segments == next.track.segments })
        {
            position = fresh.owners.firstIndex { $0.track == trackIndex }! + next.index
        }
        let (trackIndex, index) = fresh.owners[position]
        let firstDiscontinuity = current.discontinuitySequence + (index == 0 ? 1 : 0)
        return RadioSchedule(
            tracks: tracks, epoch: current.end.addingTimeInterval(-fresh.starts[position]),
            baseSequence: playing + 1 - position, baseDiscontinuity: firstDiscontinuity - trackIndex - 1,
            startSequence: playing + 1, lead: kept.reversed(), windowLength: windowLength)
    }

    /// The media playlist of ``window(at:)``: relative URIs `<sequence>.ts`, a discontinuity
    /// before each track, and the program date time of every segment (what a player uses to tell
    /// which track it is playing, behind the live edge).
    public func playlist(at now: Date) -> String {
        let window = window(at: now)
        var lines = [
            "#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:\(window.targetDuration)",
            "#EXT-X-MEDIA-SEQUENCE:\(window.mediaSequence)",
            "#EXT-X-DISCONTINUITY-SEQUENCE:\(window.discontinuitySequence)",
        ]
        for placed in window.segments {
            if placed.discontinuity { lines.append("#EXT-X-DISCONTINUITY") }
            lines.append("#EXT-X-PROGRAM-DATE-TIME:\(Self.programDateTime(placed.start))")
            lines.append("#EXTINF:\(String(format: "%.3f", placed.segment.duration)),")
            lines.append("\(placed.sequence).ts")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// ISO 8601 with milliseconds, in UTC.
    public static func programDateTime(_ date: Date) -> String {
        date.formatted(
            Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!))
    }
}
