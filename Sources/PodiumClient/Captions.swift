import Foundation
import PodiumWire

extension Endpoint {
    public static let captionTracks = Endpoint("GET", "/api/v1/videos/{id}/captions")
    public static let captionTrack = Endpoint("GET", "/api/v1/videos/{id}/captions/{language}")
    public static let putCaptionTrack = Endpoint("PUT", "/api/v1/videos/{id}/captions/{language}")
    public static let deleteCaptionTrack = Endpoint("DELETE", "/api/v1/videos/{id}/captions/{language}")
    public static let editCaptionCue = Endpoint("PATCH", "/api/v1/videos/{id}/captions/{language}/cues/{index}")
}

extension PodiumClient {
    /// A clip's caption tracks, by language (without their cues).
    public func captionTracks(video id: String) async throws -> [CaptionTrack] {
        try await call(.captionTracks, ["id": id])
    }

    /// One track with its cues.
    public func captionTrack(video id: String, language: String) async throws -> CaptionTrack {
        try await call(.captionTrack, ["id": id, "language": language])
    }

    /// Adds the clip's track in `language` (a BCP 47 tag) or replaces it: `text` is WebVTT or SRT
    /// (SRT is converted). Refusals: `caption_time`, `caption_order`, `caption_cue`, `caption_markup`,
    /// `caption_empty`, `caption_encoding`, `caption_language`, `caption_kind`, `caption_too_large`.
    public func putCaptionTrack(
        video id: String, language: String, text: String, label: String? = nil, kind: String? = nil
    ) async throws -> CaptionTrack {
        let request = try request(
            .putCaptionTrack, ["id": id, "language": language], query: ["label": label, "kind": kind],
            body: Data(text.utf8), contentType: "text/plain; charset=utf-8")
        let (data, _) = try await perform(request)
        return try Self.decode(CaptionTrack.self, from: data, "\(Endpoint.putCaptionTrack)")
    }

    public func deleteCaptionTrack(video id: String, language: String) async throws {
        try await callIgnoringReply(.deleteCaptionTrack, ["id": id, "language": language])
    }

    /// Changes the text of cue `index` (0-based) of a track; its times stay.
    public func editCaptionCue(video id: String, language: String, index: Int, text: String) async throws -> CaptionTrack {
        try await call(
            .editCaptionCue, ["id": id, "language": language, "index": String(index)], json: CaptionCueEdit(text: text))
    }
}
