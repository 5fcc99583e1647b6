import Foundation
import Hummingbird
import PodiumStore

/// Serves `/stream/<token>/<file>` for tokens of kind `clip` (`clip:<library video id>`): the files
/// of one library video (playlists, init segments, segments, MP4, thumbnail track and sprite)
/// while it exists and is ready. Its owner gets such URLs in the video's REST object (viewer key
/// `user:<id>`); a session's or room's stage gets one when the clip is put on it (viewer key
/// `session:<id>`), signed with the key every node shares, so any node verifies it.
struct ClipStreamSource: StreamSource {
    static let kind = "clip"

    let store: any VideoStore
    let blobs: any BlobStore
    let blobSets: StreamBlobSets
    /// The clip's caption tracks, served beside its files (nil: none).
    var captions: CaptionStreams? = nil

    /// The resource a clip's tokens name.
    static func resource(_ videoId: String) -> String { "\(kind):\(videoId)" }

    /// A clip's files under one token, as the REST API and the stage show them: `/stream/<token>/<name>`.
    struct URLs: Sendable {
        let token: String
        let expiresAt: Date

        init(videoId: String, viewerKey: String, tokens: StreamTokens, lifetime: TimeInterval? = nil) {
            (token, expiresAt) = tokens.issue(
                resource: ClipStreamSource.resource(videoId), viewerKey: viewerKey, lifetime: lifetime)
        }

        func url(_ name: String) -> String { "/stream/\(token)/\(name)" }
    }

    func respond(file: String, claims: StreamClaims, request: Request, context: AppRequestContext) async throws -> Response {
        let id = String(claims.id)
        let files = try await blobSets.files(of: id, serving: file) {
            guard let video = try await store.video(id: id), video.status == .ready else { return nil }
            return video.servedFileNames
        }
        guard let files else { throw APIError.notFound("video") }
        if let captions, StreamBlobSets.mayBeCaptions(file),
            let video = try await store.video(id: id), video.status == .ready,
            let answer = try await captions.respond(file: file, video: video, blobs: blobs)
        {
            return answer
        }
        return try await StreamBlobSets.respond(file: file, files: files, blobs: blobs, request: request, context: context)
    }

    func heldFile(_ file: String, claims: StreamClaims) -> String? {
        blobSets.heldPath(of: file, in: String(claims.id), blobs: blobs, captions: captions != nil)
    }
}
