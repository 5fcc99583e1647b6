import Foundation
import PodiumCore
import PodiumStore

/// The clips a session or room showed (its ``ClipLog``), each with its video as the library has it
/// now: what the report and the export say of them. A clip deleted since is still listed.
struct ClipsShown {
    /// What a clip deleted from the library is called wherever a title would be.
    static let deletedTitle = "deleted clip"

    struct Clip {
        let showing: ClipLog.Showing
        /// Nil: deleted from the library since it was shown.
        let video: VideoRecord?

        var title: String { video?.title ?? ClipsShown.deletedTitle }
    }

    let clips: [Clip]

    /// Looks each video up once, however often it was shown.
    init(_ log: ClipLog, store: any VideoStore) async throws {
        var videos: [String: VideoRecord?] = [:]
        var clips: [Clip] = []
        for showing in log.showings {
            if videos[showing.video] == nil { videos[showing.video] = .some(try await store.video(id: showing.video)) }
            clips.append(Clip(showing: showing, video: videos[showing.video] ?? nil))
        }
        self.clips = clips
    }
}
