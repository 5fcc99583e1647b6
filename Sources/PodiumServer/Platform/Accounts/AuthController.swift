import Foundation
import Hummingbird
import PodiumStore
import PodiumWire

/// Sign in, sign out, who am I.
struct AuthController {
    let accounts: Accounts
    let tokenLifetime: TimeInterval
    /// Wrong passwords per client address and per account: guessing is slow from one place,
    /// and slow against one account from many.
    let failuresPerClient: AttemptLimiter
    let failuresPerAccount: AttemptLimiter
    let now: @Sendable () -> Date
    /// Called after a sign-in with the browser's anonymous viewer id (the `podium_viewer`
    /// cookie), if it sent one: what the person kept anonymously (channel favourites and
    /// positions) moves to their account.
    var signedIn: @Sendable (_ viewerId: String?, _ user: UserRecord) async throws -> Void = { _, _ in }

    struct LoginRequest: Decodable {
        /// An email address, or the user name `admin` of the first admin account.
        let email: String
        let password: String
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("auth/login", use: login)
        group.post("auth/logout", use: logout)
        group.get("me") { _, context -> UserResponse in UserResponse(try context.requireUser()) }
    }

    @Sendable func login(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decode(as: LoginRequest.self, context: context)
        let client = [context.clientKey]
        let account = [Accounts.accountKey(body.email)]
        guard failuresPerClient.allows(client, now: now()), failuresPerAccount.allows(account, now: now()) else {
            throw APIError(
                .tooManyRequests, code: "rate_limited", message: "Too many wrong passwords. Wait a minute and try again.")
        }
        guard let (user, token) = try await accounts.signIn(email: body.email, password: body.password) else {
            failuresPerClient.recordFailure(client, now: now())
            failuresPerAccount.recordFailure(account, now: now())
            throw APIError(.unauthorized, code: "bad_credentials", message: "Wrong email or password.")
        }
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
