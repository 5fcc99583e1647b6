import Foundation
import Hummingbird
import PodiumStore
import PodiumWire

/// Single sign-on with OpenID Connect (`--oidc-issuer`): the sign-in page's options and the
/// sign-in at the provider. Without an issuer the options say "password only" and the sign-in
/// routes answer 404.
struct OIDCFeature: ServerFeature {
    let controller: OIDCController

    init(_ platform: Platform, http: @escaping OIDCHTTP = OIDCProvider.urlSession) {
        let configuration = platform.configuration
        let channelVideos = platform.stores.channelVideos
        controller = OIDCController(
            provider: configuration.oidc.map { OIDCProvider(settings: $0, http: http, now: platform.now) },
            accounts: platform.accounts, identities: platform.stores.externalIdentities, users: platform.stores.users,
            publicURL: configuration.publicURL, tokenLifetime: configuration.tokenLifetime,
            stateKey: OIDCController.stateKey(from: platform.streamTokens.keyBytes), logger: platform.logger,
            now: platform.now,
            audit: AuditLog(store: platform.stores.accounts, now: platform.now),
            accountStore: platform.stores.accounts,
            signedIn: { viewerId, user in
                if let viewerId { try await channelVideos.adoptChannelViewer(from: viewerId, into: user.id) }
            })
    }

    func addRoutes(to api: RouterGroup<AppRequestContext>, router: Router<AppRequestContext>) {
        controller.addRoutes(to: api)
    }
}

extension SignInOptionsResponse: ResponseEncodable {}
