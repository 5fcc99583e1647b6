import Foundation

/// A learning platform registered to launch Podium as an LTI 1.3 tool (`/api/v1/lti/platforms`,
/// admins only).
public struct LTIPlatform: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var issuer: String
    public var clientId: String
    public var deploymentIds: [String]
    public var authLoginURL: String
    public var tokenURL: String
    public var jwksURL: String
    public var createdAt: Date

    public init(
        id: String, name: String, issuer: String, clientId: String, deploymentIds: [String], authLoginURL: String,
        tokenURL: String, jwksURL: String, createdAt: Date
    ) {
        self.id = id
        self.name = name
        self.issuer = issuer
        self.clientId = clientId
        self.deploymentIds = deploymentIds
        self.authLoginURL = authLoginURL
        self.tokenURL = tokenURL
        self.jwksURL = jwksURL
        self.createdAt = createdAt
    }
}

/// What an admin registers (`POST /api/v1/lti/platforms`).
public struct LTIPlatformRegistration: Codable, Sendable, Equatable {
    public var name: String?
    public var issuer: String
    public var clientId: String
    public var deploymentIds: [String]
    public var authLoginURL: String
    public var tokenURL: String
    public var jwksURL: String

    public init(
        name: String? = nil, issuer: String, clientId: String, deploymentIds: [String], authLoginURL: String,
        tokenURL: String, jwksURL: String
    ) {
        self.name = name
        self.issuer = issuer
        self.clientId = clientId
        self.deploymentIds = deploymentIds
        self.authLoginURL = authLoginURL
        self.tokenURL = tokenURL
        self.jwksURL = jwksURL
    }
}

/// What a platform needs to know of Podium (`GET /api/v1/lti/tool`): the URLs to paste into it.
public struct LTIToolURLs: Codable, Sendable, Equatable {
    /// OIDC login initiation (Moodle's "Initiate login URL", Canvas's "OIDC Login Initiation Url").
    public var loginURL: String
    /// Where launches are posted (Moodle's "Tool URL" and "Redirection URI(s)", Canvas's "Target Link URI" and "Redirect URIs").
    public var launchURL: String
    /// Where deep linking requests are posted (Moodle's "Content Selection URL"): the launch URL too.
    public var deepLinkingURL: String
    /// The tool's public key set (Moodle's "Public keyset", Canvas's "Public JWK URL").
    public var jwksURL: String

    public init(loginURL: String, launchURL: String, deepLinkingURL: String, jwksURL: String) {
        self.loginURL = loginURL
        self.launchURL = launchURL
        self.deepLinkingURL = deepLinkingURL
        self.jwksURL = jwksURL
    }
}

/// What a teacher picked in the deep linking picker (`POST /api/v1/lti/deep-links/{id}`): a deck
/// (`deck`, its id), a session (`session`, its code) or a session's report (`report`, its code).
public struct LTIDeepLinkChoice: Codable, Sendable, Equatable {
    public var kind: String
    public var id: String

    public init(kind: String, id: String) {
        self.kind = kind
        self.id = id
    }
}

/// The signed deep linking response to post to the platform: a form field `JWT` sent to `url`.
public struct LTIDeepLinkAnswer: Codable, Sendable, Equatable {
    public var url: String
    public var jwt: String

    public init(url: String, jwt: String) {
        self.url = url
        self.jwt = jwt
    }
}
