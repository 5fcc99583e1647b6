import Foundation

/// A clip's caption track in one language (`GET /api/v1/videos/{id}/captions`): WebVTT, listed
/// in the clip's master playlist as a subtitle rendition. `url` fetches the WebVTT file.
public struct CaptionTrack: Codable, Sendable, Equatable {
    /// A BCP 47 language tag (`en`, `de-CH`, `zh-Hans`): one track per clip and language.
    public var language: String
    public var label: String
    /// `subtitles` (the dialogue) or `captions` (the dialogue and the sounds).
    public var kind: String
    public var cueCount: Int
    public var createdAt: Date
    public var updatedAt: Date
    /// The track as a WebVTT file (`text/vtt`), a capability URL beside the clip's master
    /// playlist; only once the clip is ready.
    public var url: String?
    /// Only in the answer about one track (`GET`, `PUT`, and a cue's edit): its cues in order.
    public var cues: [CaptionCue]?

    public init(
        language: String, label: String, kind: String, cueCount: Int, createdAt: Date, updatedAt: Date, url: String?,
        cues: [CaptionCue]? = nil
    ) {
        self.language = language
        self.label = label
        self.kind = kind
        self.cueCount = cueCount
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.url = url
        self.cues = cues
    }

    /// One cue: shown from `start` to `end` (seconds into the clip); `text` in WebVTT's basic
    /// markup (`<b>`, `<i>`, `<u>`).
    public struct CaptionCue: Codable, Sendable, Equatable {
        public var start: Double
        public var end: Double
        public var text: String

        public init(start: Double, end: Double, text: String) {
            self.start = start
            self.end = end
            self.text = text
        }
    }
}

/// The new text of one cue (`PATCH /api/v1/videos/{id}/captions/{language}/cues/{index}`).
public struct CaptionCueEdit: Codable, Sendable, Equatable {
    public var text: String

    public init(text: String) { self.text = text }
}
