import Foundation
import Hummingbird
import NIOCore
import PodiumMedia
import PodiumStore
import PodiumWire

/// A library clip's caption tracks (issue #41): upload a WebVTT or SRT file per language (SRT is
/// converted to WebVTT; cue times and markup are checked), list, replace, delete, and edit one
/// cue's text. The clip's master playlist lists the tracks as subtitle renditions (see
/// ``ClipStreamSource``), so every player that loads the clip finds them.
struct CaptionController {
    let store: any CaptionStore
    let videoStore: any VideoStore
    let uploadDirectory: URL
    /// The largest caption file accepted, in bytes (`413 caption_too_large` past it).
    let maxCaptionBytes: Int
    let tokens: StreamTokens
    let now: @Sendable () -> Date

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("videos/:id/captions", use: list)
        group.get("videos/:id/captions/:language", use: show)
        group.put("videos/:id/captions/:language", use: put)
        group.delete("videos/:id/captions/:language", use: delete)
        group.patch("videos/:id/captions/:language/cues/:index", use: editCue)
    }

    /// The stream file names of a track: its WebVTT file and its one-segment media playlist.
    static func vttName(_ language: String) -> String { "captions-\(language).vtt" }
    static func playlistName(_ language: String) -> String { "captions-\(language).m3u8" }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> [CaptionTrack] {
        let (video, viewerKey) = try await ownedVideo(context)
        return try await store.captionTracks(videoId: video.id).map { response($0, video: video, viewerKey: viewerKey) }
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> CaptionTrack {
        let (video, viewerKey) = try await ownedVideo(context)
        let track = try await ownedTrack(video, context)
        return response(track, video: video, viewerKey: viewerKey, withCues: true)
    }

    /// Adds the clip's track in a language, or replaces it: the body is the file (raw or the
    /// `file` field of a form); `label` and `kind` come in the query.
    @Sendable func put(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<CaptionTrack> {
        let (video, viewerKey) = try await ownedVideo(context)
        let language = try context.parameters.require("language")
        guard Captions.isLanguageTag(language) else {
            throw APIError(
                .badRequest, code: "caption_language",
                message: "“\(language)” is not a language tag (BCP 47, such as en, de-CH or zh-Hans).")
        }
        let kindText = request.uri.queryParameters.get("kind") ?? CaptionTrackRecord.Kind.subtitles.rawValue
        guard let kind = CaptionTrackRecord.Kind(rawValue: kindText) else {
            throw APIError(.badRequest, code: "caption_kind", message: "A track's kind is subtitles or captions.")
        }
        let received: Upload.Received
        do {
            received = try await Upload.receive(request, into: uploadDirectory, limit: maxCaptionBytes)
        } catch let error as APIError where error.code == "too_large" {
            let kilobytes = max(1, maxCaptionBytes / 1024)
            throw CaptionRefusal(
                status: .contentTooLarge, code: "caption_too_large",
                message: "A caption file may be at most \(kilobytes) KB.", maxKB: kilobytes)
        }
        defer { try? FileManager.default.removeItem(at: received.file) }
        let data = try Data(contentsOf: received.file)
        guard let text = String(data: data, encoding: .utf8) else {
            throw APIError(
                .unprocessableContent, code: "caption_encoding", message: "A caption file must be UTF-8 text (WebVTT or SRT).")
        }
        let cues = try Self.parse(text)
        let given: String = request.uri.queryParameters.get("label") ?? ""
        let label = given.trimmingCharacters(in: .whitespacesAndNewlines)
        let existing = try await store.captionTrack(videoId: video.id, language: language)
        let date = now()
        let stored = try await store.putCaptionTrack(
            CaptionTrackRecord(
                videoId: video.id, language: language, label: label.isEmpty ? language : String(label.prefix(80)),
                kind: kind, webvtt: Captions.webVTT(cues), createdAt: existing?.createdAt ?? date, updatedAt: date))
        return EditedResponse(
            status: existing == nil ? .created : .ok,
            response: response(stored, video: video, viewerKey: viewerKey, withCues: true))
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let (video, _) = try await ownedVideo(context)
        guard try await store.deleteCaptionTrack(videoId: video.id, language: try context.parameters.require("language"))
        else { throw APIError.notFound("caption track") }
        return .noContent
    }

    /// Changes the text of cue `index` (0-based), its times kept.
    @Sendable func editCue(_ request: Request, context: AppRequestContext) async throws -> CaptionTrack {
        let (video, viewerKey) = try await ownedVideo(context)
        var track = try await ownedTrack(video, context)
        let edit = try await request.decode(as: CaptionCueEdit.self, context: context)
        var cues = try Self.parse(track.webvtt)
        guard let index = context.parameters.get("index").flatMap(Int.init), cues.indices.contains(index) else {
            throw APIError.notFound("cue")
        }
        do {
            try Captions.checkMarkup(edit.text, cue: index + 1)
        } catch {
            throw CaptionRefusal(status: .unprocessableContent, code: error.code, message: error.message, cue: error.cue)
        }
        cues[index].text = Captions.clean(edit.text)
        track.webvtt = Captions.webVTT(cues)
        track.updatedAt = now()
        let stored = try await store.putCaptionTrack(track)
        return response(stored, video: video, viewerKey: viewerKey, withCues: true)
    }

    static func parse(_ text: String) throws -> [CaptionCue] {
        do {
            return try Captions.parse(text)
        } catch {
            throw CaptionRefusal(status: .unprocessableContent, code: error.code, message: error.message, cue: error.cue)
        }
    }

    func response(_ track: CaptionTrackRecord, video: VideoRecord, viewerKey: String, withCues: Bool = false)
        -> CaptionTrack
    {
        let cues = (try? Captions.parse(track.webvtt)) ?? []
        let url =
            video.status == .ready
            ? ClipStreamSource.URLs(videoId: video.id, viewerKey: viewerKey, tokens: tokens).url(
                Self.vttName(track.language)) : nil
        return CaptionTrack(
            language: track.language, label: track.label, kind: track.kind.rawValue, cueCount: cues.count,
            createdAt: track.createdAt, updatedAt: track.updatedAt, url: url,
            cues: withCues ? cues.map { CaptionTrack.CaptionCue(start: $0.start, end: $0.end, text: $0.text) } : nil)
    }

    private func ownedTrack(_ video: VideoRecord, _ context: AppRequestContext) async throws -> CaptionTrackRecord {
        guard let track = try await store.captionTrack(videoId: video.id, language: try context.parameters.require("language"))
        else { throw APIError.notFound("caption track") }
        return track
    }

    /// The clip named in the path, if the signed-in user owns it (admins see every one).
    private func ownedVideo(_ context: AppRequestContext) async throws -> (VideoRecord, String) {
        let user = try context.requireUser()
        guard let video = try await videoStore.video(id: try context.parameters.require("id")),
            video.ownerId == user.id || user.role == .admin
        else { throw APIError.notFound("video") }
        return (video, VideoController.viewerKey(user))
    }
}

extension CaptionTrack: ResponseEncodable {}

/// A caption file refused: Podium's error body with what a client needs to say why in its own
/// language, beside the English `message`: `cue` (the cue at fault, 1-based) for `caption_time`,
/// `caption_order`, `caption_cue` and `caption_markup`, `maxKB` (the server's limit) for `caption_too_large`.
/// `{"error":{"code":"caption_order","message":"Cue 2 ends …","cue":2}}`
struct CaptionRefusal: PodiumErrorBody, Sendable {
    let status: HTTPResponse.Status
    let code: String
    let message: String
    var cue: Int? = nil
    var maxKB: Int? = nil

    private struct Body: Encodable {
        struct Detail: Encodable {
            let code: String
            let message: String
            let cue: Int?
            let maxKB: Int?
        }
        let error: Detail
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try JSONEncoder().encode(Body(error: .init(code: code, message: message, cue: cue, maxKB: maxKB)))
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
