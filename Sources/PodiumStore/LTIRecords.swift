import Foundation

/// A learning platform (Moodle, Canvas, ...) that an admin registered to launch Podium as an
/// LTI 1.3 tool (issue #43): who it is (`issuer`, and the `clientId` it gave Podium), which of its
/// deployments may launch, and where its OpenID Connect authorisation, token and key set are.
public struct LTIPlatformRecord: Sendable, Equatable, Codable {
    public var id: String
    /// What the admin calls it ("Moodle of the school").
    public var name: String
    public var issuer: String
    public var clientId: String
    /// The deployment ids whose launches are accepted; a launch from any other is refused.
    public var deploymentIds: [String]
    /// The platform's OIDC authorisation endpoint, where a login initiation is sent on.
    public var authLoginURL: String
    /// The platform's OAuth 2 token endpoint (kept for LTI Advantage services; not called yet).
    public var tokenURL: String
    /// The platform's public key set, against which launches are verified.
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

/// A login initiation under way: the `state` sent to the platform's authorisation endpoint, the
/// `nonce` its launch must carry, until when it may come back. Taken once: a second launch with
/// the same state (a replay) finds nothing.
public struct LTILoginRecord: Sendable, Equatable, Codable {
    public var state: String
    public var nonce: String
    public var platformId: String
    public var targetLinkURI: String
    public var expiresAt: Date

    public init(state: String, nonce: String, platformId: String, targetLinkURI: String, expiresAt: Date) {
        self.state = state
        self.nonce = nonce
        self.platformId = platformId
        self.targetLinkURI = targetLinkURI
        self.expiresAt = expiresAt
    }
}

/// A deep linking request a teacher is answering in Podium's picker: where the answer goes back
/// (`returnURL`, with the platform's opaque `data`), for whom (`userId`), until when.
public struct LTIDeepLinkRecord: Sendable, Equatable, Codable {
    public var id: String
    public var platformId: String
    public var deploymentId: String
    /// The course it came from (the launch's context claim), where the chosen items are placed.
    public var contextId: String?
    public var userId: String
    public var returnURL: String
    public var data: String?
    /// Whether the platform takes several items in one answer.
    public var acceptMultiple: Bool
    public var expiresAt: Date

    public init(
        id: String, platformId: String, deploymentId: String, userId: String, returnURL: String, data: String?,
        acceptMultiple: Bool, expiresAt: Date, contextId: String? = nil
    ) {
        self.id = id
        self.platformId = platformId
        self.deploymentId = deploymentId
        self.contextId = contextId
        self.userId = userId
        self.returnURL = returnURL
        self.data = data
        self.acceptMultiple = acceptMultiple
        self.expiresAt = expiresAt
    }
}

/// LTI 1.3 (issue #43): registered platforms, login initiations under way, the accounts of the
/// platforms' teachers, deep linking requests being answered.
public protocol LTIStore: Sendable {
    /// Fails on a second platform with the same issuer and client id (the caller checks first).
    func insertLTIPlatform(_ platform: LTIPlatformRecord) async throws
    func ltiPlatforms() async throws -> [LTIPlatformRecord]
    func ltiPlatform(id: String) async throws -> LTIPlatformRecord?
    /// The platforms of `issuer`, oldest first.
    func ltiPlatforms(issuer: String) async throws -> [LTIPlatformRecord]
    /// Deletes the platform with its logins under way, its links to accounts and its deep links.
    func deleteLTIPlatform(id: String) async throws -> Bool

    /// Keeps a login initiation; those past their time are swept.
    func insertLTILogin(_ login: LTILoginRecord, now: Date) async throws
    /// Takes (and removes) the login initiation of `state`, if it is not past its time.
    func takeLTILogin(state: String, now: Date) async throws -> LTILoginRecord?

    /// The account a platform's user (its `sub`) launched as before.
    func ltiUserId(platformId: String, subject: String) async throws -> String?
    func linkLTIUser(platformId: String, subject: String, userId: String) async throws

    func insertLTIDeepLink(_ link: LTIDeepLinkRecord, now: Date) async throws
    /// The deep linking request `id`, if it is not past its time.
    func ltiDeepLink(id: String, now: Date) async throws -> LTIDeepLinkRecord?
    func deleteLTIDeepLink(id: String) async throws -> Bool

    /// Records that a link in the platform's course `contextId` names `target`: a deck's id
    /// (`kind` "deck") or a session's code ("session"). Its owner placed it (deep linking, or
    /// their own launch of it), so the course's other teachers may run it. Kept once.
    func placeLTIContent(platformId: String, contextId: String, kind: String, target: String, placedBy: String?, at: Date)
        async throws
    func isLTIContentPlaced(platformId: String, contextId: String, kind: String, target: String) async throws -> Bool

    /// Records that `userId` launched a link of the platform's course `contextId` as its teacher
    /// (Instructor or Administrator) at `at`; a later launch moves the time. Kept beside what is
    /// placed in the course (`kind` "teacher"), so the course's other teachers may start its decks.
    func recordLTICourseTeacher(platformId: String, contextId: String, userId: String, at: Date) async throws
    /// A course where `deckId` is placed and `userId` launched as a teacher at `since` or later,
    /// the latest such launch's; nil when there is none.
    func ltiCourseTeaching(userId: String, deckId: String, since: Date) async throws -> LTICourse?
}

/// A learning platform's course: what a placement and a teacher's launch share.
public struct LTICourse: Sendable, Equatable {
    public var platformId: String
    public var contextId: String

    public init(platformId: String, contextId: String) {
        self.platformId = platformId
        self.contextId = contextId
    }
}
