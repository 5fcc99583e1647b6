import Foundation
import Hummingbird
import PodiumCore
import PodiumStore

/// A station as the channel's API shows it (seed Appendix B's radio, camelCase, with "now
/// playing"). `nowPlaying` names the scheduled track and when it started; a client computes the
/// elapsed time from `startedAt` (so the body, and its ETag, change only when the track does).
struct RadioBody: Encodable, Sendable {
    struct Playing: Encodable, Sendable {
        let title: String
        let artist: String
        let website: String?
        let startedAt: Date
        let duration: Double
        let next: Track?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(title, forKey: .title)
            try container.encode(artist, forKey: .artist)
            try container.encode(website, forKey: .website)
            try container.encode(startedAt, forKey: .startedAt)
            try container.encode(duration, forKey: .duration)
            try container.encode(next, forKey: .next)
        }

        enum CodingKeys: String, CodingKey { case title, artist, website, startedAt, duration, next }
    }

    struct Track: Encodable, Sendable {
        let title: String
        let artist: String
        let website: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(title, forKey: .title)
            try container.encode(artist, forKey: .artist)
            try container.encode(website, forKey: .website)
        }

        enum CodingKeys: String, CodingKey { case title, artist, website }
    }

    let id: String
    let name: String
    let description: String
    let website: String?
    /// Where a player asks for its own stream URL (`GET …/stream`).
    let url: String
    /// When it was published (Appendix B's `date`).
    let date: Date?
    let position: Int
    let trackCount: Int
    /// One loop of the schedule, in seconds.
    let duration: Double
    let publishedAt: Date?
    let updatedAt: Date
    let archivedAt: Date?
    let nowPlaying: Playing?

    init(_ station: RadioStations.Station, at now: Date) {
        let radio = station.record
        id = radio.id
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
        nowPlaying = station.schedule.nowPlaying(at: now).map { playing in
            Playing(
                title: playing.track.title, artist: playing.track.artist, website: playing.track.website,
                startedAt: playing.startedAt, duration: playing.track.duration,
                next: playing.next.map { Track(title: $0.title, artist: $0.artist, website: $0.website) })
        }
    }

    /// When the body last changed: an edit, or the start of the track playing.
    var lastModified: Date { max(updatedAt, nowPlaying?.startedAt ?? updatedAt) }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(id, forKey: .radioId)
        try container.encode(name, forKey: .name)
        try container.encode(description, forKey: .description)
        try container.encode(website, forKey: .website)
        try container.encode(url, forKey: .url)
        try container.encode(date, forKey: .date)
        try container.encode(position, forKey: .position)
        try container.encode(trackCount, forKey: .trackCount)
        try container.encode(duration, forKey: .duration)
        try container.encode(publishedAt, forKey: .publishedAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(archivedAt, forKey: .archivedAt)
        try container.encode(nowPlaying, forKey: .nowPlaying)
    }

    enum CodingKeys: String, CodingKey {
        case id, radioId, name, description, website, url, date, position, trackCount, duration, publishedAt, updatedAt,
            archivedAt, nowPlaying
    }
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
    let remainingToday: Double?
    let resetsAt: Date?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(remainingToday, forKey: .remainingToday)
        try container.encode(resetsAt, forKey: .resetsAt)
    }

    enum CodingKeys: String, CodingKey { case url, expiresAt, remainingToday, resetsAt }
}
