import Foundation

/// A person of an OpenID provider (single sign-on, issue #43) and the Podium account they sign in
/// as: found by the provider's `issuer` and the person's `subject` there, which never change,
/// unlike an email address.
public struct ExternalIdentityRecord: Sendable, Equatable, Codable {
    public var issuer: String
    public var subject: String
    public var userId: String
    /// The address the provider last gave (informational: the account is found by issuer and subject).
    public var email: String?
    public var createdAt: Date
    public var lastSignInAt: Date

    public init(issuer: String, subject: String, userId: String, email: String?, createdAt: Date, lastSignInAt: Date) {
        self.issuer = issuer
        self.subject = subject
        self.userId = userId
        self.email = email
        self.createdAt = createdAt
        self.lastSignInAt = lastSignInAt
    }
}

/// Single sign-on's accounts: who each provider's person is here, and the role and channel
/// membership their groups give, applied again at every sign-in.
public protocol ExternalIdentityStore: Sendable {
    func externalIdentity(issuer: String, subject: String) async throws -> ExternalIdentityRecord?
    /// Links a provider's person to an account; false when that (issuer, subject) is linked already
    /// (two first sign-ins at once: the caller reads the link that won).
    func insertExternalIdentity(_ identity: ExternalIdentityRecord) async throws -> Bool
    /// Records a sign-in: when, and the address the provider gave.
    func touchExternalIdentity(issuer: String, subject: String, email: String?, at: Date) async throws
    /// The identities linked to an account (an admin sees how someone signs in).
    func externalIdentities(userId: String) async throws -> [ExternalIdentityRecord]
    /// Sets an account's role and channel membership together (the provider's groups, at sign-in).
    func setRoleAndMembership(userId: String, role: UserRecord.Role, isMember: Bool) async throws
}
