import Foundation
import Hummingbird
import Logging
import PodiumStore

/// One feature of the server, one folder of `Sources/PodiumServer` (`Library/`, `Sessions/`,
/// `Rooms/`, `Storyboards/`, `Channel/`, `Live/`, and `Platform/`'s web, accounts, jobs and
/// metrics). Its initialiser builds its controllers from what it needs; its routes are added
/// here, in one place. A feature with long work has a `Workers` type of its own (built before the
/// one ``JobQueue`` that runs them all), and one that runs services names them as properties.
///
/// `buildApplication` lists the features in the order their routes are added (see
/// `assembleApplication`): a new feature is a folder with such a type, and one line there.
protocol ServerFeature {
    /// Adds the feature's routes: those under `/api/v1` to `api`, any other to `router`.
    func addRoutes(to api: RouterGroup<AppRequestContext>, router: Router<AppRequestContext>)
}

/// What every feature builds on, made once by `buildApplication` before the features are.
struct Platform: Sendable {
    let configuration: ServerConfiguration
    /// The store, one value per protocol: each feature hands its parts to what uses them.
    let stores: Stores
    /// How this node hears of other nodes' events and presence.
    let bus: any SessionBus
    let blobs: FileBlobStore
    let accounts: Accounts
    /// This node's live sessions and rooms.
    let hub: LiveHub
    /// Runs every feature's long work.
    let jobs: JobQueue
    /// Signs the per-person URLs of protected media (`/stream/<token>/<file>`).
    let streamTokens: StreamTokens
    let logger: Logger
    let now: @Sendable () -> Date
}
