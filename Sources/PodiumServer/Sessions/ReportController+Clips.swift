import Foundation
import PodiumCore
import PodiumStore
import PodiumWire

extension ReportController {
    /// A clip shown, in the report (PodiumWire's `SessionReport.Clip`): when it was on stage and
    /// how much of it played, so a host sees what the audience watched.
    typealias ClipReport = SessionReport.Clip

    /// `clips.csv`: one row per clip shown, numbered in the order shown. Its last column,
    /// `captions`, says which languages the clip has caption tracks in (space-separated, as
    /// `en de`), or `none` (WCAG 1.2.2: the host sees which clips lacked them); empty for a clip
    /// deleted since, of which nothing is known.
    static func clipRows(_ clips: [ClipReport], iso: ISO8601DateFormatter) -> [[String]] {
        let seconds = { (value: Double) in String(format: "%.1f", value) }
        let captions = { (languages: [String]?) in
            languages.map { $0.isEmpty ? "none" : $0.joined(separator: " ") } ?? ""
        }
        return [
            [
                "clip", "title", "shown_at", "hidden_at", "on_stage_seconds", "played_seconds", "duration_seconds",
                "captions",
            ]
        ]
            + zip(1..., clips).map { number, clip in
                [
                    String(number), clip.title ?? ClipsShown.deletedTitle, iso.string(from: clip.shownAt),
                    clip.hiddenAt.map(iso.string(from:)) ?? "", seconds(clip.onStageSeconds), seconds(clip.playedSeconds),
                    clip.duration.map(seconds) ?? "", captions(clip.captions),
                ]
            }
    }
}

extension SessionReport.Clip {
    init(_ clip: ClipsShown.Clip, until time: Date) {
        let showing = clip.showing
        let now = time.timeIntervalSince1970
        self.init(
            video: showing.video, title: clip.video?.title, shownAt: Date(timeIntervalSince1970: showing.shownAt),
            hiddenAt: showing.hiddenAt.map { Date(timeIntervalSince1970: $0) },
            onStageSeconds: Self.milliseconds(showing.onStage(until: now)),
            playedSeconds: Self.milliseconds(showing.played(until: now)), duration: showing.duration,
            posterUrl: clip.video?.poster.map(DeckResponse.blobURL))
    }

    /// Seconds to the millisecond: the clock's last digits are noise in a report.
    static func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}
