import Foundation

/// What ``VideoPackager`` wrote: every path is relative to ``directory``, and the text files
/// (playlists, the thumbnail track) refer to the others by relative paths.
public struct PackagedVideo: Sendable, Equatable {
    /// One variant of the master playlist.
    public struct Variant: Sendable, Equatable, Codable {
        /// The media playlist, relative to the directory.
        public var playlist: String
        /// Peak bits per second, as the master playlist states it.
        public var bandwidth: Int
        /// Picture size; nil for the audio rendition.
        public var width: Int?
        public var height: Int?
        /// RFC 6381 codecs, e.g. `avc1.4d401f,mp4a.40.2`.
        public var codecs: String

        public init(playlist: String, bandwidth: Int, width: Int?, height: Int?, codecs: String) {
            self.playlist = playlist
            self.bandwidth = bandwidth
            self.width = width
            self.height = height
            self.codecs = codecs
        }
    }

    public var directory: URL
    /// `master.m3u8`.
    public var masterPlaylist: String
    /// The video renditions, tallest first, then the audio rendition (if any).
    public var variants: [Variant]
    /// A JPEG frame from early in the clip; nil for audio only.
    public var poster: String?
    /// The thumbnail sprite (JPEG) and the WebVTT track mapping times to regions of it; nil for audio only.
    public var thumbnailSprite: String?
    public var thumbnailTrack: String?
    /// The middle rendition as one faststart MP4, for exact seeking; nil for audio only.
    public var mp4: String?
    /// Every file written, relative to the directory.
    public var files: [String]
    /// What loudnorm measured in the source's sound before normalising it; nil without sound,
    /// or when no loudness target is set.
    public var loudness: LoudnessMeasurement? = nil
    /// Paths the master playlist names that are stored already, by their stored names: a reused
    /// rung's playlist (``VideoPackager/PackagedRung``), at ``reusedRungPath``. Not in ``files``.
    public var stored: [String: String] = [:]

    /// Where the master playlist lists a reused rung.
    public static let reusedRungPath = "reused/index.m3u8"
}
