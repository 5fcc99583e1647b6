import Foundation
import Hummingbird
import PodiumStore
import PodiumWire

/// `PUT /api/v1/videos/{id}/clip`: a clip's trim and loop (issue #41), kept as metadata (the
/// packaged files stay whole). A stage takes them when the clip is put on it, and a stage that
/// shows it now takes them at once (``StageClipUpdates``).
extension VideoController {
    @Sendable func setClip(_ request: Request, context: AppRequestContext) async throws -> VideoResponse {
        let video = try await ownedVideo(context)
        let settings = try await request.decode(as: VideoClipSettings.self, context: context)
        try Self.validate(settings, duration: video.duration)
        guard
            try await store.updateVideoClip(
                id: video.id, trimStart: settings.trimStart, trimEnd: settings.trimEnd, loops: settings.loop),
            let saved = try await store.video(id: video.id)
        else { throw APIError.notFound("video") }
        await clipChanged(saved)
        return response(saved, viewerKey: Self.viewerKey(try context.requireUser()))
    }

    /// A trim is seconds, `0 ≤ start < end ≤ duration`; it needs the clip's duration (known once
    /// its upload was probed).
    static func validate(_ settings: VideoClipSettings, duration: Double) throws {
        let points = [settings.trimStart, settings.trimEnd].compactMap { $0 }
        guard !points.isEmpty else { return }
        guard points.allSatisfy({ $0.isFinite && $0 >= 0 }) else {
            throw APIError(.badRequest, code: "invalid_trim", message: "Trim points are seconds, 0 or more.")
        }
        guard duration > 0 else {
            throw APIError(
                .conflict, code: "video_not_ready", message: "This video's length is not known yet: trim it once it is ready.")
        }
        let start = settings.trimStart ?? 0
        let end = settings.trimEnd ?? duration
        guard start < end else {
            throw APIError(.badRequest, code: "invalid_trim", message: "The trim's start must come before its end.")
        }
        guard end <= duration, start < duration else {
            throw APIError(
                .badRequest, code: "invalid_trim",
                message: "The trim must end within the clip (\(String(format: "%.2f", duration)) s).")
        }
    }
}
