import Foundation
import Hummingbird
import PodiumCore
import PodiumStore
import PodiumWire

/// A replay as an MP4 (issue #44): `POST /api/v1/sessions/{code}/replay/exports` queues a
/// `replay-export` job, `GET /api/v1/replay-exports/{id}` says how far it is,
/// `GET /api/v1/replay-exports/{id}/file` serves the file, and
/// `POST /api/v1/replay-exports/{id}/publish` makes it a channel video in one step (the MP4 taken
/// into the library as an uploaded clip is, then put on the channel). Only the session's hosts
/// (its presenter, a room's moderator, admins); publishing is also the channel's admins' only.
struct ReplayExportController {
    let store: any ReplayExportStore
    let sessions: any SessionStore
    let channelVideos: any ChannelVideoStore
    let sources: ReplayExportSources
    let blobs: any BlobStore
    let jobs: JobQueue
    /// The library's clips: an uploaded file becomes a packaged clip there.
    let videos: VideoController
    /// The channel's admin routes: a clip becomes a channel video there.
    let channelAdmin: ChannelVideoAdminController
    let now: @Sendable () -> Date

    /// The category a published replay goes to when none is named (made when missing).
    static let defaultCategory = "Replays"

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("sessions/:code/replay/exports", use: create)
        group.get("sessions/:code/replay/exports", use: list)
        group.get("replay-exports/:id", use: show)
        group.get("replay-exports/:id/file", use: download)
        group.head("replay-exports/:id/file", use: download)
        group.post("replay-exports/:id/publish", use: publish)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<ReplayExportResponse> {
        let (session, user) = try await hostsSession(context)
        // Refused at once when there is nothing to show (the job would only fail).
        let scenes = ReplayScenes.scenes(of: try await sources.source(of: session))
        guard ReplayScenes.showsSlides(scenes) else {
            throw APIError(
                .conflict, code: "nothing_shown",
                message: "Nothing has been shown in this session yet, so there is nothing to export.")
        }
        let export = ReplayExportRecord(id: IDs.make("rx"), sessionId: session.id, ownerId: user.id, createdAt: now())
        try await store.insertReplayExport(export)
        _ = try await jobs.enqueue(
            kind: ReplayExportRequest.kind, subjectId: export.id, ownerId: user.id,
            payload: ReplayExportRequest(exportId: export.id))
        return EditedResponse(status: .accepted, response: ReplayExportResponse(export, progress: nil))
    }

    /// The session's exports, newest first (what the replay page's controls show on opening).
    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> [ReplayExportResponse] {
        let (session, _) = try await hostsSession(context)
        return try await store.replayExports(sessionId: session.id).map {
            ReplayExportResponse($0, progress: jobs.progress(subjectId: $0.id))
        }
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> ReplayExportResponse {
        let (export, _) = try await hostsExport(context)
        return ReplayExportResponse(export, progress: jobs.progress(subjectId: export.id))
    }

    @Sendable func download(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (export, session) = try await hostsExport(context)
        guard export.status == .ready, let blob = export.blob, let url = blobs.file(named: blob) else {
            throw APIError(.conflict, code: "export_not_ready", message: "This export is not ready.")
        }
        var headers = HTTPFields()
        headers[.contentType] = "video/mp4"
        headers[.contentDisposition] = "attachment; filename=\"\(Self.fileName(session))\""
        return try await RangeResponse(file: url, entityTag: RangeResponse.entityTag(forBlob: blob), headers: headers)
            .response(to: request, context: context)
    }

    /// The MP4 into the library (as an uploaded clip: probed, stored, packaged by a `video` job)
    /// and onto the channel, published: it plays there once packaged, under the channel's rules
    /// (members only unless an admin makes it free).
    @Sendable func publish(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<PublishedVideo> {
        var (export, _) = try await hostsExport(context)
        let user = try context.requireUser()
        guard user.role == .admin else {
            throw APIError(.forbidden, code: "forbidden", message: "Only an administrator publishes videos on the channel.")
        }
        let body: ReplayExportPublish
        do {
            body = try await request.decode(as: ReplayExportPublish.self, context: context)
        } catch {
            throw APIError.badRequest("Publishing names a title: {\"title\": \"…\"}.")
        }
        let title = DeckController.cleanTitle(body.title)
        guard !title.isEmpty else { throw APIError.badRequest("A video needs a title.") }
        guard export.status == .ready, let blob = export.blob, let file = blobs.file(named: blob) else {
            throw APIError(.conflict, code: "export_not_ready", message: "This export is not ready.")
        }
        if let existing = export.channelVideoId, let entry = try await channelVideos.channelVideo(id: existing) {
            return EditedResponse(status: .ok, response: try await response(entry))
        }
        let categoryId: String
        if let given = body.categoryId { categoryId = given } else { categoryId = try await replaysCategory() }
        let (video, _) = try await videos.take(
            Upload.Received(file: file, bytes: export.bytes, filename: nil), title: title, ownerId: user.id, folderId: nil,
            roomId: nil)
        var fields: [String: any Sendable] = ["categoryId": categoryId, "title": title, "published": true]
        if let description = body.description { fields["description"] = description }
        let channelBody = try JSONDecoder().decode(
            ChannelVideoAdminController.VideoBody.self, from: JSONSerialization.data(withJSONObject: fields))
        let record = try await channelAdmin.insertVideo(video, categoryId: categoryId, channelBody)
        export.channelVideoId = record.id
        try await store.updateReplayExport(export)
        guard let entry = try await channelVideos.channelVideo(id: record.id) else { throw APIError.notFound("video") }
        return EditedResponse(status: .created, response: try await response(entry))
    }

    private func response(_ entry: ChannelVideoEntry) async throws -> PublishedVideo {
        PublishedVideo(
            video: ChannelVideoResponse(
                entry, latestPublishedId: try await channelVideos.latestPublishedChannelVideoId(), now: now()))
    }

    /// The top-level category named "Replays", made (last in order) when there is none.
    private func replaysCategory() async throws -> String {
        let categories = try await channelVideos.channelVideoCategories(.all)
        if let found = categories.first(where: { $0.parentId == nil && $0.name == Self.defaultCategory }) { return found.id }
        let position = (categories.filter { $0.parentId == nil }.map(\.position).max() ?? -1) + 1
        return try await channelVideos.insertChannelVideoCategory(
            ChannelVideoCategoryRecord(
                id: IDs.make("cc"), parentId: nil, name: Self.defaultCategory, position: position, updatedAt: now())
        ).id
    }

    /// The session named in the path, when the signed-in person hosts it.
    private func hostsSession(_ context: AppRequestContext) async throws -> (SessionRecord, UserRecord) {
        let user = try context.requireUser()
        guard let code = JoinCode.normalize(try context.parameters.require("code")),
            let session = try await sessions.session(code: code)
        else { throw APIError.notFound("session") }
        guard try await SessionHosts(store: sessions).isHost(user, of: session) else { throw APIError.forbidden }
        return (session, user)
    }

    /// The export named in the path, and its session, when the signed-in person hosts it.
    private func hostsExport(_ context: AppRequestContext) async throws -> (ReplayExportRecord, SessionRecord) {
        let user = try context.requireUser()
        guard let export = try await store.replayExport(id: try context.parameters.require("id")),
            let session = try await sessions.session(id: export.sessionId)
        else { throw APIError.notFound("export") }
        guard try await SessionHosts(store: sessions).isHost(user, of: session) else { throw APIError.forbidden }
        return (export, session)
    }

    static func fileName(_ session: SessionRecord) -> String {
        let base = (session.title ?? "Replay \(session.code)").filter { $0.isLetter || $0.isNumber || " -_.".contains($0) }
        return "\(base.isEmpty ? "replay" : base) - replay.mp4"
    }
}

/// A published replay's channel video as the API sends it (PodiumWire's `ChannelVideo`).
struct PublishedVideo: ResponseEncodable {
    let video: ChannelVideoResponse

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(video)
    }
}

/// An export as the API shows it (PodiumWire's `ReplayExport`, which the SDK decodes).
typealias ReplayExportResponse = ReplayExport

extension ReplayExport: ResponseEncodable {
    /// Progress 0 to 1: drawing the pictures is the first fifth, encoding the rest.
    init(_ export: ReplayExportRecord, progress: JobProgress?) {
        let fraction: Double
        switch export.status {
        case .ready: fraction = 1
        case .failed: fraction = 0
        case .queued, .running:
            if let progress, progress.total > 0 {
                let done = min(1, Double(progress.done) / Double(progress.total))
                fraction = progress.stage == "encode" ? 0.2 + 0.8 * done : 0.2 * done
            } else {
                fraction = 0
            }
        }
        self.init(
            id: export.id, status: export.status.rawValue, progress: min(fraction, export.status == .ready ? 1 : 0.99),
            duration: export.status == .ready ? export.durationMs : nil,
            downloadUrl: export.status == .ready ? "/api/v1/replay-exports/\(export.id)/file" : nil,
            error: export.errorCode.map { FailureDetail(code: $0, message: export.errorMessage ?? "") },
            channelVideoId: export.channelVideoId)
    }
}
