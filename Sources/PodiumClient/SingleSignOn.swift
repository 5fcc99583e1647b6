import Foundation
import PodiumWire

extension Endpoint {
    /// How people may sign in (password; single sign-on's name), for a sign-in screen.
    public static let signInOptions = Endpoint("GET", "/api/v1/auth/options")
    /// Browsers only: the redirect to the OpenID provider, and its way back.
    public static let oidcStart = Endpoint("GET", "/api/v1/auth/oidc/start")
    public static let oidcCallback = Endpoint("GET", "/api/v1/auth/oidc/callback")
}

extension PodiumClient {
    /// How people may sign in here: with a password, and whether single sign-on is set up (its
    /// button's name). A native app signs in with single sign-on in a browser.
    public func signInOptions() async throws -> SignInOptionsResponse {
        try await call(.signInOptions)
    }
}
