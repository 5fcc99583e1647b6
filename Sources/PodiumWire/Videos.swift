import Foundation

/// A video or audio clip of the library (`GET /api/v1/videos`, `/videos/{id}`, an upload's
/// answer). Its pictures (poster, thumbnail sprite) are blobs at `/blobs/<name>`; its media
/// (playlists, segments, MP4, thumbnail track) only capability URLs, `/stream/<token>/<name>`,
/// made for the person asking and expiring. Fields without a value are left out.
public struct Video: Codable, Sendable, Equatable {
    /// A variant of the master playlist (the audio rendition has no width or height).
    public struct Rendition: Codable, Sendable, Equatable {
        public var playlistUrl: String
        public var bandwidth: Int
        public var width: Int?
        public var height: Int?
        public var codecs: String

        public init(playlistUrl: String, bandwidth: Int, width: Int?, height: Int?, codecs: String) {
            self.playlistUrl = playlistUrl
            self.bandwidth = bandwidth
            self.width = width
            self.height = height
            self.codecs = codecs
        }
    }

    public var id: String
    public var title: String
    /// `queued`, `processing`, `ready` or `failed`.
    public var status: String
    public var folderId: String?
    public var createdAt: Date
    public var sourceBytes: Int
    public var duration: Double
    public var width: Int
    public var height: Int
    public var hasVideo: Bool
    public var hasAudio: Bool
    /// While queued or processing, and while a `ready` clip's ladder is still packaged
    /// (`ladderComplete` false: stage `renditions`, then `finishing`).
    public var progress: WorkProgress?
    /// When failed.
    public var error: FailureDetail?
    /// The media, once ready: capability URLs (`/stream/<token>/<file>`) made for the caller
    /// that expire (`410 stream_expired`; fetch the video again for fresh ones). The renditions'
    /// `playlistUrl`s too: the video variants, tallest first, then the audio rendition.
    public var masterPlaylistUrl: String?
    /// The pictures, at `/blobs/` for good.
    public var posterUrl: String?
    public var thumbnailsUrl: String?
    public var thumbnailTrackUrl: String?
    public var mp4Url: String?
    public var renditions: [Rendition]
    /// Where the clip starts and ends on a stage (seconds into it; left out: its own start or
    /// end), set by `PUT /api/v1/videos/{id}/clip`. Metadata: the files are whole.
    public var trimStart: Double? = nil
    public var trimEnd: Double? = nil
    /// On a stage, reaching its end (or `trimEnd`) starts it again from its start (or `trimStart`).
    public var loop: Bool = false
    /// The integrated loudness packaging measured in the upload (LUFS, EBU R128) before
    /// normalising its sound to the server's target; left out before packaging or without sound.
    public var loudness: Double? = nil
    /// Once `ready`: whether every rendition of its ladder is packaged. A clip with more than one
    /// rung is `ready` (it plays, on every stage and in the channel) as soon as a first rendition
    /// (its lowest rung, with the sound and the poster) is stored; until its other renditions,
    /// its MP4 and thumbnails follow, this is false and `renditions` lists what exists so far.
    /// Left out while not ready.
    public var ladderComplete: Bool? = nil

    public init(
        id: String, title: String, status: String, folderId: String?, createdAt: Date, sourceBytes: Int, duration: Double,
        width: Int, height: Int, hasVideo: Bool, hasAudio: Bool, progress: WorkProgress?, error: FailureDetail?,
        masterPlaylistUrl: String?, posterUrl: String?, thumbnailsUrl: String?, thumbnailTrackUrl: String?,
        mp4Url: String?, renditions: [Rendition]
    ) {
        self.id = id
        self.title = title
        self.status = status
        self.folderId = folderId
        self.createdAt = createdAt
        self.sourceBytes = sourceBytes
        self.duration = duration
        self.width = width
        self.height = height
        self.hasVideo = hasVideo
        self.hasAudio = hasAudio
        self.progress = progress
        self.error = error
        self.masterPlaylistUrl = masterPlaylistUrl
        self.posterUrl = posterUrl
        self.thumbnailsUrl = thumbnailsUrl
        self.thumbnailTrackUrl = thumbnailTrackUrl
        self.mp4Url = mp4Url
        self.renditions = renditions
    }
}
