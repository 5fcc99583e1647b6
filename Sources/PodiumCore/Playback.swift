/// A video on a stage and where it is: the one reference every screen plays from.
///
/// The server keeps one per stage and changes it only by durable events (play, pause, stop, seek,
/// rate). No screen is told "play now": each computes where the clip should be from the reference
/// and its own estimate of the server's clock (``position(at:)``), so late joiners, reconnecting
/// clients and a projector that buffered all land at the same moment of the clip.
public struct Playback: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        case playing, paused, stopped
    }

    /// The video's id in the library.
    public var video: String
    /// What a screen loads to play it (nil in events stored before the reference carried it).
    public var media: PlaybackMedia?
    /// The clip's length in seconds, when the library knows it (positions are kept inside it).
    public var duration: Double?
    public var state: State
    /// Seconds into the clip at `anchor`.
    public var position: Double
    /// A server time (seconds since 1970): while playing, the clip is at `position` then and
    /// moves on at `rate` after it. A play's anchor is a little ahead of the command
    /// (``startLead``), so every screen has time to start together.
    public var anchor: Double
    /// Playback speed, 1 = normal (``rates``).
    public var rate: Double
    /// The clip's trim: where it starts and ends on the stage (seconds into it; nil: its own start
    /// or end). Positions are kept inside it: a play starts at `start`, the clip stops at `end`.
    public var start: Double? = nil
    public var end: Double? = nil
    /// Reaching its end (or `end`), the clip goes on from its start (or `start`): every screen
    /// computes the same wrap from the reference, so no event is needed and none drifts.
    public var loop: Bool = false

    /// How far ahead of the command a play or a seek while playing is anchored: the time a
    /// screen needs to hear of it and start (a phone on Wi-Fi is well under this).
    public static let startLead = 0.5
    /// The speeds a presenter may choose.
    public static let rates: ClosedRange<Double> = 0.25...4

    public init(
        video: String, media: PlaybackMedia? = nil, duration: Double?, state: State, position: Double, anchor: Double,
        rate: Double = 1
    ) {
        self.video = video
        self.media = media
        self.duration = duration
        self.state = state
        self.position = position
        self.anchor = anchor
        self.rate = rate
    }

    /// A clip just put on stage: stopped at its start (its trim's start).
    public init(stopped video: VideoOnStage, at time: Double) {
        self.init(
            video: video.id, media: video.media, duration: video.duration, state: .stopped, position: video.start ?? 0,
            anchor: time)
        start = video.start
        end = video.end
        loop = video.loop
    }

    enum CodingKeys: String, CodingKey { case video, media, duration, state, position, anchor, rate, start, end, loop }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        video = try container.decode(String.self, forKey: .video)
        media = try container.decodeIfPresent(PlaybackMedia.self, forKey: .media)
        duration = try container.decodeIfPresent(Double.self, forKey: .duration)
        state = try container.decode(State.self, forKey: .state)
        position = try container.decode(Double.self, forKey: .position)
        anchor = try container.decode(Double.self, forKey: .anchor)
        rate = try container.decode(Double.self, forKey: .rate)
        start = try container.decodeIfPresent(Double.self, forKey: .start)
        end = try container.decodeIfPresent(Double.self, forKey: .end)
        loop = try container.decodeIfPresent(Bool.self, forKey: .loop) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(video, forKey: .video)
        try container.encode(media, forKey: .media)
        // An explicit null: "length unknown" is information here.
        try container.encode(duration, forKey: .duration)
        try container.encode(state, forKey: .state)
        try container.encode(position, forKey: .position)
        try container.encode(anchor, forKey: .anchor)
        try container.encode(rate, forKey: .rate)
        // Only a trimmed or looping clip says so: references without them read as before.
        try container.encodeIfPresent(start, forKey: .start)
        try container.encodeIfPresent(end, forKey: .end)
        if loop { try container.encode(loop, forKey: .loop) }
    }

    /// Where the clip starts on the stage: its trim's start, or 0.
    public var lower: Double { start ?? 0 }
    /// Where it ends on the stage: its trim's end, or its length (nil when neither is known).
    public var upper: Double? { end ?? duration }

    /// Where the clip is (seconds into it) at server time `time`: it waits at `position` until
    /// its anchor, then moves at `rate` until its end (its trim's end), where a looping clip
    /// goes on from its start: `lower + (p - lower) mod (upper - lower)`, the same arithmetic
    /// (IEEE remainder, exact) on every screen (`referencePosition` in video-sync.js).
    public func position(at time: Double) -> Double {
        guard state == .playing, time > anchor else { return position }
        let moved = position + (time - anchor) * rate
        if loop, let upper, upper > lower, moved >= upper {
            return clamped(lower + (moved - lower).truncatingRemainder(dividingBy: upper - lower))
        }
        return clamped(moved)
    }

    /// Whether a playing clip has reached its end by `time` (a clip of unknown length, or one
    /// that loops, never does).
    public func ended(at time: Double) -> Bool {
        guard let upper, !loop else { return false }
        return state == .playing && position(at: time) >= upper
    }

    /// Seconds of the clip played from the anchor to `time` (the distance the reference moved,
    /// each lap of a looping clip counted).
    public func played(until time: Double) -> Double {
        guard state == .playing, time > anchor else { return 0 }
        if loop, let upper, upper > lower { return (time - anchor) * rate }
        return max(0, position(at: time) - position)
    }

    func clamped(_ seconds: Double) -> Double {
        max(lower, upper.map { min($0, seconds) } ?? seconds)
    }

    /// What a playback command makes of this reference at server time `time`, or nil when it
    /// changes nothing (pausing a paused clip).
    func applying(_ command: PlaybackCommand, at time: Double) throws(SessionError) -> Playback? {
        var next = self
        let now = position(at: time)
        switch command {
        case .play:
            guard state != .playing || ended(at: time) else { return nil }
            // Played again from its end (or stopped), the clip starts over (from its trim's start).
            let atEnd = upper.map { now >= $0 } ?? false
            next.position = state == .stopped || atEnd ? lower : now
            next.state = .playing
            next.anchor = time + Self.startLead
        case .pause:
            guard state == .playing else { return nil }
            next.state = .paused
            next.position = now
            next.anchor = time
        case .stop:
            guard state != .stopped || position != lower else { return nil }
            next.state = .stopped
            next.position = lower
            next.anchor = time
        case .seek(let seconds):
            guard seconds.isFinite, seconds >= 0, duration.map({ seconds <= $0 }) ?? true else {
                throw .invalidPlayback
            }
            // Inside the clip, but outside its trim: to the trim's nearer end.
            next.position = clamped(seconds)
            // A seek while playing goes on playing from there, together (like a play); paused or
            // stopped, the clip waits there (a stopped clip moved is paused).
            if state == .playing {
                next.anchor = time + Self.startLead
            } else {
                next.state = .paused
                next.anchor = time
            }
        case .rate(let rate):
            guard rate.isFinite, Self.rates.contains(rate) else { throw .invalidPlayback }
            guard rate != self.rate else { return nil }
            // The clip so far moved at the old rate: re-anchor where it is now (unless a play is
            // still waiting for its start), then go on at the new one.
            if !(state == .playing && time < anchor) {
                next.position = now
                next.anchor = time
            }
            next.rate = rate
        }
        return next
    }
}

/// What the server knows of a video it puts on stage (from the library).
public struct VideoOnStage: Sendable, Equatable {
    public var id: String
    /// Seconds; nil when not known.
    public var duration: Double?
    /// Its files, as screens load them; nil until the library has looked the video up.
    public var media: PlaybackMedia?
    /// Its trim (seconds into it; nil: its own start or end) and whether it loops, as the library keeps them.
    public var start: Double?
    public var end: Double?
    public var loop: Bool

    public init(
        id: String, duration: Double?, media: PlaybackMedia? = nil, start: Double? = nil, end: Double? = nil,
        loop: Bool = false
    ) {
        self.id = id
        self.duration = duration
        self.media = media
        self.start = start
        self.end = end
        self.loop = loop
    }
}

/// The files of a video on stage, as URLs on this server, and its title: in the reference itself,
/// so a screen needs no library access (viewers have none) and the report can name a clip deleted
/// since.
public struct PlaybackMedia: Codable, Sendable, Equatable {
    public var title: String
    /// The HLS master playlist: a capability URL (`/stream/<token>/…`) that expires.
    public var playlist: String
    /// The poster frame (JPEG), or nil for audio only.
    public var poster: String?
    /// The WebVTT track of the thumbnail strip (for a scrub bar), or nil.
    public var thumbnails: String?
    /// No picture: a screen shows the poster or the title while it plays.
    public var audioOnly: Bool
    /// When `playlist` and `thumbnails` stop working (server time, seconds since 1970); nil when
    /// they do not expire. The screen that drives shows the clip again before then, which
    /// renews them.
    public var expiresAt: Double?

    public init(
        title: String, playlist: String, poster: String?, thumbnails: String?, audioOnly: Bool, expiresAt: Double? = nil
    ) {
        self.title = title
        self.playlist = playlist
        self.poster = poster
        self.thumbnails = thumbnails
        self.audioOnly = audioOnly
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey { case title, playlist, poster, thumbnails, audioOnly, expiresAt }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(title, forKey: .title)
        try container.encode(playlist, forKey: .playlist)
        // Explicit nulls: the documents show every field as it is sent.
        try container.encode(poster, forKey: .poster)
        try container.encode(thumbnails, forKey: .thumbnails)
        try container.encode(audioOnly, forKey: .audioOnly)
        try container.encodeIfPresent(expiresAt, forKey: .expiresAt)
    }
}

/// What a presenter does to the video on stage.
public enum PlaybackCommand: Sendable, Equatable {
    case play
    case pause
    /// Back to the start, not playing.
    case stop
    /// To this many seconds into the clip.
    case seek(Double)
    case rate(Double)
}

/// What puts a video on the stage, drives it, or takes it off.
public enum VideoCommand: Sendable, Equatable {
    /// Puts a video from the library on the stage, stopped at its start (built by the server
    /// once it found the video ready and checked who may show it; a client names only its id).
    case show(VideoOnStage)
    /// Plays, pauses, stops, seeks or changes the speed of the video on the stage.
    case playback(PlaybackCommand)
    /// Takes the video off the stage: the deck's page shows again.
    case hide
}

extension VideoCommand: FeatureCommand {
    public static let wireTypes = ["showVideo", "playback", "hideVideo"]

    enum Keys: String, CodingKey { case type, videoId, action, position, rate }

    public init(wireType type: String, id: String, from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        switch type {
        case "showVideo":
            // The server looks the video up and fills in what the library knows of it.
            let videoId = try c.decode(String.self, forKey: .videoId)
            guard !videoId.isEmpty, videoId.count <= ClientMessage.maxIDLength else {
                throw DecodingError.dataCorruptedError(
                    forKey: .videoId, in: c, debugDescription: "videoId must be 1 to 64 characters")
            }
            self = .show(VideoOnStage(id: videoId, duration: nil))
        case "hideVideo": self = .hide
        default: self = .playback(try Self.playback(c))
        }
    }

    private static func playback(_ c: KeyedDecodingContainer<Keys>) throws -> PlaybackCommand {
        switch try c.decode(String.self, forKey: .action) {
        case "play": .play
        case "pause": .pause
        case "stop": .stop
        case "seek": .seek(try c.decode(Double.self, forKey: .position))
        case "rate": .rate(try c.decode(Double.self, forKey: .rate))
        case let action:
            throw DecodingError.dataCorruptedError(forKey: .action, in: c, debugDescription: "unknown playback action \(action)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        switch self {
        case .show(let video):
            try c.encode("showVideo", forKey: .type)
            try c.encode(video.id, forKey: .videoId)
        case .hide:
            try c.encode("hideVideo", forKey: .type)
        case .playback(let command):
            try c.encode("playback", forKey: .type)
            switch command {
            case .play: try c.encode("play", forKey: .action)
            case .pause: try c.encode("pause", forKey: .action)
            case .stop: try c.encode("stop", forKey: .action)
            case .seek(let position):
                try c.encode("seek", forKey: .action)
                try c.encode(position, forKey: .position)
            case .rate(let rate):
                try c.encode("rate", forKey: .action)
                try c.encode(rate, forKey: .rate)
            }
        }
    }

    public var sessionCommand: SessionCommand { .video(self) }
}

extension SessionCommand {
    public static func showVideo(_ video: VideoOnStage) -> Self { .video(.show(video)) }
    public static func playback(_ command: PlaybackCommand) -> Self { .video(.playback(command)) }
    public static var hideVideo: Self { .video(.hide) }
}

extension SessionState {
    /// Decides what puts a video on stage, drives it, or takes it off.
    func decide(_ command: VideoCommand, by actor: Actor, at time: Double) throws(SessionError) -> FeatureDecision {
        // A video on stage is driven like its pages: in a room, by whoever holds control.
        guard drives(actor.role, presenterId: actor.presenterId) else {
            throw snapshot.room == nil ? .forbidden : .notInControl
        }
        guard !snapshot.ended else { throw .ended }
        switch command {
        case .show(let video):
            if let playback = snapshot.playback, playback.video == video.id {
                // The clip on stage again: it stays where it is and how it plays; only what the
                // screens load is renewed (the server makes a fresh stream URL, the old one
                // expires). Re-anchored at `time` on the same course, so no screen jumps and
                // the time played so far is counted once.
                // A trim or loop changed in the library since is taken on too, the clip kept inside it.
                let media = video.media ?? playback.media
                let sameClip = playback.start == video.start && playback.end == video.end && playback.loop == video.loop
                guard media != playback.media || (video.media != nil && !sameClip) else { return .nothing }
                var renewed = playback
                if playback.state == .playing, time > playback.anchor {
                    renewed.position = playback.position(at: time)
                    renewed.anchor = time
                }
                renewed.media = media
                if video.media != nil {
                    renewed.start = video.start
                    renewed.end = video.end
                    renewed.loop = video.loop
                    renewed.position = renewed.clamped(renewed.position)
                }
                return FeatureDecision(changes: [.playback(renewed)])
            }
            return FeatureDecision(changes: [.playback(Playback(stopped: video, at: time))])
        case .playback(let command):
            guard let playback = snapshot.playback else { throw .noVideo }
            guard let next = try playback.applying(command, at: time) else { return .nothing }
            return FeatureDecision(changes: [.playback(next)])
        case .hide:
            return snapshot.playback == nil ? .nothing : FeatureDecision(changes: [.playback(nil)])
        }
    }
}

extension SessionError {
    public static let noVideo = SessionError(code: "no_video", message: "No video is on the stage.")
    public static let invalidPlayback = SessionError(
        code: "invalid_playback", message: "Seek to a time inside the clip; a rate is 0.25 to 4.")
    public static let videoOnStage = SessionError(
        code: "video_on_stage", message: "A video is on the stage: show a page first.")
    public static let videoNotFound = SessionError(
        code: "video_not_found", message: "There is no such video ready in your library.")
}
