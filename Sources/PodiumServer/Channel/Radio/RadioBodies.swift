import Foundation
import Hummingbird
import PodiumCore
import PodiumStore

/// A track as a listener is told of it: the `next` one in a station's `nowPlaying` and in the
/// `nowplaying` event.
struct RadioTrackInfo: Encodable, Sendable, Equatable {
    let title: String
    let artist: String
    @NullEncoded var website: String?

    init(_ track: RadioSchedule.Track) {
        title = track.title
        artist = track.artist
        website = track.website
    }
}

/// What a station plays: the track, when it started on the schedule, how long it is, and what
/// comes next. A station's body shows it as `nowPlaying`; each `nowplaying` event carries its
/// fields, with where the listener is in the track (``RadioEvents/Event``).
struct RadioPlaying: Encodable, Sendable, Equatable {
    let title: String
    let artist: String
    @NullEncoded var website: String?
    let startedAt: Date
    let duration: Double
    @NullEncoded var next: RadioTrackInfo?

    init(_ playing: RadioSchedule.NowPlaying) {
        title = playing.track.title
        artist = playing.track.artist
        website = playing.track.website
        startedAt = playing.startedAt
        duration = playing.track.duration
        next = playing.next.map(RadioTrackInfo.init)
    }
}

/// A station as the channel's API shows it (seed Appendix B's radio, camelCase, with "now
/// playing"). `nowPlaying` names the scheduled track and when it started; a client computes the
/// elapsed time from `startedAt` (so the body, and its ETag, change only when the track does).
/// Every field is sent, `null` when empty.
struct RadioBody: Encodable, Sendable {
    let id: String
    let radioId: String
    let name: String
    let description: String
    @NullEncoded var website: String?
    /// Where a player asks for its own stream URL (`GET …/stream`).
    let url: String
    /// When it was published (Appendix B's `date`).
    @NullEncoded var date: Date?
    let position: Int
    let trackCount: Int
    /// One loop of the schedule, in seconds.
    let duration: Double
    @NullEncoded var publishedAt: Date?
    let updatedAt: Date
    @NullEncoded var archivedAt: Date?
    @NullEncoded var nowPlaying: RadioPlaying?

    init(_ station: RadioStations.Station, at now: Date) {
        let radio = station.record
        id = radio.id
        radioId = radio.id
        name = radio.name
        description = radio.description
        website = radio.website
        url = "/api/v1/channel/radios/\(radio.id)/stream"
        date = radio.publishedAt
        position = radio.position
        trackCount = station.schedule.tracks.count
        duration = station.schedule.tracks.reduce(0) { $0 + $1.duration }
        publishedAt = radio.publishedAt
        updatedAt = radio.updatedAt
        archivedAt = radio.archivedAt
        nowPlaying = station.schedule.nowPlaying(at: now).map(RadioPlaying.init)
    }

    /// When the body last changed: an edit, or the start of the track playing.
    var lastModified: Date { max(updatedAt, nowPlaying?.startedAt ?? updatedAt) }
}

/// A track as the admin sees it, with its packaging progress.
struct RadioTrackBody: Encodable, Sendable {
    let record: ChannelRadioTrackRecord
    let progress: JobProgress?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(record.id, forKey: .id)
        try container.encode(record.radioId, forKey: .radioId)
        try container.encode(record.position, forKey: .position)
        try container.encode(record.title, forKey: .title)
        try container.encode(record.artist, forKey: .artist)
        try container.encode(record.website, forKey: .website)
        try container.encode(record.status.rawValue, forKey: .status)
        let error = record.errorCode.map { ["code": $0, "message": record.errorMessage ?? ""] }
        try container.encode(error, forKey: .error)
        try container.encode(record.duration, forKey: .duration)
        try container.encode(record.segmentList.count, forKey: .segmentCount)
        try container.encode(progress, forKey: .progress)
        try container.encode(record.createdAt, forKey: .createdAt)
        try container.encode(record.updatedAt, forKey: .updatedAt)
    }

    enum CodingKeys: String, CodingKey {
        case id, radioId, position, title, artist, website, status, error, duration, segmentCount, progress, createdAt,
            updatedAt
    }
}

/// `GET …/radios/{id}/stream`: the person's own URL, until when it works, and how much of the
/// daily allowance they have left (null for members).
struct RadioStreamBody: Encodable, Sendable {
    let url: String
    let expiresAt: Date
    @NullEncoded var remainingToday: Double?
    @NullEncoded var resetsAt: Date?
}
