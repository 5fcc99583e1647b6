import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PodiumCore
import PodiumStore
import PodiumWire

/// `GET /api/v1/sessions/{code}/replay`: a session's timeline (``ReplayTimeline``) for its host,
/// and for anyone with its link once the host allows it (``ReplayGate``).
struct ReplayController {
    let stores: Stores
    let sessions: SessionController
    let access: ReplayGate
    let now: @Sendable () -> Date
    /// The clips shown, for links that still work (see ``ReplayTimeline/freshClipLinks(_:record:clips:)``).
    let clips: any StageVideos

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("sessions/:code/replay", use: timeline)
    }

    @Sendable func timeline(_ request: Request, context: AppRequestContext) async throws -> ReplayTimelineBody {
        let record = try await sessions.record(context)
        let host = try await access.mayWatch(record, request: request, context: context)
        let session = try await sessions.response(record, request: request, for: context.user)
        return try await ReplayTimeline.build(
            stores: stores, record: record, session: session, forHost: host, now: now(), clips: clips)
    }
}

/// The timeline as sent: ``ReplayTimelineResponse`` in the API's JSON, each event that went out
/// unchanged written as the event log stored it (its keys sorted) instead of encoded again.
struct ReplayTimelineBody: ResponseGenerator, Sendable {
    let timeline: ReplayTimelineResponse
    /// Per event of `timeline.events`: its stored JSON, or nil to encode it.
    let storedJSON: [String?]

    /// The JSON: the timeline encoded without its events, which are then written in their place.
    func encoded() throws -> Data {
        var shell = timeline
        shell.events = []
        let encoded = try Frames.encoder.encode(shell)
        // Quotes inside strings are escaped, and no object before the top level's `events` has
        // such a key: the first `"events":[]` is the list's place.
        let empty = Data(#""events":[]"#.utf8)
        guard let place = encoded.range(of: empty) else { return try Frames.encoder.encode(timeline) }
        var data = Data(encoded[..<place.lowerBound])
        data.reserveCapacity(encoded.count + storedJSON.reduce(0) { $0 + ($1?.utf8.count ?? 200) + 24 })
        data.append(contentsOf: #""events":["#.utf8)
        for (index, event) in timeline.events.enumerated() {
            if index > 0 { data.append(UInt8(ascii: ",")) }
            data.append(contentsOf: #"{"at":"#.utf8)
            data.append(contentsOf: String(event.at).utf8)
            data.append(contentsOf: #","event":"#.utf8)
            if index < storedJSON.count, let json = storedJSON[index] {
                data.append(contentsOf: json.utf8)
            } else {
                data.append(try Frames.encoder.encode(event.event))
            }
            data.append(UInt8(ascii: "}"))
        }
        data.append(UInt8(ascii: "]"))
        data.append(encoded[place.upperBound...])
        return data
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try encoded())))
    }
}
