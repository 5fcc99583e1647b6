import Hummingbird
import PodiumStore

/// Replays of sessions and rooms (issue #44): the timeline a replay page plays, built from the
/// stored events, the audience's records and the pointer's side log.
struct ReplayFeature: ServerFeature {
    let replay: ReplayController
    /// Who may watch: the recordings' files ask the same (``RecordingsFeature``).
    let access: ReplayGate

    /// - Parameter sessions: how a session is looked up and shown over REST.
    init(_ platform: Platform, sessions: SessionController) {
        access = ReplayGate(
            accounts: platform.accounts, hosts: SessionHosts(store: platform.stores.sessions), now: platform.now)
        replay = ReplayController(
            stores: platform.stores, sessions: sessions, access: access, now: platform.now,
            clips: LibraryStageVideos(
                store: platform.stores.videos, tokens: platform.streamTokens,
                lifetime: platform.configuration.stageVideoLinkLifetime))
    }

    func addRoutes(to api: RouterGroup<AppRequestContext>, router: Router<AppRequestContext>) {
        replay.addRoutes(to: api)
    }
}
