import Foundation
import Hummingbird
import Logging
import PodiumStore
import PodiumWire

/// "Forgot password?": `POST /api/v1/auth/password-reset` answers `202` at once, whatever the
/// address, and in the background sends a one-time link to an account that has it
/// (`/reset-password#token=…`); `POST /api/v1/auth/password-reset/complete` sets the new
/// password and ends every sign-in of the account. A new request withdraws the earlier link.
struct PasswordResetController {
    let links: AccountLinks
    /// Requests per client address (the answer is the same either way; this only keeps the form
    /// from flooding inboxes).
    let asksPerClient: AttemptLimiter
    let logger: Logger

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("auth/password-reset", use: ask)
        group.post("auth/password-reset/complete", use: complete)
    }

    struct AskBody: Decodable {
        let email: String
        /// The page's language: the message is written in it.
        let language: String?
    }

    @Sendable func ask(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decode(as: AskBody.self, context: context)
        let email = Accounts.accountKey(body.email)
        let now = links.now()
        let wait = asksPerClient.retryAfter([context.clientKey], now: now)
        if wait > 0 { throw TooManyAttempts(retryAfter: wait) }
        asksPerClient.recordFailure([context.clientKey], now: now)
        let url = links.base(request) + "/reset-password"
        let language = AuthController.languageTag(body.language)
        let links = self.links
        let logger = self.logger
        // After answering: the time the answer takes says nothing about the address.
        Task {
            do {
                try await Self.send(email: email, pageURL: url, language: language, links: links)
            } catch {
                logger.error("password reset not sent", metadata: ["error": "\(error)"])
            }
        }
        return SignUpController.accepted("check_email")
    }

    /// In the page's `language`; without one (a request by a script), the account's.
    static func send(email: String, pageURL: String, language requested: String?, links: AccountLinks) async throws {
        guard links.mailer.isConfigured, email.contains("@"), let user = try await links.users.user(email: email) else {
            return
        }
        try await links.store.revokeAccountLinks(kind: .passwordReset, email: email)
        var language = requested
        if language == nil { language = try await links.store.userLanguage(userId: user.id) }
        let written = links.language(language)
        let (token, hash) = AccountLinks.newToken()
        let now = links.now()
        let record = AccountLinkRecord(
            id: IDs.make("pr"), kind: .passwordReset, tokenHash: hash, email: email, role: user.role, userId: user.id,
            expiresAt: now + links.resetLifetime, createdAt: now, language: written)
        try await links.store.insertAccountLink(record)
        try await links.deliver(
            links.mail.passwordReset(
                to: email, link: pageURL + "#token=" + token, lifetime: links.resetLifetime, language: written),
            for: record.id)
    }

    struct CompleteBody: Decodable {
        let token: String
        let password: String
    }

    @Sendable func complete(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let body = try await request.decode(as: CompleteBody.self, context: context)
        let password = try AccountLinks.password(body.password)
        let link = try await links.valid(body.token, kind: .passwordReset)
        guard let userId = link.userId else { throw AccountLinks.invalid }
        let hash = try await links.accounts.hash(password)
        guard try await links.store.moveAccountLink(id: link.id, from: .pending, to: .used, now: links.now()) else {
            throw AccountLinks.invalid
        }
        // Ends every sign-in of the account.
        try await links.users.setPasswordHash(userId: userId, hash)
        return .noContent
    }
}
