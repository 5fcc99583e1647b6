import Foundation

/// A clip's caption track in one language (issue #41): WebVTT text, one track per clip and
/// language (a BCP 47 tag), deleted with its clip.
public struct CaptionTrackRecord: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// The dialogue, for who does not understand the language.
        case subtitles
        /// The dialogue and the sounds, for who does not hear them.
        case captions
    }

    public var videoId: String
    /// A BCP 47 language tag (`en`, `de-CH`, `zh-Hans`).
    public var language: String
    public var label: String
    public var kind: Kind
    /// The track as WebVTT.
    public var webvtt: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        videoId: String, language: String, label: String, kind: Kind, webvtt: String, createdAt: Date, updatedAt: Date
    ) {
        self.videoId = videoId
        self.language = language
        self.label = label
        self.kind = kind
        self.webvtt = webvtt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// The caption tracks of library clips.
public protocol CaptionStore: Sendable {
    /// A clip's tracks, by language.
    func captionTracks(videoId: String) async throws -> [CaptionTrackRecord]
    func captionTrack(videoId: String, language: String) async throws -> CaptionTrackRecord?
    /// Adds the track, or replaces the clip's track in that language (keeping when it was created).
    /// Returns the track as stored.
    func putCaptionTrack(_ track: CaptionTrackRecord) async throws -> CaptionTrackRecord
    /// False when there was no such track.
    func deleteCaptionTrack(videoId: String, language: String) async throws -> Bool
    /// The languages of each clip of `videoIds` that has tracks (clips without are absent).
    func captionLanguages(videoIds: [String]) async throws -> [String: [String]]
}
