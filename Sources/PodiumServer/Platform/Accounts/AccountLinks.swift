import Foundation
import HTTPTypes
import Hummingbird
import PodiumStore
import PodiumWire

/// What invitations, sign-ups and password resets share: one-time links (a random token in the
/// link's fragment, only its SHA-256 stored), their messages, and how they are delivered.
struct AccountLinks: Sendable {
    let store: any AccountStore
    let users: any UserStore
    let accounts: Accounts
    let mailer: Mailer
    let mail: AccountMail
    let audit: AuditLog
    /// The address people use (`--public-url`); the links in messages start with it. Without
    /// it, with the address the request came to.
    let publicURL: String?
    let invitationLifetime: TimeInterval
    let verificationLifetime: TimeInterval
    let resetLifetime: TimeInterval
    let now: @Sendable () -> Date

    /// The page and its fragment: `https://podium.example.org/invitation#token=…`. In the
    /// fragment, the token never reaches a server's log or another site's Referer.
    func link(_ page: String, token: String, request: Request) -> String {
        base(request) + "/" + page + "#token=" + token
    }

    func base(_ request: Request) -> String {
        if let publicURL, !publicURL.isEmpty {
            return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        }
        let host = request.head.authority ?? "localhost"
        let https = request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
        return (https ? "https://" : "http://") + host
    }

    /// The catalogue's language for a request's `language` (a page's), else the server's default.
    func language(_ requested: String?) -> String {
        mail.catalog.language(requested)
    }

    /// The language `user` reads (the page they last signed in from), else the server's default.
    func language(of user: UserRecord) async throws -> String {
        language(try await store.userLanguage(userId: user.id))
    }

    /// A new token and its hash.
    static func newToken() -> (token: String, hash: String) {
        let token = Accounts.randomToken()
        return (token, Accounts.tokenHash(token))
    }

    /// Sends `message` for `link` in the background and records how it fared on the link; without
    /// a relay, marks the link `manual` (the admin passes it on).
    func deliver(_ message: MailMessage, for linkId: String) async throws {
        guard mailer.isConfigured else {
            try await store.setAccountLinkDelivery(id: linkId, .manual, error: nil)
            return
        }
        let store = self.store
        mailer.send(message) { failure in
            try? await store.setAccountLinkDelivery(id: linkId, failure == nil ? .sent : .failed, error: failure)
        }
    }

    /// The link of `token` if it is of `kind`, in `status` and not expired; else `410 link_invalid`
    /// (the same answer whether it never existed, was used or ran out).
    func valid(_ token: String, kind: AccountLinkRecord.Kind, status: AccountLinkRecord.Status = .pending) async throws
        -> AccountLinkRecord
    {
        guard token.count == 64, let link = try await store.accountLink(tokenHash: Accounts.tokenHash(token)),
            link.kind == kind, link.status == status, link.expiresAt > now()
        else { throw Self.invalid }
        return link
    }

    static let invalid = APIError(
        .gone, code: "link_invalid", message: "This link has expired or has been used. Ask for a new one.")

    /// An address as accounts keep it; `400` unless it looks like one.
    static func email(_ text: String) throws -> String {
        let email = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard email.count <= 200, email.contains("@"), !email.contains(" "), !email.hasPrefix("@"), !email.hasSuffix("@"),
            !email.contains(where: { $0.isNewline || $0 == "<" || $0 == ">" || $0 == "," })
        else { throw APIError(.badRequest, code: "bad_email", message: "Enter an email address.") }
        return email
    }

    static func password(_ text: String) throws -> String {
        guard text.count >= 8, text.count <= 200 else {
            throw APIError(.badRequest, code: "weak_password", message: "A password has 8 to 200 characters.")
        }
        return text
    }

    static func name(_ text: String, or email: String) -> String {
        let name = DeckController.cleanTitle(text)
        return name.isEmpty ? email : name
    }

    static func emailTaken() -> APIError {
        APIError(.conflict, code: "email_taken", message: "An account has this address already.")
    }

    /// An invitation as the API shows it, with the language its message is written in.
    func invitation(_ link: AccountLinkRecord, link url: String? = nil) -> Invitation {
        Invitation(
            id: link.id, email: link.email, role: link.role.rawValue, delivery: link.delivery.rawValue,
            deliveryError: link.deliveryError, createdAt: link.createdAt, expiresAt: link.expiresAt, link: url,
            language: language(link.language))
    }
}

/// The messages, in their reader's language: the texts are the `mail` catalogue's
/// (``MailCatalog``, `Public/locales/<language>/mail.json`), the pages' own catalogues' files.
struct AccountMail: Sendable {
    let catalog: MailCatalog

    /// `7 days`, `24 hours`, `1 hour` in `language`.
    func lifetime(_ lifetime: TimeInterval, _ language: String) -> String {
        let days = Int((lifetime / 86400).rounded())
        if days >= 1 { return catalog.text("mail.days", language, count: days) }
        return catalog.text("mail.hours", language, count: max(1, Int((lifetime / 3600).rounded())))
    }

    /// A message of paragraphs (a link is a paragraph of its own, so no client breaks it).
    private func message(to email: String, _ language: String, subject: String, _ paragraphs: [String]) -> MailMessage {
        MailMessage(
            to: email, subject: catalog.text(subject, language),
            text: ([catalog.text("mail.hello", language)] + paragraphs).joined(separator: "\n\n"), language: language)
    }

    func invitation(
        to email: String, by inviter: String, role: UserRecord.Role, link: String, lifetime: TimeInterval, language: String
    ) -> MailMessage {
        let body = role == .admin ? "mail.invitation.body-admin" : "mail.invitation.body"
        return message(
            to: email, language, subject: "mail.invitation.subject",
            [
                catalog.text(body, language, ["inviter": inviter]), link,
                catalog.text("mail.link-once", language, ["lifetime": self.lifetime(lifetime, language)]),
            ])
    }

    func verifySignUp(to email: String, link: String, lifetime: TimeInterval, language: String) -> MailMessage {
        message(
            to: email, language, subject: "mail.sign-up.subject",
            [
                catalog.text("mail.sign-up.body", language), link, catalog.text("mail.sign-up.next", language),
                catalog.text("mail.link-once", language, ["lifetime": self.lifetime(lifetime, language)]) + " "
                    + catalog.text("mail.not-you", language),
            ])
    }

    func alreadyAnAccount(to email: String, signIn: String, language: String) -> MailMessage {
        message(
            to: email, language, subject: "mail.existing.subject",
            [catalog.text("mail.existing.body", language), signIn, catalog.text("mail.not-you", language)])
    }

    func signUpWaiting(to email: String, name: String, email asking: String, page: String, language: String) -> MailMessage {
        message(
            to: email, language, subject: "mail.waiting.subject",
            [catalog.text("mail.waiting.body", language, ["name": name, "email": asking]), page])
    }

    func approved(to email: String, signIn: String, language: String) -> MailMessage {
        message(to: email, language, subject: "mail.approved.subject", [catalog.text("mail.approved.body", language), signIn])
    }

    func declined(to email: String, language: String) -> MailMessage {
        message(to: email, language, subject: "mail.declined.subject", [catalog.text("mail.declined.body", language)])
    }

    func passwordReset(to email: String, link: String, lifetime: TimeInterval, language: String) -> MailMessage {
        message(
            to: email, language, subject: "mail.reset.subject",
            [
                catalog.text("mail.reset.body", language), link,
                catalog.text("mail.link-once", language, ["lifetime": self.lifetime(lifetime, language)]) + " "
                    + catalog.text("mail.reset.signs-out", language),
                catalog.text("mail.reset.not-you", language),
            ])
    }
}

extension Invitation: ResponseEncodable {}
extension InvitationPreview: ResponseEncodable {}
extension SignUpRequest: ResponseEncodable {}
