import Foundation

extension Endpoint {
    public static let ltiJWKS = Endpoint("GET", "/api/v1/lti/jwks")
    public static let ltiTool = Endpoint("GET", "/api/v1/lti/tool")
    public static let ltiPlatforms = Endpoint("GET", "/api/v1/lti/platforms")
    public static let registerLTIPlatform = Endpoint("POST", "/api/v1/lti/platforms")
    public static let deleteLTIPlatform = Endpoint("DELETE", "/api/v1/lti/platforms/{id}")
    /// Browsers only: a learning platform sends them here (OIDC login initiation), and they post the launch.
    public static let ltiLoginGet = Endpoint("GET", "/api/v1/lti/login")
    public static let ltiLoginPost = Endpoint("POST", "/api/v1/lti/login")
    public static let ltiLaunch = Endpoint("POST", "/api/v1/lti/launch")
    public static let answerLTIDeepLink = Endpoint("POST", "/api/v1/lti/deep-links/{id}")

    static let lti: [Endpoint] = [
        .ltiJWKS, .ltiTool, .ltiPlatforms, .registerLTIPlatform, .deleteLTIPlatform, .ltiLoginGet, .ltiLoginPost,
        .ltiLaunch, .answerLTIDeepLink,
    ]
}

extension PodiumClient {
    /// The tool's public key set (JSON), as learning platforms fetch it.
    public func ltiKeySet() async throws -> Data {
        try await bytes(.ltiJWKS)
    }

    /// The URLs to paste into a learning platform when registering Podium (admins only).
    public func ltiToolURLs() async throws -> LTIToolURLs {
        try await call(.ltiTool)
    }

    /// The registered learning platforms (admins only).
    public func ltiPlatforms() async throws -> [LTIPlatform] {
        try await call(.ltiPlatforms)
    }

    /// Registers a learning platform (admins only).
    public func registerLTIPlatform(_ registration: LTIPlatformRegistration) async throws -> LTIPlatform {
        try await call(.registerLTIPlatform, json: registration)
    }

    /// Removes a learning platform's registration (admins only): its links stop opening Podium.
    public func deleteLTIPlatform(id: String) async throws {
        try await callIgnoringReply(.deleteLTIPlatform, ["id": id])
    }

    /// Answers a deep linking request with the items chosen: the signed response to post to the
    /// platform (the browser's picker does this; for tests and tools).
    public func answerLTIDeepLink(id: String, choices: [LTIDeepLinkChoice]) async throws -> LTIDeepLinkAnswer {
        try await call(.answerLTIDeepLink, ["id": id], json: choices)
    }
}
