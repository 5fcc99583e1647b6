import Foundation
import PodiumWire

extension Endpoint {
    public static let invitations = Endpoint("GET", "/api/v1/invitations")
    public static let invite = Endpoint("POST", "/api/v1/invitations")
    public static let resendInvitation = Endpoint("POST", "/api/v1/invitations/{id}/resend")
    public static let revokeInvitation = Endpoint("DELETE", "/api/v1/invitations/{id}")
    public static let invitationPreview = Endpoint("GET", "/api/v1/auth/invitation")
    public static let acceptInvitation = Endpoint("POST", "/api/v1/auth/invitation")
    public static let signUp = Endpoint("POST", "/api/v1/auth/sign-up")
    public static let verifySignUp = Endpoint("POST", "/api/v1/auth/sign-up/verify")
    public static let signUps = Endpoint("GET", "/api/v1/sign-ups")
    public static let approveSignUp = Endpoint("POST", "/api/v1/sign-ups/{id}/approve")
    public static let declineSignUp = Endpoint("POST", "/api/v1/sign-ups/{id}/decline")
    public static let requestPasswordReset = Endpoint("POST", "/api/v1/auth/password-reset")
    public static let completePasswordReset = Endpoint("POST", "/api/v1/auth/password-reset/complete")
    public static let audit = Endpoint("GET", "/api/v1/audit")

    static let accountLinks: [Endpoint] = [
        .invitations, .invite, .resendInvitation, .revokeInvitation, .invitationPreview, .acceptInvitation,
        .signUp, .verifySignUp, .signUps, .approveSignUp, .declineSignUp, .requestPasswordReset, .completePasswordReset,
        .audit,
    ]
}

extension PodiumClient {
    /// Pending invitations (admins only).
    public func invitations() async throws -> [Invitation] {
        try await call(.invitations)
    }

    /// Invites `email` (admins only); without a mail relay the answer's `link` is to be passed on by hand.
    public func invite(email: String, role: String = "presenter") async throws -> Invitation {
        struct Body: Encodable {
            let email: String
            let role: String
        }
        return try await call(.invite, json: Body(email: email, role: role))
    }

    /// Sends an invitation again with a new link (the old one stops working).
    public func resendInvitation(id: String) async throws -> Invitation {
        try await call(.resendInvitation, ["id": id])
    }

    public func revokeInvitation(id: String) async throws {
        try await callIgnoringReply(.revokeInvitation, ["id": id])
    }

    /// What an invitation's link (its `token`) invites to.
    public func invitationPreview(token: String) async throws -> InvitationPreview {
        try await call(.invitationPreview, query: ["token": token])
    }

    /// Accepts an invitation: makes the account, signs it in and keeps the token.
    @discardableResult
    public func acceptInvitation(token: String, name: String?, password: String) async throws -> User {
        struct Body: Encodable {
            let token: String
            let name: String?
            let password: String
        }
        let reply = try await call(
            .acceptInvitation, json: Body(token: token, name: name, password: password), as: LoginResponse.self)
        self.token = reply.token
        return reply.user
    }

    /// Asks for an account (when the server allows sign-up); a message to `email` confirms it.
    public func signUp(email: String, name: String?, password: String) async throws {
        struct Body: Encodable {
            let email: String
            let name: String?
            let password: String
        }
        try await callIgnoringReply(.signUp, json: Body(email: email, name: name, password: password))
    }

    /// Confirms a sign-up's address with the token of its message's link.
    public func verifySignUp(token: String) async throws {
        struct Body: Encodable { let token: String }
        try await callIgnoringReply(.verifySignUp, json: Body(token: token))
    }

    /// Sign-ups waiting for approval (admins only).
    public func signUps() async throws -> [SignUpRequest] {
        try await call(.signUps)
    }

    public func approveSignUp(id: String) async throws -> User {
        try await call(.approveSignUp, ["id": id])
    }

    public func declineSignUp(id: String) async throws {
        try await callIgnoringReply(.declineSignUp, ["id": id])
    }

    /// Asks for a password reset link; the answer is the same whether the address has an account.
    public func requestPasswordReset(email: String) async throws {
        struct Body: Encodable { let email: String }
        try await callIgnoringReply(.requestPasswordReset, json: Body(email: email))
    }

    /// Sets a new password with the token of a reset link; every sign-in of the account ends.
    public func completePasswordReset(token: String, password: String) async throws {
        struct Body: Encodable {
            let token: String
            let password: String
        }
        try await callIgnoringReply(.completePasswordReset, json: Body(token: token, password: password))
    }

    /// The audit log, newest first (admins only); pass a page's `before` for the next.
    public func audit(before: Int? = nil, limit: Int? = nil) async throws -> AuditPage {
        try await call(.audit, query: ["before": before.map(String.init), "limit": limit.map(String.init)])
    }

    /// Changes an account's role (admins only); the last admin stays one.
    public func setRole(userId: String, _ role: String) async throws -> User {
        struct Body: Encodable { let role: String }
        return try await call(.updateUser, ["id": userId], json: Body(role: role))
    }
}
