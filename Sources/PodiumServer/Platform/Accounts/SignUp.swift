import Foundation
import Hummingbird
import PodiumStore
import PodiumWire

/// Self sign-up, off unless `--allow-sign-up` (and a mail relay): a visitor asks for an account
/// (`POST /api/v1/auth/sign-up`), confirms the address by the message's link
/// (`POST /api/v1/auth/sign-up/verify`), then waits for an admin, who approves or declines it
/// (`/api/v1/sign-ups`); the person is told by email. The answer to asking never says whether
/// the address has an account (that person gets a message saying so instead).
struct SignUpController {
    let links: AccountLinks
    let allowSignUp: Bool
    /// Asks per client address: a form that sends mail must not be a way to flood inboxes.
    let asksPerClient: AttemptLimiter

    var isOpen: Bool { allowSignUp && links.mailer.isConfigured }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("auth/sign-up", use: ask)
        group.post("auth/sign-up/verify", use: verify)
        group.get("sign-ups", use: list)
        group.post("sign-ups/:id/approve", use: approve)
        group.post("sign-ups/:id/decline", use: decline)
    }

    struct AskBody: Decodable {
        let email: String
        let name: String?
        let password: String
        /// The page's language: the messages about the request are written in it.
        let language: String?
    }

    static let closed = APIError(.notFound, code: "sign_up_closed", message: "This server makes accounts by invitation only.")

    @Sendable func ask(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard isOpen else { throw Self.closed }
        let body = try await request.decode(as: AskBody.self, context: context)
        let email = try AccountLinks.email(body.email)
        let password = try AccountLinks.password(body.password)
        let now = links.now()
        let wait = asksPerClient.retryAfter([context.clientKey], now: now)
        if wait > 0 { throw TooManyAttempts(retryAfter: wait) }
        asksPerClient.recordFailure([context.clientKey], now: now)
        // Hashed either way: the answer takes as long whether the address has an account or not.
        let passwordHash = try await links.accounts.hash(password)
        let language = links.language(body.language)
        if try await links.users.user(email: email) != nil {
            links.mailer.send(
                links.mail.alreadyAnAccount(to: email, signIn: links.base(request) + "/login", language: language))
        } else {
            try await links.store.revokeAccountLinks(kind: .signUp, email: email)
            let (token, hash) = AccountLinks.newToken()
            let record = AccountLinkRecord(
                id: IDs.make("su"), kind: .signUp, tokenHash: hash, email: email, role: .presenter,
                name: AccountLinks.name(body.name ?? "", or: email), passwordHash: passwordHash,
                expiresAt: now + links.verificationLifetime, createdAt: now, language: language)
            try await links.store.insertAccountLink(record)
            try await links.deliver(
                links.mail.verifySignUp(
                    to: email, link: links.link("sign-up", token: token, request: request),
                    lifetime: links.verificationLifetime, language: language),
                for: record.id)
        }
        return Self.accepted("check_email")
    }

    struct TokenBody: Decodable {
        let token: String
    }

    @Sendable func verify(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decode(as: TokenBody.self, context: context)
        let link = try await links.valid(body.token, kind: .signUp)
        guard try await links.store.moveAccountLink(id: link.id, from: .pending, to: .verified, now: links.now()) else {
            throw AccountLinks.invalid
        }
        // The admins who have an address are told that someone waits for them, each in their
        // language (the page they last signed in from), else the server's.
        let page = links.base(request) + "/channel/admin#accounts"
        for admin in try await links.users.users() where admin.role == .admin && admin.email.contains("@") {
            links.mailer.send(
                links.mail.signUpWaiting(
                    to: admin.email, name: link.name ?? link.email, email: link.email, page: page,
                    language: try await links.language(of: admin)))
        }
        return Self.accepted("awaiting_approval", status: .ok)
    }

    static func accepted(_ state: String, status: HTTPResponse.Status = .accepted) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: #"{"status":"\#(state)"}"#)))
    }

    private func requireAdmin(_ context: AppRequestContext) throws -> UserRecord {
        let user = try context.requireUser()
        guard user.role == .admin else { throw APIError.forbidden }
        return user
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> [SignUpRequest] {
        _ = try requireAdmin(context)
        return try await links.store.accountLinks(kind: .signUp, statuses: [.verified]).map {
            SignUpRequest(id: $0.id, email: $0.email, name: $0.name ?? $0.email, createdAt: $0.createdAt)
        }
    }

    private func waiting(_ context: AppRequestContext) async throws -> AccountLinkRecord {
        guard let link = try await links.store.accountLink(id: try context.parameters.require("id")), link.kind == .signUp,
            link.status == .verified
        else { throw APIError.notFound("sign-up request") }
        return link
    }

    @Sendable func approve(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<UserResponse> {
        let admin = try requireAdmin(context)
        let link = try await waiting(context)
        guard try await links.users.user(email: link.email) == nil else { throw AccountLinks.emailTaken() }
        guard let hash = link.passwordHash,
            try await links.store.moveAccountLink(id: link.id, from: .verified, to: .used, now: nil)
        else { throw APIError.notFound("sign-up request") }
        let user = UserRecord(
            id: IDs.make("u"), email: link.email, name: link.name ?? link.email, role: .presenter, passwordHash: hash,
            createdAt: links.now())
        try await links.users.insertUser(user)
        if let language = link.language { try await links.store.setUserLanguage(userId: user.id, language) }
        try await links.audit.record("user.approved", by: admin, target: user.email, context: context)
        links.mailer.send(
            links.mail.approved(
                to: user.email, signIn: links.base(request) + "/login", language: links.language(link.language)))
        return EditedResponse(status: .created, response: UserResponse(user))
    }

    @Sendable func decline(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let admin = try requireAdmin(context)
        let link = try await waiting(context)
        guard try await links.store.moveAccountLink(id: link.id, from: .verified, to: .declined, now: nil) else {
            throw APIError.notFound("sign-up request")
        }
        try await links.audit.record("sign_up.declined", by: admin, target: link.email, context: context)
        links.mailer.send(links.mail.declined(to: link.email, language: links.language(link.language)))
        return .noContent
    }
}

/// `429 too_many_attempts` with `retryAfter` (whole seconds) in the body and `Retry-After`.
struct TooManyAttempts: PodiumErrorBody, Sendable {
    let retryAfter: TimeInterval
    var status: HTTPResponse.Status { .tooManyRequests }
    var seconds: Int { max(1, Int(retryAfter.rounded(.up))) }

    private struct Body: Encodable {
        struct Detail: Encodable {
            let code: String
            let message: String
            let retryAfter: Int
        }
        let error: Detail
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try JSONEncoder().encode(
            Body(
                error: .init(
                    code: "too_many_attempts", message: "Too many attempts. Try again in \(seconds) s.",
                    retryAfter: seconds)))
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.retryAfter] = String(seconds)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
