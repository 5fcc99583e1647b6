import Foundation

/// An invitation to make an account (`/api/v1/invitations`, admins only).
public struct Invitation: Codable, Sendable, Equatable {
    public var id: String
    public var email: String
    /// `admin` or `presenter`: the account's role once accepted.
    public var role: String
    /// `queued` (on its way to the relay), `sent`, `failed` (see `deliveryError`) or `manual` (no
    /// mail relay is configured: pass `link` on by hand).
    public var delivery: String
    public var deliveryError: String?
    public var createdAt: Date
    public var expiresAt: Date
    /// The link to accept it, only in the answer that made it (creating or sending again) and only
    /// when no mail relay is configured.
    public var link: String?
    /// The language its message is written in, and sent again in (a mail catalogue's code: `de`,
    /// `zh-Hans`); the server's default when the admin chose none. Absent from older servers.
    public var language: String?

    public init(
        id: String, email: String, role: String, delivery: String, deliveryError: String? = nil, createdAt: Date,
        expiresAt: Date, link: String? = nil, language: String? = nil
    ) {
        self.id = id
        self.email = email
        self.role = role
        self.delivery = delivery
        self.deliveryError = deliveryError
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.link = link
        self.language = language
    }
}

/// What an invitation's link opens (`GET /api/v1/auth/invitation?token=`).
public struct InvitationPreview: Codable, Sendable, Equatable {
    public var email: String
    public var role: String
    public var expiresAt: Date

    public init(email: String, role: String, expiresAt: Date) {
        self.email = email
        self.role = role
        self.expiresAt = expiresAt
    }
}

/// A self sign-up whose address is verified, waiting for an admin (`/api/v1/sign-ups`).
public struct SignUpRequest: Codable, Sendable, Equatable {
    public var id: String
    public var email: String
    public var name: String
    public var createdAt: Date

    public init(id: String, email: String, name: String, createdAt: Date) {
        self.id = id
        self.email = email
        self.name = name
        self.createdAt = createdAt
    }
}

/// One entry of the audit log (`GET /api/v1/audit`).
public struct AuditEntry: Codable, Sendable, Equatable {
    public var seq: Int
    public var at: Date
    public var actorId: String?
    public var actorName: String
    public var action: String
    public var target: String?
    public var detail: String?
    public var address: String?

    public init(
        seq: Int, at: Date, actorId: String?, actorName: String, action: String, target: String?, detail: String?,
        address: String?
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

/// A page of the audit log, newest first; `before` asks for the next (older) page, nil at the end.
public struct AuditPage: Codable, Sendable, Equatable {
    public var entries: [AuditEntry]
    public var before: Int?

    public init(entries: [AuditEntry], before: Int?) {
        self.entries = entries
        self.before = before
    }
}
