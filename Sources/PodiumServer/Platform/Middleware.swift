import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Resolves the signed-in user from `Authorization: Bearer …` or the `podium_auth` cookie, and
/// refuses cookie-authenticated writes without the `X-Podium-Request` header (CSRF: a cross-site
/// form cannot set a custom header).
struct AuthMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let accounts: Accounts
    /// Proxies whose `X-Forwarded-For` names the client (see ``AppRequestContext/clientKey``).
    var trustedProxies: Set<String> = []

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    static let cookieName = "podium_auth"
    static let csrfHeader = HTTPField.Name("X-Podium-Request")!
    /// Forms another site posts by design, which prove themselves and use no account of the
    /// cookie: LTI's login initiation and its signed launch (a platform on the same site would
    /// send the cookie).
    static let crossSitePosts: Set<String> = ["/api/v1/lti/login", "/api/v1/lti/launch"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        var context = context
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") {
            let token = String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
            context.user = try await accounts.user(token: token)
        } else if let token = request.cookies[Self.cookieName]?.value, !token.isEmpty {
            context.user = try await accounts.user(token: token)
            context.authenticatedByCookie = context.user != nil
        }
        if context.authenticatedByCookie, request.method != .get, request.method != .head,
            request.headers[Self.csrfHeader] == nil, !Self.crossSitePosts.contains(request.uri.path)
        {
            throw APIError.csrf
        }
        context.viewerId = request.cookies[ViewerCookie.name].map(\.value).flatMap(ViewerCookie.validate)
        context.forwardedFor = ForwardedFor.client(
            peer: context.remoteAddress?.ipAddress, trustedProxies: trustedProxies,
            values: request.headers[values: Self.forwardedFor])
        return try await next(request, context)
    }
}

/// The anonymous identity of a viewer's browser: random, HttpOnly, kept for a year, so one person
/// stays one person across reconnects and page loads.
enum ViewerCookie {
    static let name = "podium_viewer"

    static func validate(_ value: String) -> String? {
        value.count == 26 && value.hasPrefix("v_") && value.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } ? value : nil
    }

    static func issue() -> Cookie {
        Cookie(
            name: name, value: IDs.make("v", length: 24), maxAge: 365 * 24 * 3600, path: "/", httpOnly: true,
            sameSite: .lax)
    }
}

/// Security headers on every response: a strict Content-Security-Policy (the client has no inline
/// scripts or styles), no framing, no MIME sniffing. Audio and video come from this server, or
/// from `blob:` URLs: Media Source Extensions hand a `<video>` an object URL of a MediaSource.
/// The video player (Video.js) runs its transmuxer in a worker made from a `blob:` URL, and its
/// stylesheet carries its icon font as a `data:` URL.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var contentSecurityPolicy: String {
        "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; style-src 'self'; script-src 'self'; "
            + "font-src 'self' data:; worker-src 'self' blob:; "
            + "connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any PodiumErrorBody {
            // Ours already write Podium's body (an API error, a membership limit with how to join).
            response = try error.response(from: request, context: context)
        } catch let error as HTTPError {
            // Hummingbird's own refusals (a body that does not decode, too large, no such route)
            // get the same body as ours, with a code a program can read.
            response = try APIError(
                error.status, code: APIError.code(for: error.status), message: error.body ?? error.status.reasonPhrase
            )
            .response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            // Likewise for NIO's (a body over the size limit).
            let message = error.status == .contentTooLarge ? "The request body is too large." : error.status.reasonPhrase
            response = try APIError(error.status, code: APIError.code(for: error.status), message: message)
                .response(from: request, context: context)
        } catch {
            // Never leak internals; log them for the operator.
            context.logger.error("unhandled error on \(request.method) \(request.uri.path): \(error)")
            response = try APIError(.internalServerError, code: "internal", message: "Something went wrong on the server.")
                .response(from: request, context: context)
        }
        // A page may carry a policy of its own, the strict one with one source added (the LTI
        // picker's form goes to the learning platform: LTIController.picker); any other is replaced.
        let own = response.headers[.contentSecurityPolicy]
        for field in Self.fields { response.headers[field.name] = field.value }
        if let own, own.hasPrefix(Self.contentSecurityPolicy.prefix(while: { $0 != ";" })) {
            response.headers[.contentSecurityPolicy] = own
        }
        return response
    }

    /// The headers every answer gets (a viewer's `101` too: ``LiveUpgrade``).
    static var fields: HTTPFields {
        [
            .contentSecurityPolicy: contentSecurityPolicy, HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("X-Frame-Options")!: "DENY", HTTPField.Name("Referrer-Policy")!: "same-origin",
        ]
    }
}
