import Foundation

/// A one-time link sent by email (issue #43): an invitation to make an account, a self sign-up
/// (its address to verify, then an admin's approval), or a password reset. Only the SHA-256 of
/// the link's token is kept, as with sign-in tokens; a link works once (its status moves on by
/// compare-and-set) and until `expiresAt`.
public struct AccountLinkRecord: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        case invitation
        case signUp = "sign_up"
        case passwordReset = "password_reset"
    }

    public enum Status: String, Sendable, Codable {
        /// Sent, not yet followed.
        case pending
        /// A sign-up whose address was verified: waiting for an admin.
        case verified
        /// Followed (an invitation accepted, a sign-up approved, a password set).
        case used
        /// Withdrawn by an admin (an invitation).
        case revoked
        /// A sign-up an admin declined.
        case declined
    }

    /// How its message fared: `queued` (on its way), `sent` (the relay took it), `failed` (the
    /// relay refused it or could not be reached; `deliveryError` says why), `manual` (no relay is
    /// configured: the admin passes the link on by hand).
    public enum Delivery: String, Sendable, Codable {
        case queued, sent, failed, manual
    }

    public var id: String
    public var kind: Kind
    public var tokenHash: String
    /// Lower case.
    public var email: String
    /// The role the account gets (an invitation's, `presenter` for a sign-up).
    public var role: UserRecord.Role
    /// A sign-up's chosen name.
    public var name: String?
    /// A sign-up's chosen password, hashed, until its account is made.
    public var passwordHash: String?
    /// A password reset's account.
    public var userId: String?
    /// The admin who invited.
    public var createdBy: String?
    public var status: Status
    public var delivery: Delivery
    public var deliveryError: String?
    public var expiresAt: Date
    public var createdAt: Date
    public var usedAt: Date?
    /// The language its messages are written in (a catalogue's code: `de`, `zh-Hans`); nil: the
    /// server's default.
    public var language: String?

    public init(
        id: String, kind: Kind, tokenHash: String, email: String, role: UserRecord.Role = .presenter, name: String? = nil,
        passwordHash: String? = nil, userId: String? = nil, createdBy: String? = nil, status: Status = .pending,
        delivery: Delivery = .queued, deliveryError: String? = nil, expiresAt: Date, createdAt: Date, usedAt: Date? = nil,
        language: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.tokenHash = tokenHash
        self.email = email
        self.role = role
        self.name = name
        self.passwordHash = passwordHash
        self.userId = userId
        self.createdBy = createdBy
        self.status = status
        self.delivery = delivery
        self.deliveryError = deliveryError
        self.expiresAt = expiresAt
        self.createdAt = createdAt
        self.usedAt = usedAt
        self.language = language
    }
}

/// One admin action (or a sign-in lock-out) of the audit log, numbered in the order recorded.
public struct AuditRecord: Sendable, Equatable, Codable {
    public var seq: Int
    public var at: Date
    /// Who did it (nil: the server itself, e.g. a lock-out).
    public var actorId: String?
    public var actorName: String
    /// `user.created`, `user.invited`, `user.role_changed`, ... (see docs/operations.md).
    public var action: String
    /// What it was done to: an account's address, an invitation's, a client address.
    public var target: String?
    public var detail: String?
    /// The client address the request came from.
    public var address: String?

    public init(
        seq: Int = 0, at: Date, actorId: String?, actorName: String, action: String, target: String? = nil,
        detail: String? = nil, address: String? = nil
    ) {
        self.seq = seq
        self.at = at
        self.actorId = actorId
        self.actorName = actorName
        self.action = action
        self.target = target
        self.detail = detail
        self.address = address
    }
}

/// Accounts beyond signing in: links sent by email, roles, and the audit log.
public protocol AccountStore: Sendable {
    func insertAccountLink(_ link: AccountLinkRecord) async throws
    func accountLink(id: String) async throws -> AccountLinkRecord?
    func accountLink(tokenHash: String) async throws -> AccountLinkRecord?
    /// Links of `kind` in one of `statuses`, newest first.
    func accountLinks(kind: AccountLinkRecord.Kind, statuses: [AccountLinkRecord.Status]) async throws
        -> [AccountLinkRecord]
    /// Moves a link from `from` to `to` if it is still `from` (and, when `now` is given, not
    /// expired at `now`); false when another request moved it first: a link works once.
    func moveAccountLink(id: String, from: AccountLinkRecord.Status, to: AccountLinkRecord.Status, now: Date?)
        async throws -> Bool
    /// A new token and expiry for a pending link (sent again): the old link stops working.
    func renewAccountLink(id: String, tokenHash: String, expiresAt: Date) async throws -> Bool
    func setAccountLinkDelivery(id: String, _ delivery: AccountLinkRecord.Delivery, error: String?) async throws
    /// Withdraws every pending link of `kind` for `email` (an earlier reset, when a new one is asked for).
    func revokeAccountLinks(kind: AccountLinkRecord.Kind, email: String) async throws

    func setRole(userId: String, _ role: UserRecord.Role) async throws
    /// The language of the page the account last signed in from (nil: unknown), for the messages
    /// it is sent.
    func setUserLanguage(userId: String, _ language: String?) async throws
    /// Ends every sign-in of the account (its tokens), its password unchanged.
    func endSignIns(userId: String) async throws
    func userLanguage(userId: String) async throws -> String?
    /// The number of admins (the last one may not be made a presenter).
    func adminCount() async throws -> Int

    /// Appends an entry; returns it numbered.
    @discardableResult func appendAudit(_ entry: AuditRecord) async throws -> AuditRecord
    /// At most `limit` entries, newest first, older than `before` when given.
    func auditEntries(before: Int?, limit: Int) async throws -> [AuditRecord]
}
