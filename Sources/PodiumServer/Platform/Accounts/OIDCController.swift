import Crypto
import Foundation
import Hummingbird
import Logging
import PodiumStore
import PodiumWire

/// Single sign-on routes (the button on the sign-in page: ``AccountsFeature``'s options): the start of
/// a sign-in at the provider (`GET /api/v1/auth/oidc/start`) and its return
/// (`GET /api/v1/auth/oidc/callback`).
///
/// The sign-in under way (state, nonce, PKCE verifier, where to go after) is kept in the browser
/// in a short-lived cookie, signed with a key every node derives from the store's shared stream
/// key: any node can finish a sign-in another began. The callback answers with redirects only:
/// on to the page asked for, signed in, or back to the sign-in page with `?sso_error=<code>`,
/// which the page explains in the person's language.
struct OIDCController {
    let provider: OIDCProvider?
    let accounts: Accounts
    let identities: any ExternalIdentityStore
    let users: any UserStore
    let publicURL: String?
    let tokenLifetime: TimeInterval
    /// Signs the sign-in cookie.
    let stateKey: [UInt8]
    let logger: Logger
    let now: @Sendable () -> Date
    /// Records the accounts single sign-on makes and the roles and memberships the provider's
    /// groups change (by the server: no admin did it, the school's directory did).
    var audit: AuditLog? = nil
    /// Where the sign-ins of someone the provider no longer allows are ended.
    var accountStore: (any AccountStore)? = nil
    /// As the password sign-in: what the browser kept anonymously becomes the person's.
    var signedIn: @Sendable (_ viewerId: String?, _ user: UserRecord) async throws -> Void = { _, _ in }

    static let cookieName = "podium_oidc"
    static let cookiePath = "/api/v1/auth/oidc"
    /// How long a sign-in at the provider may take.
    static let stateLifetime: TimeInterval = 600

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("auth/oidc/start", use: start)
        group.get("auth/oidc/callback", use: callback)
    }

    /// The cookie's contents.
    struct Pending: Codable {
        let state: String
        let nonce: String
        let verifier: String
        let next: String
        let expires: Double
        /// The sign-in page's language (`lang=`), kept as the account's for the mail it is sent.
        var language: String? = nil
    }

    @Sendable func start(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let provider else { throw APIError.notFound("single sign-on") }
        let pending = Pending(
            state: Self.random(), nonce: Self.random(), verifier: Self.random() + Self.random(),
            next: Self.safeNext(request.uri.queryParameters.get("next")),
            expires: now().addingTimeInterval(Self.stateLifetime).timeIntervalSince1970,
            language: AuthController.languageTag(request.uri.queryParameters.get("lang")))
        let location: String
        do {
            location = try await provider.authorizationURL(
                redirectURI: redirectURI(request), state: pending.state, nonce: pending.nonce, verifier: pending.verifier)
        } catch {
            logger.error("single sign-on: the provider could not be asked", metadata: ["error": "\(error)"])
            return Self.redirect(to: "/login?sso_error=failed")
        }
        var response = Self.redirect(to: location)
        response.setCookie(
            Cookie(
                name: Self.cookieName, value: seal(pending), maxAge: Int(Self.stateLifetime), path: Self.cookiePath,
                httpOnly: true, sameSite: .lax))
        return response
    }

    @Sendable func callback(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let provider else { throw APIError.notFound("single sign-on") }
        let query = request.uri.queryParameters
        let pending = request.cookies[Self.cookieName].flatMap { open($0.value) }
        do {
            guard let pending, let state = query.get("state"), constantTimeEqual(state, pending.state) else {
                throw OIDCFailure(code: .state, description: "no sign-in under way with this state")
            }
            if let error = query.get("error") {
                throw OIDCFailure(
                    code: error == "access_denied" ? .denied : .failed,
                    description: "the provider said \(error): \(query.get("error_description") ?? "")")
            }
            guard let code = query.get("code"), !code.isEmpty else {
                throw OIDCFailure(code: .failed, description: "no code in the callback")
            }
            let identity = try await provider.redeem(
                code: code, redirectURI: redirectURI(request), verifier: pending.verifier, nonce: pending.nonce)
            let issuer = try await provider.discovered().issuer
            let user = try await account(for: identity, issuer: issuer, settings: provider.settings)
            if let language = pending.language { try await accountStore?.setUserLanguage(userId: user.id, language) }
            let token = Accounts.randomToken()
            try await users.insertToken(hash: Accounts.tokenHash(token), userId: user.id, expiresAt: now() + tokenLifetime)
            try await signedIn(context.viewerId, user)
            logger.info("single sign-on", metadata: ["user": "\(user.id)", "role": "\(user.role.rawValue)"])
            var response = Self.redirect(to: pending.next)
            response.setCookie(
                Cookie(
                    name: AuthMiddleware.cookieName, value: token, maxAge: Int(tokenLifetime), path: "/", httpOnly: true,
                    sameSite: .lax))
            response.setCookie(Self.clearedCookie)
            return response
        } catch let failure as OIDCFailure {
            logger.notice(
                "single sign-on refused", metadata: ["code": "\(failure.code.rawValue)", "why": "\(failure.description)"])
            var response = Self.redirect(to: "/login?sso_error=\(failure.code.rawValue)")
            response.setCookie(Self.clearedCookie)
            return response
        }
    }

    /// The account a proven identity signs in as, its role and membership set from its groups now.
    func account(for identity: OIDCProvider.Identity, issuer: String, settings: OIDCSettings) async throws -> UserRecord {
        var user: UserRecord?
        if let linked = try await identities.externalIdentity(issuer: issuer, subject: identity.subject) {
            user = try await users.user(id: linked.userId)
        }
        var isNewLink = user == nil
        if user == nil, let email = identity.email, let local = try await users.user(email: email) {
            guard settings.linkVerifiedEmail, identity.emailVerified else {
                throw OIDCFailure(
                    code: .emailTaken, description: "a local account has \(email), which the provider does not say is verified")
            }
            user = local
        }
        guard let grant = settings.grant(groups: identity.groups, current: user.map { ($0.role, $0.isMember) }) else {
            // Refused before an account is made: nobody outside the allowed groups gets one. An
            // account linked before (someone who left the school) loses what the groups gave.
            if let user, !isNewLink { try await withdraw(user, settings: settings) }
            throw OIDCFailure(code: .notAllowed, description: "\(identity.subject) is in none of the allowed groups")
        }
        if user == nil {
            let email = identity.email ?? "\(identity.subject.lowercased().filter { $0.isLetter || $0.isNumber })@sso.invalid"
            let made = UserRecord(
                id: IDs.make("u"), email: email, name: String((identity.name ?? identity.email ?? identity.subject).prefix(200)),
                role: grant.role,
                // Never a password that works: a random one nobody knows (an admin may set one).
                passwordHash: try await accounts.hash(Accounts.randomToken()), createdAt: now(), isMember: grant.isMember)
            try await users.insertUser(made)
            try await audit?.record("sso.account_created", by: nil, target: made.email, detail: made.role.rawValue)
            user = made
        }
        guard var user else { throw OIDCFailure(code: .failed, description: "no account") }
        if isNewLink {
            let linked = try await identities.insertExternalIdentity(
                ExternalIdentityRecord(
                    issuer: issuer, subject: identity.subject, userId: user.id, email: identity.email, createdAt: now(),
                    lastSignInAt: now()))
            // Another sign-in of the same person linked first: go on with its account.
            if !linked, let winner = try await identities.externalIdentity(issuer: issuer, subject: identity.subject),
                let account = try await users.user(id: winner.userId)
            {
                user = account
                isNewLink = false
            }
        } else {
            try await identities.touchExternalIdentity(
                issuer: issuer, subject: identity.subject, email: identity.email, at: now())
        }
        if user.role != grant.role || user.isMember != grant.isMember {
            try await identities.setRoleAndMembership(userId: user.id, role: grant.role, isMember: grant.isMember)
            if user.role != grant.role {
                try await audit?.record("sso.role_changed", by: nil, target: user.email, detail: grant.role.rawValue)
            }
            if user.isMember != grant.isMember {
                try await audit?.record(
                    "sso.membership_changed", by: nil, target: user.email,
                    detail: grant.isMember ? "member" : "not a member")
            }
            user.role = grant.role
            user.isMember = grant.isMember
        }
        return user
    }

    /// Someone the provider's groups no longer allow: out of the channel's members, no longer an
    /// admin when admin groups say who is (unless the last admin: nobody could run the server),
    /// and every sign-in of the account ended: what a school's directory takes away is gone at
    /// once, not when an old sign-in expires.
    func withdraw(_ user: UserRecord, settings: OIDCSettings) async throws {
        var role = user.role
        if role == .admin, !settings.adminGroups.isEmpty, try await (accountStore?.adminCount() ?? 0) > 1 {
            role = .presenter
        }
        if role != user.role || user.isMember {
            try await identities.setRoleAndMembership(userId: user.id, role: role, isMember: false)
        }
        if role != user.role { try await audit?.record("sso.role_changed", by: nil, target: user.email, detail: role.rawValue) }
        if user.isMember {
            try await audit?.record("sso.membership_changed", by: nil, target: user.email, detail: "not a member")
        }
        try await accountStore?.endSignIns(userId: user.id)
    }

    /// `<public URL>/api/v1/auth/oidc/callback`; without `--public-url`, from the request's Host.
    func redirectURI(_ request: Request) -> String {
        let base: String
        if let publicURL {
            base = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        } else {
            // Behind a proxy or on HTTPS, `--public-url` says the scheme people use.
            let scheme = request.head.scheme ?? "http"
            base = "\(scheme)://\(request.head.authority ?? "localhost")"
        }
        return base + "/api/v1/auth/oidc/callback"
    }

    /// Only a path of this site: never an open redirect.
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.hasPrefix("/\\"), next.count <= 500,
            !next.contains(where: { $0.isNewline })
        else { return "/library" }
        return next
    }

    static func redirect(to location: String) -> Response {
        Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
    }

    static let clearedCookie = Cookie(name: cookieName, value: "", maxAge: 0, path: cookiePath, httpOnly: true, sameSite: .lax)

    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The cookie's value: the pending sign-in's JSON, base64url, then its HMAC.
    func seal(_ pending: Pending) -> String {
        let body = Base64URL.encode((try? JSONEncoder().encode(pending)) ?? Data())
        return body + "." + mac(body)
    }

    /// The pending sign-in of a cookie this server made, if it has not expired.
    func open(_ value: String) -> Pending? {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, constantTimeEqual(mac(String(parts[0])), String(parts[1])),
            let json = Base64URL.decode(parts[0]), let pending = try? JSONDecoder().decode(Pending.self, from: json),
            pending.expires >= now().timeIntervalSince1970
        else { return nil }
        return pending
    }

    private func mac(_ body: String) -> String {
        Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data(body.utf8), using: SymmetricKey(data: stateKey))))
    }

    /// The cookie's key, derived from a secret every node shares (the stream key).
    static func stateKey(from secret: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Data("podium oidc state".utf8), using: SymmetricKey(data: secret)))
    }
}
