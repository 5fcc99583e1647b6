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

    static func invitation(_ link: AccountLinkRecord, link url: String? = nil) -> Invitation {
        Invitation(
            id: link.id, email: link.email, role: link.role.rawValue, delivery: link.delivery.rawValue,
            deliveryError: link.deliveryError, createdAt: link.createdAt, expiresAt: link.expiresAt, link: url)
    }
}

/// The messages (English; the pages they open speak the reader's language).
enum AccountMail {
    static func days(_ lifetime: TimeInterval) -> String {
        let days = Int((lifetime / 86400).rounded())
        if days >= 1 { return days == 1 ? "1 day" : "\(days) days" }
        let hours = max(1, Int((lifetime / 3600).rounded()))
        return hours == 1 ? "1 hour" : "\(hours) hours"
    }

    static func invitation(to email: String, by inviter: String, link: String, lifetime: TimeInterval) -> MailMessage {
        MailMessage(
            to: email, subject: "You are invited to Podium",
            text: """
                Hello,

                \(inviter) invites you to present with Podium. Open this link to choose your name and password:

                \(link)

                The link works once, for \(days(lifetime)).
                """)
    }

    static func verifySignUp(to email: String, link: String, lifetime: TimeInterval) -> MailMessage {
        MailMessage(
            to: email, subject: "Confirm your address for Podium",
            text: """
                Hello,

                Someone (we hope you) asked for a Podium account with this address. Open this link to confirm it:

                \(link)

                Then an administrator looks at your request; you get a message when it is approved.
                The link works once, for \(days(lifetime)). If you did not ask, ignore this message.
                """)
    }

    static func alreadyAnAccount(to email: String, signIn: String) -> MailMessage {
        MailMessage(
            to: email, subject: "Your Podium account",
            text: """
                Hello,

                Someone asked for a Podium account with this address, but it has one already. Sign in here
                (or choose "Forgot password?" there):

                \(signIn)

                If you did not ask, ignore this message.
                """)
    }

    static func signUpWaiting(to email: String, name: String, email asking: String, page: String) -> MailMessage {
        MailMessage(
            to: email, subject: "A Podium account waits for your approval",
            text: """
                Hello,

                \(name) (\(asking)) asked for a presenter account and confirmed the address. Approve or decline it here:

                \(page)
                """)
    }

    static func approved(to email: String, signIn: String) -> MailMessage {
        MailMessage(
            to: email, subject: "Your Podium account is ready",
            text: """
                Hello,

                An administrator approved your Podium account. Sign in with your address and the password you chose:

                \(signIn)
                """)
    }

    static func declined(to email: String) -> MailMessage {
        MailMessage(
            to: email, subject: "Your request for a Podium account",
            text: """
                Hello,

                An administrator declined your request for a Podium account. Ask them if you think this is a mistake.
                """)
    }

    static func passwordReset(to email: String, link: String, lifetime: TimeInterval) -> MailMessage {
        MailMessage(
            to: email, subject: "Reset your Podium password",
            text: """
                Hello,

                Someone (we hope you) asked to reset the password of your Podium account. Open this link to choose a new one:

                \(link)

                The link works once, for \(days(lifetime)). Choosing a new password signs you out everywhere.
                If you did not ask, ignore this message: your password stays as it is.
                """)
    }
}

extension Invitation: ResponseEncodable {}
extension InvitationPreview: ResponseEncodable {}
extension SignUpRequest: ResponseEncodable {}
