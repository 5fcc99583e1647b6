import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PodiumCore
import PodiumStore

/// A station's live HLS under `/stream/<token>/`: `live.m3u8`, the window of the moment, and
/// `<sequence>.ts`, a segment named by its media sequence. Both come from the in-memory schedule
/// and the clock: no database read (but a non-member's first request of the day, which reads
/// their listening so far). Non-members are counted per segment, and their client address's pool
/// with them, and refused, with the membership message, once either is spent.
struct RadioStreamSource: StreamSource {
    static let kind = "radio"

    let stations: RadioStations
    let listening: RadioListening
    let blobs: any BlobStore
    let configuration: ChannelConfiguration
    let now: @Sendable () -> Date

    func respond(file: String, claims: StreamClaims, request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireChannelViewer()
        guard let station = stations.station(String(claims.id)), Self.isOnAir(station.record) || viewer.isAdmin
        else { throw APIError.notFound("radio") }
        // The person the link was given to is counted, whoever presents it; a member presenting it is not.
        let counted = viewer.isMember ? nil : claims.viewerKey
        // And the address it comes from: a guest who drops the cookie for a new link draws on it.
        let pool = RadioListening.pool(context)
        if file == "live.m3u8" {
            if let counted, try await listening.remaining(counted, pool: pool) <= 0 {
                throw ChannelLimitError(.radioDaily, configuration: configuration)
            }
            return playlist(station.schedule)
        }
        guard file.hasSuffix(".ts"), let sequence = Int(file.dropLast(3)), sequence >= 0,
            let placed = station.schedule.segment(sequence: sequence), placed.start <= now(),
            let url = blobs.file(named: placed.segment.blob)
        else { throw APIError.notFound("segment") }
        if let counted,
            try await !listening.serve(
                counted, pool: pool, station: station.record.id, sequence: sequence, duration: placed.segment.duration)
        {
            throw ChannelLimitError(.radioDaily, configuration: configuration)
        }
        var headers = HTTPFields()
        headers[.contentType] = "video/mp2t"
        // A sequence number always names the same bytes (the token is in the path too).
        headers[.cacheControl] = "private, max-age=31536000, immutable"
        return try await RangeResponse(
            file: url, entityTag: RangeResponse.entityTag(forBlob: placed.segment.blob), headers: headers
        ).response(to: request, context: context)
    }

    /// Published and not archived: what the audience may hear.
    static func isOnAir(_ radio: ChannelRadioRecord) -> Bool { radio.publishedAt != nil && radio.archivedAt == nil }

    private func playlist(_ schedule: RadioSchedule) -> Response {
        let text = schedule.playlist(at: now())
        var headers = HTTPFields()
        headers[.contentType] = "application/vnd.apple.mpegurl"
        // About half a segment: a player polling every target duration always gets a fresh window.
        let window = schedule.window(at: now())
        headers[.cacheControl] = "private, max-age=\(max(1, window.targetDuration / 2))"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
