import Foundation
import Hummingbird
import PodiumCore
import PodiumStore
import PodiumWire

/// A track as a listener is told of it (PodiumWire's `ChannelRadioStation.Track`): the `next`
/// one in a station's `nowPlaying` and in the `nowplaying` event.
typealias RadioTrackInfo = ChannelRadioStation.Track

extension ChannelRadioStation.Track {
    init(_ track: RadioSchedule.Track) {
        self.init(title: track.title, artist: track.artist, website: track.website)
    }
}

/// What a station plays (PodiumWire's `ChannelRadioStation.Playing`): the track, when it started
/// on the schedule, how long it is, and what comes next. A station's body shows it as
/// `nowPlaying`; each `nowplaying` event carries its fields, with where the listener is in the
/// track (``RadioEvents/Event``).
typealias RadioPlaying = ChannelRadioStation.Playing

extension ChannelRadioStation.Playing {
    init(_ playing: RadioSchedule.NowPlaying) {
        self.init(
            title: playing.track.title, artist: playing.track.artist, website: playing.track.website,
            startedAt: playing.startedAt, duration: playing.track.duration, next: playing.next.map(RadioTrackInfo.init))
    }
}

/// A station as the channel's API shows it (PodiumWire's `ChannelRadioStation`, seed Appendix B's
/// radio with "now playing"). Every field is sent, `null` when empty.
typealias RadioBody = ChannelRadioStation

extension ChannelRadioStation {
    init(_ station: RadioStations.Station, at now: Date) {
        let radio = station.record
        self.init(
            id: radio.id, radioId: radio.id, name: radio.name, description: radio.description, website: radio.website,
            url: "/api/v1/channel/radios/\(radio.id)/stream", date: radio.publishedAt, position: radio.position,
            trackCount: station.schedule.tracks.count, duration: station.schedule.tracks.reduce(0) { $0 + $1.duration },
            publishedAt: radio.publishedAt, updatedAt: radio.updatedAt, archivedAt: radio.archivedAt,
            nowPlaying: station.schedule.nowPlaying(at: now).map(RadioPlaying.init))
    }

    /// When the body last changed: an edit, or the start of the track playing.
    var lastModified: Date { max(updatedAt, nowPlaying?.startedAt ?? updatedAt) }
}

/// A track as the admin sees it, with its packaging progress (PodiumWire's `ChannelRadioTrack`).
typealias RadioTrackBody = ChannelRadioTrack

extension ChannelRadioTrack {
    init(record: ChannelRadioTrackRecord, progress: JobProgress?) {
        self.init(
            id: record.id, radioId: record.radioId, position: record.position, title: record.title, artist: record.artist,
            website: record.website, status: record.status.rawValue,
            error: record.errorCode.map { FailureDetail(code: $0, message: record.errorMessage ?? "") },
            duration: record.duration, segmentCount: record.segmentList.count,
            progress: progress.map { WorkProgress(stage: $0.stage, done: $0.done, total: $0.total) },
            createdAt: record.createdAt, updatedAt: record.updatedAt)
    }
}

/// `GET …/radios/{id}/stream`: the person's own URL, until when it works, and how much of the
/// daily allowance they have left (null for members; PodiumWire's `ChannelRadioStream`).
typealias RadioStreamBody = ChannelRadioStream
