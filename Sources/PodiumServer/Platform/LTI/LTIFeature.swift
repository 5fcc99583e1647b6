import Foundation
import Hummingbird
import PodiumStore

/// LTI 1.3 (issue #43): Podium as a tool of a learning platform (see ``LTIController``).
struct LTIFeature: ServerFeature {
    let controller: LTIController

    init(_ platform: Platform) {
        controller = LTIController(
            store: platform.stores.lti, users: platform.stores.users, sessions: platform.stores.sessions,
            decks: platform.stores.decks, accounts: platform.accounts,
            toolKey: LTIToolKey(store: platform.stores.channelSettings),
            keySets: JSONWebKeySetCache(fetch: LTIKeySetFetch.fetch, now: platform.now),
            publicURL: platform.configuration.publicURL, webRoot: platform.configuration.webRoot,
            tokenLifetime: platform.configuration.tokenLifetime, now: platform.now,
            audit: AuditLog(store: platform.stores.accounts, now: platform.now), languages: platform.stores.accounts)
    }

    func addRoutes(to api: RouterGroup<AppRequestContext>, router: Router<AppRequestContext>) {
        controller.addRoutes(to: api, router: router)
    }
}
