import Logging
import PodiumCore
import PodiumStore

extension LiveSession {
    /// The room's projector buffers, or can play again: the one screen a video waits for.
    ///
    /// While it buffers a playing clip, the clip is paused for everyone; once it can play, it
    /// plays on for everyone, anchored ahead so every screen starts together. Only the pause this
    /// node made is undone: if anyone changed the reference since (a pause, a seek, another clip),
    /// theirs stands. The commands are the stage driver's own (whoever holds control).
    func projectorBuffering(_ buffering: Bool, logger: Logger) async {
        let snapshot = state.snapshot
        // A session's presenter drives its stage; in a room, whoever holds control (or the moderator).
        let driver =
            snapshot.room == nil
            ? Actor(.presenter)
            : Actor(snapshot.room?.control.active == nil ? .moderator : .presenter, presenterId: snapshot.room?.control.active)
        do {
            if buffering {
                guard heldForProjector == nil, let playback = snapshot.playback, playback.state == .playing else { return }
                _ = try await perform(.playback(.pause), id: IDs.make("hold"), actor: driver)
                heldForProjector = state.snapshot.playback
            } else {
                guard let held = heldForProjector else { return }
                heldForProjector = nil
                guard state.snapshot.playback == held else { return }
                _ = try await perform(.playback(.play), id: IDs.make("resume"), actor: driver)
            }
        } catch {
            logger.notice("session \(record.code): the projector's buffering changed nothing: \(error.code)")
        }
    }
}
