import Foundation

/// A radio station of the channel as its API shows it (seed Appendix B's radio, camelCase, with
/// "now playing"). `nowPlaying` names the scheduled track and when it started; a client computes
/// the elapsed time from `startedAt` (so the body, and its ETag, change only when the track
/// does). Every field is sent, `null` when empty.
public struct ChannelRadioStation: Codable, Sendable, Equatable {
    /// A track as a listener is told of it: the `next` one in ``Playing`` and in the
    /// `nowplaying` event.
    public struct Track: Codable, Sendable, Equatable {
        public var title: String
        public var artist: String
        @NullEncoded public var website: String?

        public init(title: String, artist: String, website: String?) {
            self.title = title
            self.artist = artist
            self.website = website
        }
    }

    /// What a station plays: the track, when it started on the schedule, how long it is, and
    /// what comes next. A client computes the elapsed time from ``startedAt``.
    public struct Playing: Codable, Sendable, Equatable {
        public var title: String
        public var artist: String
        @NullEncoded public var website: String?
        public var startedAt: Date
        public var duration: Double
        @NullEncoded public var next: Track?

        public init(title: String, artist: String, website: String?, startedAt: Date, duration: Double, next: Track?) {
            self.title = title
            self.artist = artist
            self.website = website
            self.startedAt = startedAt
            self.duration = duration
            self.next = next
        }
    }

    public var id: String
    /// The same as ``id`` (Appendix B's name).
    public var radioId: String
    public var name: String
    public var description: String
    @NullEncoded public var website: String?
    /// Where a player asks for its own stream URL (`GET …/stream`).
    public var url: String
    /// When it was published (Appendix B's `date`; nil while a draft).
    @NullEncoded public var date: Date?
    public var position: Int
    /// Ready tracks in the schedule.
    public var trackCount: Int
    /// One loop of the schedule, in seconds.
    public var duration: Double
    @NullEncoded public var publishedAt: Date?
    public var updatedAt: Date
    @NullEncoded public var archivedAt: Date?
    /// Nil while nothing is scheduled.
    @NullEncoded public var nowPlaying: Playing?

    public init(
        id: String, radioId: String, name: String, description: String, website: String?, url: String, date: Date?,
        position: Int, trackCount: Int, duration: Double, publishedAt: Date?, updatedAt: Date, archivedAt: Date?,
        nowPlaying: Playing?
    ) {
        self.id = id
        self.radioId = radioId
        self.name = name
        self.description = description
        self.website = website
        self.url = url
        self.date = date
        self.position = position
        self.trackCount = trackCount
        self.duration = duration
        self.publishedAt = publishedAt
        self.updatedAt = updatedAt
        self.archivedAt = archivedAt
        self.nowPlaying = nowPlaying
    }
}

/// A station's stream for the one asking (`GET …/radios/{id}/stream`): their own URL, until when
/// it works, and how much of the daily allowance is left (`null` for members).
public struct ChannelRadioStream: Codable, Sendable, Equatable {
    public var url: String
    public var expiresAt: Date
    @NullEncoded public var remainingToday: Double?
    @NullEncoded public var resetsAt: Date?

    public init(url: String, expiresAt: Date, remainingToday: Double?, resetsAt: Date?) {
        self.url = url
        self.expiresAt = expiresAt
        self.remainingToday = remainingToday
        self.resetsAt = resetsAt
    }
}

/// A track of a station as its admin sees it, with its packaging progress. Every field is sent,
/// `null` when empty.
public struct ChannelRadioTrack: Codable, Sendable, Equatable {
    public var id: String
    public var radioId: String
    public var position: Int
    public var title: String
    public var artist: String
    @NullEncoded public var website: String?
    /// `queued`, `processing`, `ready` or `failed`.
    public var status: String
    /// When failed.
    @NullEncoded public var error: FailureDetail?
    /// Seconds (0 until packaged).
    public var duration: Double
    public var segmentCount: Int
    /// While its job runs on this server.
    @NullEncoded public var progress: WorkProgress?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: String, radioId: String, position: Int, title: String, artist: String, website: String?, status: String,
        error: FailureDetail?, duration: Double, segmentCount: Int, progress: WorkProgress?, createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.radioId = radioId
        self.position = position
        self.title = title
        self.artist = artist
        self.website = website
        self.status = status
        self.error = error
        self.duration = duration
        self.segmentCount = segmentCount
        self.progress = progress
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What a station plays now, as its `nowplaying` event tells it (docs/protocol.md, "Radio now
/// playing"): the track's id, the fields of ``ChannelRadioStation/Playing``, where the schedule
/// is in the track (`elapsed`, `remaining`) and the listener's allowance left.
public struct ChannelRadioNowPlaying: Codable, Sendable, Equatable {
    public var radioId: String
    public var trackId: String
    public var title: String
    public var artist: String
    @NullEncoded public var website: String?
    public var startedAt: Date
    public var duration: Double
    @NullEncoded public var next: ChannelRadioStation.Track?
    public var elapsed: Double
    public var remaining: Double
    /// Seconds of today's allowance left; nil (`null`) for members.
    @NullEncoded public var remainingToday: Double?

    public init(
        radioId: String, trackId: String, playing: ChannelRadioStation.Playing, elapsed: Double, remaining: Double,
        remainingToday: Double?
    ) {
        self.radioId = radioId
        self.trackId = trackId
        title = playing.title
        artist = playing.artist
        website = playing.website
        startedAt = playing.startedAt
        duration = playing.duration
        next = playing.next
        self.elapsed = elapsed
        self.remaining = remaining
        self.remainingToday = remainingToday
    }

    /// The track's part: what ``ChannelRadioStation/nowPlaying`` says of it.
    public var playing: ChannelRadioStation.Playing {
        .init(title: title, artist: artist, website: website, startedAt: startedAt, duration: duration, next: next)
    }
}
