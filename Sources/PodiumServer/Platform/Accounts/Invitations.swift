import Foundation
import Hummingbird
import PodiumStore
import PodiumWire

/// Invitations: an admin invites an address (`POST /api/v1/invitations`), the message's link
/// (`/invitation#token=…`) opens a page where the person chooses a name and a password
/// (`POST /api/v1/auth/invitation`), and is signed in. A link works once and expires; pending
/// invitations are listed, sent again (a new link; the old one stops working) and revoked.
struct InvitationController {
    let links: AccountLinks
    let auth: AuthController

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("invitations", use: list)
        group.post("invitations", use: create)
        group.post("invitations/:id/resend", use: resend)
        group.delete("invitations/:id", use: revoke)
        group.get("auth/invitation", use: preview)
        group.post("auth/invitation", use: accept)
    }

    private func requireAdmin(_ context: AppRequestContext) throws -> UserRecord {
        let user = try context.requireUser()
        guard user.role == .admin else { throw APIError.forbidden }
        return user
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> [Invitation] {
        _ = try requireAdmin(context)
        return try await links.store.accountLinks(kind: .invitation, statuses: [.pending]).map { links.invitation($0) }
    }

    struct CreateBody: Decodable {
        let email: String
        let role: UserRecord.Role?
        /// The language of the message (`de`, `zh-Hans`); else the server's default.
        let language: String?
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<Invitation> {
        let admin = try requireAdmin(context)
        let body = try await request.decode(as: CreateBody.self, context: context)
        let email = try AccountLinks.email(body.email)
        guard try await links.users.user(email: email) == nil else { throw AccountLinks.emailTaken() }
        // One pending invitation per address: a new one replaces the old.
        try await links.store.revokeAccountLinks(kind: .invitation, email: email)
        let (token, hash) = AccountLinks.newToken()
        let now = links.now()
        var record = AccountLinkRecord(
            id: IDs.make("inv"), kind: .invitation, tokenHash: hash, email: email, role: body.role ?? .presenter,
            createdBy: admin.id, delivery: links.mailer.isConfigured ? .queued : .manual,
            expiresAt: now + links.invitationLifetime, createdAt: now, language: links.language(body.language))
        try await links.store.insertAccountLink(record)
        try await links.audit.record("user.invited", by: admin, target: email, detail: record.role.rawValue, context: context)
        let url = links.link("invitation", token: token, request: request)
        try await links.deliver(
            links.mail.invitation(
                to: email, by: admin.name, role: record.role, link: url, lifetime: links.invitationLifetime,
                language: links.language(record.language)),
            for: record.id)
        record.delivery = links.mailer.isConfigured ? .queued : .manual
        return EditedResponse(
            status: .created, response: links.invitation(record, link: links.mailer.isConfigured ? nil : url))
    }

    @Sendable func resend(_ request: Request, context: AppRequestContext) async throws -> Invitation {
        let admin = try requireAdmin(context)
        let id = try context.parameters.require("id")
        guard let record = try await links.store.accountLink(id: id), record.kind == .invitation, record.status == .pending
        else { throw APIError.notFound("invitation") }
        let (token, hash) = AccountLinks.newToken()
        let expiresAt = links.now() + links.invitationLifetime
        guard try await links.store.renewAccountLink(id: id, tokenHash: hash, expiresAt: expiresAt) else {
            throw APIError.notFound("invitation")
        }
        try await links.audit.record("invitation.resent", by: admin, target: record.email, context: context)
        let url = links.link("invitation", token: token, request: request)
        // In the language it was first sent in.
        try await links.deliver(
            links.mail.invitation(
                to: record.email, by: admin.name, role: record.role, link: url, lifetime: links.invitationLifetime,
                language: links.language(record.language)),
            for: id)
        let renewed = try await links.store.accountLink(id: id) ?? record
        return links.invitation(renewed, link: links.mailer.isConfigured ? nil : url)
    }

    @Sendable func revoke(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let admin = try requireAdmin(context)
        let id = try context.parameters.require("id")
        guard let record = try await links.store.accountLink(id: id), record.kind == .invitation,
            try await links.store.moveAccountLink(id: id, from: .pending, to: .revoked, now: nil)
        else { throw APIError.notFound("invitation") }
        try await links.audit.record("invitation.revoked", by: admin, target: record.email, context: context)
        return .noContent
    }

    @Sendable func preview(_ request: Request, context: AppRequestContext) async throws -> InvitationPreview {
        let link = try await links.valid(request.uri.queryParameters.get("token") ?? "", kind: .invitation)
        return InvitationPreview(email: link.email, role: link.role.rawValue, expiresAt: link.expiresAt)
    }

    struct AcceptBody: Decodable {
        let token: String
        let name: String?
        let password: String
        /// The page's language, kept as the account's (else the invitation's).
        let language: String?
    }

    /// Makes the account and signs it in (as `POST /api/v1/auth/login` does).
    @Sendable func accept(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decode(as: AcceptBody.self, context: context)
        let password = try AccountLinks.password(body.password)
        let link = try await links.valid(body.token, kind: .invitation)
        guard try await links.users.user(email: link.email) == nil else { throw AccountLinks.emailTaken() }
        let hash = try await links.accounts.hash(password)
        // Once: of two requests with the same link, one moves it.
        guard try await links.store.moveAccountLink(id: link.id, from: .pending, to: .used, now: links.now()) else {
            throw AccountLinks.invalid
        }
        let user = UserRecord(
            id: IDs.make("u"), email: link.email, name: AccountLinks.name(body.name ?? "", or: link.email), role: link.role,
            passwordHash: hash, createdAt: links.now())
        try await links.users.insertUser(user)
        if let language = AuthController.languageTag(body.language) ?? link.language {
            try await links.store.setUserLanguage(userId: user.id, language)
        }
        try await links.audit.record("invitation.accepted", by: user, target: user.email, context: context)
        var response = try await auth.signInResponse(user, request: request, context: context)
        // The browser that made the account is the person's own: its later sign-ins are never
        // blocked by others' wrong guesses (as after a sign-in with the form).
        response.setCookie(auth.limits.deviceCookie(account: Accounts.accountKey(user.email)))
        return response
    }
}
