import Foundation
import Hummingbird
import PodiumStore

/// Accounts: signing in and out (`/api/v1/auth`) and the admin's users (`/api/v1/users`). The
/// ``Accounts`` themselves are the platform's: every feature checks who asks.
struct AccountsFeature: ServerFeature {
    let auth: AuthController
    let users: UserController

    init(_ platform: Platform) {
        let configuration = platform.configuration
        let channelVideos = platform.stores.channelVideos
        auth = AuthController(
            accounts: platform.accounts, tokenLifetime: configuration.tokenLifetime,
            failuresPerClient: AttemptLimiter(limit: configuration.loginAttempts, window: configuration.passcodeWindow),
            failuresPerAccount: AttemptLimiter(limit: configuration.loginAttempts * 4, window: configuration.passcodeWindow),
            now: platform.now,
            // What the browser kept on the channel before signing in (favourites, positions) is the person's.
            signedIn: { viewerId, user in
                if let viewerId { try await channelVideos.adoptChannelViewer(from: viewerId, into: user.id) }
            })
        users = UserController(store: platform.stores.users, accounts: platform.accounts, now: platform.now)
    }

    func addRoutes(to api: RouterGroup<AppRequestContext>, router: Router<AppRequestContext>) {
        auth.addRoutes(to: api)
        users.addRoutes(to: api)
    }
}
