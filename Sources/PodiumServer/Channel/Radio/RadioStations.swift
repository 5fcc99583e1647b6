import Foundation
import Logging
import PodiumCore
import PodiumStore
import Synchronization

/// Every station's schedule, in memory: the live playlist, each segment and "now playing" are
/// computed from it and the clock, with no database read per request. Loaded at start and
/// reloaded when an admin changes a station or a track becomes ready (``reload(_:)``); a change
/// to the tracks re-anchors the schedule (``RadioSchedule/reanchored(tracks:at:)``) and stores
/// the new anchor, so the media sequence keeps increasing across changes and restarts.
final class RadioStations: Sendable {
    struct Station: Sendable {
        var record: ChannelRadioRecord
        var schedule: RadioSchedule
    }

    private let store: any ChannelRadioStore
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let windowLength: Int
    private let stations = Mutex<[String: Station]>([:])
    private struct Changes {
        var counts: [String: Int] = [:]
        var waiting: [UUID: (id: String, continuation: CheckedContinuation<Void, Never>)] = [:]
    }

    /// How often each station changed, and who waits for its next change (the event streams).
    private let changeCounts = Mutex(Changes())
    /// Reloads one at a time, so two changes at once re-anchor in turn.
    private let reloads = SerialGate()

    init(store: any ChannelRadioStore, now: @escaping @Sendable () -> Date, logger: Logger, windowLength: Int = 5) {
        self.store = store
        self.now = now
        self.logger = logger
        self.windowLength = windowLength
    }

    /// Loads every station (at start).
    func load() async throws {
        for radio in try await store.radios() { try await reload(radio.id) }
    }

    func station(_ id: String) -> Station? { stations.withLock { $0[id] } }

    /// Every station loaded, any order.
    func all() -> [Station] { stations.withLock { Array($0.values) } }

    /// Rebuilds a station's schedule from the store after a change (or forgets a deleted one).
    func reload(_ id: String) async throws {
        try await reloads.run { [self] in
            guard var radio = try await store.radio(id: id) else {
                stations.withLock { _ = $0.removeValue(forKey: id) }
                notify(id)
                return
            }
            let tracks = try await store.radioTracks(radioId: id).filter { $0.status == .ready }.map(Self.track)
            let date = now()
            let previous = station(id)
            var schedule: RadioSchedule
            if let previous, previous.schedule.tracks == RadioSchedule(tracks: tracks, epoch: date).tracks {
                schedule = previous.schedule
            } else if let previous, !previous.schedule.isEmpty || previous.record.epoch != nil {
                schedule = previous.schedule.reanchored(tracks: tracks, at: date)
            } else if let epoch = radio.epoch {
                // A start: the stored anchor, the tracks as they were when it was stored.
                schedule = RadioSchedule(
                    tracks: tracks, epoch: epoch, baseSequence: radio.sequenceBase,
                    baseDiscontinuity: radio.discontinuityBase, windowLength: windowLength)
            } else {
                schedule = RadioSchedule(tracks: tracks, epoch: date, windowLength: windowLength)
            }
            if schedule.isEmpty && previous?.schedule.isEmpty != false && radio.epoch == nil {
                // Nothing to play yet: the schedule starts when its first track is ready.
            } else if radio.epoch != schedule.epoch || radio.sequenceBase != schedule.baseSequence
                || radio.discontinuityBase != schedule.baseDiscontinuity
            {
                radio.epoch = schedule.epoch
                radio.sequenceBase = schedule.baseSequence
                radio.discontinuityBase = schedule.baseDiscontinuity
                try await store.updateRadio(radio)
            }
            let station = Station(record: radio, schedule: schedule)
            stations.withLock { $0[id] = station }
            notify(id)
        }
    }

    /// The schedule's view of a ready track.
    static func track(_ record: ChannelRadioTrackRecord) -> RadioSchedule.Track {
        RadioSchedule.Track(
            id: record.id, title: record.title, artist: record.artist, website: record.website,
            segments: record.segmentList)
    }

    /// A count of a station's changes, to wait for the next one (``waitForChange(_:after:)``).
    func generation(_ id: String) -> Int { changeCounts.withLock { $0.counts[id] ?? 0 } }

    /// Returns once station `id` has changed more than `generation` times (at once if it has), or
    /// when the task is cancelled.
    func waitForChange(_ id: String, after generation: Int) async {
        let waiter = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = changeCounts.withLock { state -> Bool in
                    if (state.counts[id] ?? 0) > generation || Task.isCancelled { return true }
                    state.waiting[waiter] = (id, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            changeCounts.withLock { $0.waiting.removeValue(forKey: waiter) }?.continuation.resume()
        }
    }

    private func notify(_ id: String) {
        let woken = changeCounts.withLock { state in
            state.counts[id, default: 0] += 1
            let matching = state.waiting.filter { $0.value.id == id }
            for key in matching.keys { state.waiting.removeValue(forKey: key) }
            return matching.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }
}

/// The stations on the air, for the feed of what is new and for share previews.
struct RadioPublications: ChannelPublications {
    let stations: RadioStations

    func published() async throws -> [ChannelPublication] {
        stations.all().compactMap(Self.publication)
    }

    func published(id: String) async throws -> ChannelPublication? {
        stations.station(id).flatMap(Self.publication)
    }

    static func publication(_ station: RadioStations.Station) -> ChannelPublication? {
        let radio = station.record
        guard RadioStreamSource.isOnAir(radio), let publishedAt = radio.publishedAt else { return nil }
        return ChannelPublication(
            kind: RadioStreamSource.kind, id: radio.id, title: radio.name, description: radio.description, imagePath: nil,
            publishedAt: publishedAt)
    }
}
