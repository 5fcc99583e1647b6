import Foundation
import Hummingbird
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

    @Sendable func timeline(_ request: Request, context: AppRequestContext) async throws -> ReplayTimelineResponse {
        let record = try await sessions.record(context)
        let host = try await access.mayWatch(record, request: request, context: context)
        let session = try await sessions.response(record, request: request, for: context.user)
        return try await ReplayTimeline.build(
            stores: stores, record: record, session: session, forHost: host, now: now(), clips: clips)
    }
}

extension ReplayTimelineResponse: ResponseEncodable {}
