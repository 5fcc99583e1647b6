import Foundation
import PodiumCore
import PodiumStore
import PodiumWire

extension ReportController {
    /// A clip shown, in the report: when it was on stage and how much of it played, so a host sees
    /// what the audience watched.
    struct ClipReport: Codable {
        /// The video's id in the library.
        let video: String
        /// Nil: deleted from the library since (the page shows "deleted clip").
        let title: String?
        let shownAt: Date
        /// When it was taken off the stage, or the session ended; nil while it is on stage.
        let hiddenAt: Date?
        /// Up to now while it is on stage.
        let onStageSeconds: Double
        /// Seconds of the clip played: the sum of its playing spans (up to now while it plays).
        let playedSeconds: Double
        /// The clip's length; nil when not known.
        let duration: Double?
        /// Its poster frame (`/blobs/…`); nil for a deleted clip or one without pictures.
        let posterUrl: String?

        init(_ clip: ClipsShown.Clip, until time: Date) {
            let showing = clip.showing
            let now = time.timeIntervalSince1970
            video = showing.video
            title = clip.video?.title
            shownAt = Date(timeIntervalSince1970: showing.shownAt)
            hiddenAt = showing.hiddenAt.map { Date(timeIntervalSince1970: $0) }
            onStageSeconds = Self.milliseconds(showing.onStage(until: now))
            playedSeconds = Self.milliseconds(showing.played(until: now))
            duration = showing.duration
            posterUrl = clip.video?.poster.map(DeckResponse.blobURL)
        }

        /// Seconds to the millisecond: the clock's last digits are noise in a report.
        static func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

        enum CodingKeys: String, CodingKey {
            case video, title, shownAt, hiddenAt, onStageSeconds, playedSeconds, duration, posterUrl
        }

        /// Explicit nulls: a deleted clip, one still on stage, an unknown length are information.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(video, forKey: .video)
            try container.encode(title, forKey: .title)
            try container.encode(shownAt, forKey: .shownAt)
            try container.encode(hiddenAt, forKey: .hiddenAt)
            try container.encode(onStageSeconds, forKey: .onStageSeconds)
            try container.encode(playedSeconds, forKey: .playedSeconds)
            try container.encode(duration, forKey: .duration)
            try container.encode(posterUrl, forKey: .posterUrl)
        }
    }

    /// `clips.csv`: one row per clip shown, numbered in the order shown.
    static func clipRows(_ clips: [ClipReport], iso: ISO8601DateFormatter) -> [[String]] {
        let seconds = { (value: Double) in String(format: "%.1f", value) }
        return [["clip", "title", "shown_at", "hidden_at", "on_stage_seconds", "played_seconds", "duration_seconds"]]
            + zip(1..., clips).map { number, clip in
                [
                    String(number), clip.title ?? ClipsShown.deletedTitle, iso.string(from: clip.shownAt),
                    clip.hiddenAt.map(iso.string(from:)) ?? "", seconds(clip.onStageSeconds), seconds(clip.playedSeconds),
                    clip.duration.map(seconds) ?? "",
                ]
            }
    }
}
