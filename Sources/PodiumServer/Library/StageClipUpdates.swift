import Foundation
import Logging
import PodiumCore
import PodiumStore

/// A clip's trim or loop changed in the library while the clip is on a stage (#41): the stage takes
/// them on at once, not only the next time the clip is shown. For every live session or room of the
/// clip's owner that has it on stage, the server sends the stage's own command, `showVideo` of the
/// same clip with the new trim and the files the screens already play (so none reloads): the
/// decision keeps the clip where it is, inside the new trim, and its `playback` event reaches every
/// screen, on every node, like any other change of the reference.
struct StageClipUpdates: Sendable {
    let sessions: any SessionStore
    let hub: LiveHub
    let logger: Logger

    func clipChanged(_ video: VideoRecord) async {
        let live: [SessionRecord]
        do {
            live = try await sessions.liveSessions()
        } catch {
            logger.notice("clip \(video.id): its stages keep the old trim until shown again: \(error)")
            return
        }
        for record in live where record.presenterId == video.ownerId {
            guard let session = try? await hub.session(code: record.code) else { continue }
            let snapshot = await session.state.snapshot
            guard let playback = snapshot.playback, playback.video == video.id, !snapshot.ended else { continue }
            let clip = VideoOnStage(
                id: video.id, duration: playback.duration, media: playback.media, start: video.trimStart,
                end: video.trimEnd, loop: video.loops)
            // Sent as whoever drives the stage now: in a room, the presenter holding control, or the moderator.
            let actor =
                snapshot.room.map { room in room.control.active.map { Actor(.presenter, presenterId: $0) } ?? Actor(.moderator) }
                ?? Actor(.presenter)
            do {
                _ = try await session.perform(.showVideo(clip), id: IDs.make("clip"), actor: actor)
            } catch {
                logger.notice("clip \(video.id) in session \(record.code): the new trim waits for the next show: \(error)")
            }
        }
    }
}
