import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PodiumMedia
import PodiumStore

/// A clip's caption tracks as its stream serves them, under the clip's token beside its other
/// files: the master playlist with the tracks listed as subtitle renditions
/// (`#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",…`, every variant `SUBTITLES="subs"`), each
/// track's media playlist (`captions-<language>.m3u8`, one WebVTT segment lasting the whole clip)
/// and its WebVTT file (`captions-<language>.vtt`). Used by the library's and stage's clip
/// streams (``ClipStreamSource``) and the channel's (``VideoStreamSource``).
struct CaptionStreams: Sendable {
    let store: any CaptionStore

    /// The answer for `file` when it is a caption file or the master playlist; nil when the
    /// clip's blobs answer it. The master playlist is always answered here, never cached for
    /// good, with or without tracks: a track added after a player first loaded the clip must
    /// reach it on its next load under the same stream address.
    /// A master playlist the clip had before (its first rendition's, while its ladder was
    /// packaged) is answered with the current one: a player that reloads it sees every rung.
    func respond(file: String, video: VideoRecord, blobs: any BlobStore) async throws -> Response? {
        if file == video.masterPlaylist || Self.isEarlierMaster(file, of: video, blobs: blobs) {
            guard let file = video.masterPlaylist else { return nil }
            guard let url = blobs.file(named: file) else { return nil }
            let tracks = try await store.captionTracks(videoId: video.id)
            let master = try String(contentsOf: url, encoding: .utf8)
            if tracks.isEmpty { return Self.text(master, type: "application/vnd.apple.mpegurl") }
            let renditions = tracks.map {
                Captions.Rendition(
                    language: $0.language, name: $0.label, uri: CaptionController.playlistName($0.language))
            }
            return Self.text(Captions.masterPlaylist(master, subtitles: renditions), type: "application/vnd.apple.mpegurl")
        }
        for suffix in [".vtt", ".m3u8"] where file.hasPrefix("captions-") && file.hasSuffix(suffix) {
            let language = String(file.dropFirst("captions-".count).dropLast(suffix.count))
            guard Captions.isLanguageTag(language),
                let track = try await store.captionTrack(videoId: video.id, language: language)
            else { throw APIError.notFound("file") }
            if suffix == ".vtt" { return Self.text(track.webvtt, type: "text/vtt; charset=utf-8") }
            return Self.text(
                Captions.mediaPlaylist(duration: video.duration, uri: CaptionController.vttName(language)),
                type: "application/vnd.apple.mpegurl")
        }
        return nil
    }

    /// Whether `file` names a caption file (`captions-<language>.vtt` or `.m3u8`): answered from
    /// the caption store, never one of the clip's blobs.
    static func isCaptionFile(_ file: String) -> Bool {
        file.hasPrefix("captions-") && (file.hasSuffix(".vtt") || file.hasSuffix(".m3u8"))
    }

    /// Whether `file` is one of the clip's playlists that lists variants (a master) but not its
    /// master now: its first rendition's master, served while players may still hold it (one of
    /// its retiring files once its ladder is stored).
    private static func isEarlierMaster(_ file: String, of video: VideoRecord, blobs: any BlobStore) -> Bool {
        guard file.hasSuffix(".m3u8"), file != video.masterPlaylist, video.servedFileNames.contains(file),
            let url = blobs.file(named: file), let text = try? String(contentsOf: url, encoding: .utf8)
        else { return false }
        return text.contains("#EXT-X-STREAM-INF:")
    }

    /// Tracks change (an edit, a new language): players ask again rather than keep them.
    private static func text(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "private, no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
