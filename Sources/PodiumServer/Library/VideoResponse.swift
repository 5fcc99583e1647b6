import Foundation
import Hummingbird
import PodiumMedia
import PodiumStore
import PodiumWire

/// A video as the REST API shows it (PodiumWire's `Video`, which the SDK decodes). Its pictures
/// (poster, thumbnail sprite) are blobs, served at `/blobs/<name>` like page images; its media
/// (playlists, segments, MP4, thumbnail track)
/// only through a capability URL, `/stream/<token>/<name>`, whose token names this video
/// (`clip:<id>`), the person it was given to and when it expires (see ``ClipStreamSource``).
typealias VideoResponse = Video

extension Video: ResponseEncodable {
    /// `stream`: the capability URLs of this video for the person asking (nil when it is not ready).
    init(_ video: VideoRecord, progress: IngestProgress?, stream: ClipStreamSource.URLs?) {
        // A ready clip whose ladder is still packaged shows its progress too.
        let unfinished =
            video.status == .queued || video.status == .processing || (video.status == .ready && !video.ladderComplete)
        let ready = video.status == .ready
        let picture = { (name: String?) in ready ? name.map(DeckResponse.blobURL) : nil }
        let media = { (name: String?) in ready ? name.flatMap { name in stream?.url(name) } : nil }
        let renditions = (ready ? Self.renditions(of: video) : []).compactMap { variant in
            media(variant.playlist).map {
                Rendition(
                    playlistUrl: $0, bandwidth: variant.bandwidth, width: variant.width, height: variant.height,
                    codecs: variant.codecs)
            }
        }
        self.init(
            id: video.id, title: video.title, status: video.status.rawValue, folderId: video.folderId,
            createdAt: video.createdAt, sourceBytes: video.sourceBytes, duration: video.duration, width: video.width,
            height: video.height, hasVideo: video.hasVideo, hasAudio: video.hasAudio,
            progress: unfinished ? progress.map(WorkProgress.init) : nil,
            error: video.errorCode.map { FailureDetail(code: $0, message: video.errorMessage ?? "") },
            masterPlaylistUrl: media(video.masterPlaylist), posterUrl: picture(video.poster),
            thumbnailsUrl: picture(video.thumbnailSprite), thumbnailTrackUrl: media(video.thumbnailTrack),
            mp4Url: media(video.mp4), renditions: renditions)
        trimStart = video.trimStart
        trimEnd = video.trimEnd
        loop = video.loops
        loudness = video.loudness
        ladderComplete = ready ? video.ladderComplete : nil
    }

    /// The master playlist's video variants, tallest first, then the audio rendition. The
    /// packager takes the audio rendition out of the master's variants (it is every video
    /// variant's audio group) and records only the video ones; it is the one media playlist of
    /// the video's files that is neither the master nor a video variant's.
    static func renditions(of video: VideoRecord) -> [PackagedVideo.Variant] {
        let variants = (try? JSONDecoder().decode([PackagedVideo.Variant].self, from: Data(video.renditions.utf8))) ?? []
        guard video.hasVideo, video.hasAudio, variants.contains(where: { $0.height != nil }) else { return variants }
        let listed = Set(variants.map(\.playlist) + [video.masterPlaylist].compactMap { $0 })
        let audio = video.fileNames.filter { $0.hasSuffix(".m3u8") && !listed.contains($0) }.sorted()
        let codecs =
            variants.lazy.flatMap { $0.codecs.split(separator: ",") }.first { $0.hasPrefix("mp4a") }.map(String.init)
            ?? "mp4a.40.2"
        return variants
            + audio.map {
                PackagedVideo.Variant(
                    playlist: $0, bandwidth: VideoPackager.audioKilobits * 1000, width: nil, height: nil, codecs: codecs)
            }
    }
}
