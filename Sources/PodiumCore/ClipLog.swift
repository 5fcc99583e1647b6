/// Every clip put on a stage, in the order shown, with when it was on stage and how much of it
/// played: what the report and the export say of videos. Kept by the state from the events and
/// their times, like ``RoomTurns``, and not sent: clients have the events.
public struct ClipLog: Sendable, Equatable {
    /// One showing of a clip: from the event that put it on stage to the one that took it off (a
    /// page, another clip, hiding it, or the session's end).
    public struct Showing: Sendable, Equatable {
        /// The video's id in the library (it may have been deleted since).
        public var video: String
        /// The clip's length in seconds when it was shown; nil when not known.
        public var duration: Double?
        /// Seconds since 1970.
        public var shownAt: Double
        /// Seconds since 1970; nil while it is on stage.
        public var hiddenAt: Double?
        /// Where it comes among the pages an export lists: in a room, after this many pages
        /// shown (``RoomSnapshot/shown`` then); in a session, after this page of its deck (the
        /// page it was shown over).
        public var afterPages: Int
        /// Seconds of the clip played in the spans that have ended.
        var playedBefore = 0.0
        /// The reference while on stage, for the span that may still be playing.
        var playback: Playback?

        /// Seconds of the clip played up to `time`: the sum of its playing spans, each the
        /// distance its reference moved (so a faster rate counts the clip it played, and a clip
        /// that reached its end stops counting there).
        public func played(until time: Double) -> Double {
            playedBefore + (playback.map { Self.span(of: $0, until: time) } ?? 0)
        }

        /// Seconds on stage, up to `time` while it is still there.
        public func onStage(until time: Double) -> Double {
            max(0, (hiddenAt ?? time) - shownAt)
        }

        static func span(of playback: Playback, until time: Double) -> Double {
            playback.played(until: time)
        }

        mutating func move(to next: Playback?, at time: Double) {
            if let playback { playedBefore += Self.span(of: playback, until: time) }
            playback = next
            if next == nil { hiddenAt = time }
        }
    }

    public private(set) var showings: [Showing] = []

    public init() {}

    /// Follows one event, applied to `snapshot` already. `time` is when it was decided or stored
    /// (nil only for an event of unknown time: the reference's own anchor stands in for it).
    mutating func record(_ change: SessionChange, at time: Double?, in snapshot: SessionSnapshot) {
        let open = showings.last.flatMap { $0.hiddenAt == nil ? showings.count - 1 : nil }
        switch change {
        case .playback(let playback?):
            let time = time ?? playback.anchor
            if let open, showings[open].video == playback.video {
                showings[open].move(to: playback, at: time)
                return
            }
            // Another clip straight after this one takes its place: this one comes off.
            if let open { showings[open].move(to: nil, at: time) }
            let after = snapshot.room.map(\.shown.count) ?? snapshot.page
            showings.append(
                Showing(
                    video: playback.video, duration: playback.duration, shownAt: time, hiddenAt: nil, afterPages: after,
                    playback: playback))
        case .playback(nil), .ended:
            guard let open else { return }
            let showing = showings[open]
            showings[open].move(to: nil, at: time ?? showing.playback?.anchor ?? showing.shownAt)
        default:
            return
        }
    }
}
