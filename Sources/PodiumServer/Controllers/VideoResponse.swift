import Foundation
import Hummingbird
import PodiumMedia
import PodiumStore

/// A video as the REST API shows it. Its files are blobs, served (by range) at `/blobs/<name>`
/// like page images: anyone given a file's name may read it.
struct VideoResponse: Codable, Sendable, ResponseEncodable {
    struct Rendition: Codable, Sendable {
        let playlistUrl: String
        let bandwidth: Int
        let width: Int?
        let height: Int?
        let codecs: String
    }

    let id: String
    let title: String
    /// `queued`, `processing`, `ready` or `failed`.
    let status: String
    let folderId: String?
    let createdAt: Date
    let sourceBytes: Int
    let duration: Double
    let width: Int
    let height: Int
    let hasVideo: Bool
    let hasAudio: Bool
    let progress: IngestProgressResponse?
    let error: ErrorDetail?
    let masterPlaylistUrl: String?
    let posterUrl: String?
    let thumbnailsUrl: String?
    let thumbnailTrackUrl: String?
    let mp4Url: String?
    let renditions: [Rendition]

    init(_ video: VideoRecord, progress: IngestProgress?) {
        id = video.id
        title = video.title
        status = video.status.rawValue
        folderId = video.folderId
        createdAt = video.createdAt
        sourceBytes = video.sourceBytes
        duration = video.duration
        width = video.width
        height = video.height
        hasVideo = video.hasVideo
        hasAudio = video.hasAudio
        let unfinished = video.status == .queued || video.status == .processing
        self.progress = unfinished ? progress.map(IngestProgressResponse.init) : nil
        error = video.errorCode.map { ErrorDetail(code: $0, message: video.errorMessage ?? "") }
        let ready = video.status == .ready
        let url = { (name: String?) in ready ? name.map(DeckResponse.blobURL) : nil }
        masterPlaylistUrl = url(video.masterPlaylist)
        posterUrl = url(video.poster)
        thumbnailsUrl = url(video.thumbnailSprite)
        thumbnailTrackUrl = url(video.thumbnailTrack)
        mp4Url = url(video.mp4)
        let variants =
            ready ? (try? JSONDecoder().decode([PackagedVideo.Variant].self, from: Data(video.renditions.utf8))) ?? [] : []
        renditions = variants.map {
            Rendition(
                playlistUrl: DeckResponse.blobURL($0.playlist), bandwidth: $0.bandwidth, width: $0.width, height: $0.height,
                codecs: $0.codecs)
        }
    }
}
