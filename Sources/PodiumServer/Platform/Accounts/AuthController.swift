import Foundation
import Hummingbird
import PodiumStore
import PodiumWire

/// Sign in, sign out, who am I.
struct AuthController {
    let accounts: Accounts
    let tokenLifetime: TimeInterval
    /// Wrong passwords per client address and per account (guessing is slow from one place, and
    /// slow against one account from many), and per device cookie (a browser that signed in
    /// before is never blocked by others' guesses): see ``SignInLimits``.
    let limits: SignInLimits
    /// Records when a sign-in lock-out begins.
    var audit: AuditLog? = nil
    /// Where the language of the page someone signs in from is kept (the messages they get later
    /// are written in it).
    var languages: (any AccountStore)? = nil
    let now: @Sendable () -> Date
    /// Called after a sign-in with the browser's anonymous viewer id (the `podium_viewer`
    /// cookie), if it sent one: what the person kept anonymously (channel favourites and
    /// positions) moves to their account.
    var signedIn: @Sendable (_ viewerId: String?, _ user: UserRecord) async throws -> Void = { _, _ in }

    struct LoginRequest: Decodable {
        /// An email address, or the user name `admin` of the first admin account.
        let email: String
        let password: String
        /// The sign-in page's language (`de`, `zh-Hans`).
        let language: String?
    }

    /// A language tag as sent by a page (`de`, `zh-Hans`), or nil for anything else.
    static func languageTag(_ text: String?) -> String? {
        guard let text, !text.isEmpty, text.count <= 35,
            text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { return nil }
        return text
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("auth/login", use: login)
        group.post("auth/logout", use: logout)
        group.get("me") { _, context -> UserResponse in UserResponse(try context.requireUser()) }
    }

    @Sendable func login(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decode(as: LoginRequest.self, context: context)
        let account = Accounts.accountKey(body.email)
        let keys = limits.keys(
            account: account, address: context.clientKey, cookie: request.cookies[SignInLimits.cookieName]?.value)
        let wait = limits.wait(keys, now: now())
        if wait > 0 { throw TooManyAttempts(retryAfter: wait) }
        guard let (user, token) = try await accounts.signIn(email: body.email, password: body.password) else {
            if limits.recordFailure(keys, now: now()) {
                try await audit?.record(
                    "sign_in.locked_out", by: nil, target: account,
                    detail: keys.trustedDevice ? "device" : "address or account", address: context.clientKey)
            }
            throw APIError(.unauthorized, code: "bad_credentials", message: "Wrong email or password.")
        }
        if let language = Self.languageTag(body.language) {
            try await languages?.setUserLanguage(userId: user.id, language)
        }
        var response = try await signInResponse(user, token: token, request: request, context: context)
        response.setCookie(limits.deviceCookie(account: account))
        return response
    }

    /// Signs `user` in: a new token, unless given, in the answer and in the cookie.
    func signInResponse(_ user: UserRecord, token given: String? = nil, request: Request, context: AppRequestContext)
        async throws -> Response
    {
        let token: String
        if let given { token = given } else { token = try await accounts.newToken(for: user) }
        let viewerId = request.cookies[ViewerCookie.name].map(\.value).flatMap(ViewerCookie.validate)
        try await signedIn(viewerId, user)
        var response = try LoginResponse(token: token, user: UserResponse(user)).response(from: request, context: context)
        response.setCookie(
            Cookie(
                name: AuthMiddleware.cookieName, value: token, maxAge: Int(tokenLifetime), path: "/", httpOnly: true,
                sameSite: .lax))
        return response
    }

    @Sendable func logout(_ request: Request, context: AppRequestContext) async throws -> Response {
        let bearer = request.headers[.authorization].flatMap { header in
            header.lowercased().hasPrefix("bearer ") ? String(header.dropFirst(7)) : nil
        }
        if let token = bearer ?? request.cookies[AuthMiddleware.cookieName]?.value {
            try await accounts.signOut(token: token)
        }
        var response = Response(status: .noContent)
        response.setCookie(
            Cookie(name: AuthMiddleware.cookieName, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .lax))
        return response
    }
}

extension UserResponse: ResponseEncodable {}
extension LoginResponse: ResponseEncodable {}
extension DeckResponse: ResponseEncodable {}
extension FolderResponse: ResponseEncodable {}
extension SessionResponse: ResponseEncodable {}
