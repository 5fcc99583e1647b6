import Foundation
import PodiumCore
import PodiumStore

/// What the live layer asks the library before it puts a video on a stage.
public protocol StageVideos: Sendable {
    /// The video `id` when it is ready to play and belongs to `owner` (the session's presenter,
    /// the room's moderator) and, if it was uploaded into a room, to this session's room; nil
    /// when there is no such video.
    func readyVideo(id: String, ownedBy owner: String, session sessionId: String) async throws -> VideoOnStage?
}

/// The library's videos (the store's `videos` table). A clip put on a stage plays through a
/// capability URL made then (`/stream/<token>/<master>`, resource `clip:<id>`, viewer
/// `session:<id>`), good for `lifetime`: long enough for a class or a talk, and put on the stage
/// again it gets a fresh one. The URL travels in the session's durable state, so every node
/// (and every replay) sees the same one; every node verifies it with the shared stream key.
struct LibraryStageVideos: StageVideos {
    let store: any VideoStore
    let tokens: StreamTokens
    let lifetime: TimeInterval

    func readyVideo(id: String, ownedBy owner: String, session sessionId: String) async throws -> VideoOnStage? {
        guard let video = try await store.video(id: id), video.ownerId == owner, video.status == .ready,
            video.roomId == nil || video.roomId == sessionId,
            let playlist = video.masterPlaylist
        else { return nil }
        let stream = ClipStreamSource.URLs(
            videoId: video.id, viewerKey: "session:\(sessionId)", tokens: tokens, lifetime: lifetime)
        let media = PlaybackMedia(
            title: video.title, playlist: stream.url(playlist), poster: video.poster.map(DeckResponse.blobURL),
            thumbnails: video.thumbnailTrack.map(stream.url), audioOnly: !video.hasVideo,
            expiresAt: stream.expiresAt.timeIntervalSince1970)
        // The clip's trim and loop go on stage with it (#41): every screen keeps to them.
        return VideoOnStage(
            id: video.id, duration: video.duration > 0 ? video.duration : nil, media: media, start: video.trimStart,
            end: video.trimEnd, loop: video.loops)
    }
}
