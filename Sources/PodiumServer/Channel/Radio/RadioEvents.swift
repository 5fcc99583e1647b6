import Foundation
import Hummingbird
import NIOCore
import PodiumCore
import PodiumWire

/// One listener's now-playing feed as Server-Sent Events (docs/protocol.md, "Radio now
/// playing"): a `nowplaying` event at once, then at every track change of the schedule (by the
/// clock, or because an admin changed the station), with the person's remaining allowance; a
/// comment every 20 s keeps proxies from closing a quiet stream. Ends when the station goes off
/// the air (an `offair` event) or the client leaves.
struct RadioEvents: Sendable {
    let stationId: String
    let viewer: ChannelViewer
    /// The listener's address pool (``RadioListening/pool(_:)``).
    let pool: String
    let stations: RadioStations
    let listening: RadioListening
    let now: @Sendable () -> Date
    let sleep: @Sendable (Duration) async throws -> Void

    static let keepAlive: Double = 20

    /// A `nowplaying` event (PodiumWire's `ChannelRadioNowPlaying`): the station's
    /// ``RadioPlaying`` with the track's id, where the schedule is in it (`elapsed`, `remaining`)
    /// and the listener's allowance left (null for members), as one object.
    typealias Event = ChannelRadioNowPlaying

    /// The event for what plays now, nil when nothing does.
    func event(at date: Date, remainingToday: Double?) -> Event? {
        guard let playing = stations.station(stationId)?.schedule.nowPlaying(at: date) else { return nil }
        return Event(
            radioId: stationId, trackId: playing.track.id, playing: RadioPlaying(playing), elapsed: playing.elapsed,
            remaining: playing.remaining, remainingToday: remainingToday)
    }

    /// Writes events until the client goes or the station goes off the air.
    func run(_ writer: inout any ResponseBodyWriter) async throws {
        var sent: (trackId: String, startedAt: Date, title: String, artist: String, website: String?)?
        var announcedEmpty = false
        try await writer.write(ByteBuffer(string: "retry: 3000\n\n"))
        while !Task.isCancelled {
            guard let station = stations.station(stationId), RadioStreamSource.isOnAir(station.record) else {
                try await writer.write(ByteBuffer(string: "event: offair\ndata: {}\n\n"))
                break
            }
            let generation = stations.generation(stationId)
            let date = now()
            let remainingToday = viewer.isMember ? nil : try await listening.remaining(viewer.key, pool: pool)
            if let event = event(at: date, remainingToday: remainingToday) {
                let key = (event.trackId, event.startedAt, event.title, event.artist, event.website)
                if sent.map({ $0 != key }) ?? true {
                    let data = String(decoding: try Frames.encoder.encode(event), as: UTF8.self)
                    try await writer.write(ByteBuffer(string: "event: nowplaying\ndata: \(data)\n\n"))
                    sent = key
                    announcedEmpty = false
                }
            } else if !announcedEmpty {
                try await writer.write(ByteBuffer(string: "event: nowplaying\ndata: null\n\n"))
                announcedEmpty = true
            }
            // Until the track ends, a change of this station, or the keep-alive.
            let untilEnd = event(at: date, remainingToday: nil)?.remaining ?? Self.keepAlive
            let wait = min(Self.keepAlive, max(0.05, untilEnd + 0.05))
            let changed = await changeOf(after: generation, orAfter: wait)
            if !changed { try await writer.write(ByteBuffer(string: ": keep-alive\n\n")) }
        }
        try await writer.finish(nil)
    }

    /// Whether this station changed (since `generation`) before `seconds` passed.
    private func changeOf(after generation: Int, orAfter seconds: Double) async -> Bool {
        let (stations, stationId, sleep) = (stations, stationId, sleep)
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await stations.waitForChange(stationId, after: generation)
                return !Task.isCancelled
            }
            group.addTask {
                try? await sleep(.milliseconds(Int(seconds * 1000)))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
