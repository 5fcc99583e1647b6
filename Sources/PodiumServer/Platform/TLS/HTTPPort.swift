import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The answers to ACME http-01 challenges under way: token to key authorization.
final class ACMEChallenges: Sendable {
    private let answers = Mutex<[String: String]>([:])

    func set(token: String, keyAuthorization: String) { answers.withLock { $0[token] = keyAuthorization } }
    func remove(token: String) { answers.withLock { _ = $0.removeValue(forKey: token) } }
    func answer(token: String) -> String? { answers.withLock { $0[token] } }

    static let pathPrefix = "/.well-known/acme-challenge/"
}

/// The port HTTPS listens on: the configured one until the server listens (`--port 0` in tests:
/// the one the kernel chose).
final class ListeningPort: Sendable {
    private let value: Mutex<Int>
    init(_ port: Int) { value = Mutex(port) }
    var port: Int { value.withLock { $0 } }
    func set(_ port: Int) { value.withLock { $0 = port } }
}

/// The plain HTTP port beside HTTPS: every request is sent to the same address on HTTPS with a
/// `308` (method and body kept), except ACME's http-01 challenges, which only work over HTTP.
struct HTTPPortServer: Service {
    let host: String
    let port: Int
    /// The HTTPS port the redirects name (left out when it is 443): the one it listens on.
    let httpsPort: ListeningPort
    let challenges: ACMEChallenges
    /// The name to redirect to when a request names none (an HTTP/1.0 client).
    let fallbackHost: String?
    let onListening: (@Sendable (Int) async -> Void)?
    let logger: Logger

    func run() async throws {
        let router = Router(context: BasicRequestContext.self)
        let (challenges, httpsPort, fallbackHost) = (challenges, httpsPort, fallbackHost)
        router.add(middleware: RedirectToHTTPS(httpsPort: httpsPort, fallbackHost: fallbackHost))
        router.get("/.well-known/acme-challenge/:token") { request, context -> Response in
            guard let token = context.parameters.get("token"), let answer = challenges.answer(token: token) else {
                return Response(status: .notFound)
            }
            return Response(
                status: .ok, headers: [.contentType: "application/octet-stream"],
                body: .init(byteBuffer: ByteBuffer(string: answer)))
        }
        let (host, port, logger, onListening) = (host, port, logger, onListening)
        let app = Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "Podium"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? port
                logger.info("HTTP on port \(port) redirects to HTTPS")
                await onListening?(port)
            }, logger: logger)
        do {
            try await app.run()
        } catch {
            if Task.isCancelled { throw error }
            throw StartupError("could not listen for HTTP on port \(port) (--http-port): \(error)")
        }
    }
}

/// Answers every request but ACME's challenges with a `308` to HTTPS.
struct RedirectToHTTPS: RouterMiddleware {
    typealias Context = BasicRequestContext
    let httpsPort: ListeningPort
    let fallbackHost: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        if request.uri.path.hasPrefix(ACMEChallenges.pathPrefix) { return try await next(request, context) }
        guard let location = Self.location(request: request.head, httpsPort: httpsPort.port, fallbackHost: fallbackHost) else {
            return Response(status: .badRequest)
        }
        return Response(status: .permanentRedirect, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// `https://<the request's host, without its port>[:httpsPort]<path and query>`.
    static func location(request: HTTPRequest, httpsPort: Int, fallbackHost: String?) -> String? {
        guard let authority = request.authority ?? fallbackHost, let host = hostName(of: authority) else { return nil }
        let port = httpsPort == 443 ? "" : ":\(httpsPort)"
        let path = request.path ?? "/"
        return "https://\(host)\(port)\(path.hasPrefix("/") ? path : "/")"
    }

    /// The host of `host[:port]` or `[v6]:port`; nil when it is not a plain host name or address.
    static func hostName(of authority: String) -> String? {
        var host = authority
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            host = String(host[...close])
        } else if let colon = host.firstIndex(of: ":") {
            host = String(host[..<colon])
        }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-_[]:"))
        guard !host.isEmpty, host.unicodeScalars.allSatisfy({ allowed.contains($0) && $0.isASCII }) else { return nil }
        return host
    }
}

/// On HTTPS answers: `Strict-Transport-Security`, and `Secure` on every cookie set. Also behind a
/// reverse proxy that ends TLS when it is a trusted proxy (``ServerConfiguration/trustedProxies``)
/// and says `X-Forwarded-Proto: https` (cookies only: HSTS is then the proxy's to send).
struct HTTPSMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    /// True when Podium serves TLS itself: every request of the main port came over it.
    let tls: Bool
    let hstsMaxAge: Int
    let trustedProxies: Set<String>

    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        let proxied =
            !tls && context.remoteAddress?.ipAddress.map(trustedProxies.contains) == true
            && request.headers[Self.forwardedProto]?.split(separator: ",").first?.trimmingCharacters(in: .whitespaces)
                .lowercased() == "https"
        guard tls || proxied else { return try await next(request, context) }
        var response = try await next(request, context)
        if tls, hstsMaxAge > 0 { response.headers[.strictTransportSecurity] = "max-age=\(hstsMaxAge)" }
        Self.secureCookies(&response.headers)
        return response
    }

    /// Adds `; Secure` to each `Set-Cookie` that lacks it.
    static func secureCookies(_ headers: inout HTTPFields) {
        let cookies = headers[values: .setCookie]
        guard !cookies.isEmpty else { return }
        headers[values: .setCookie] = cookies.map { cookie in
            cookie.lowercased().split(separator: ";").contains { $0.trimmingCharacters(in: .whitespaces) == "secure" }
                ? cookie : cookie + "; Secure"
        }
    }
}
