import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// The live socket's own way in: a viewer's upgrade of `/api/v1/sessions/:code/live`, accepted on
/// the connection's event loop without the router.
///
/// Through the router, an upgrade took a task and every middleware a page request passes (the
/// form query, the security headers, the dead-end pages, a look for a static file of that name,
/// the sign-in), about 86,000 instructions a join (`Benchmarks/fanout-instructions.sh`). A
/// viewer needs none of it but what decides for them: the origin check and the viewer cookie.
/// So an upgrade is taken here only when it is that plain case: a `GET` of the live route with a
/// code of letters, digits, `-` and `_`, `Upgrade: websocket`, an origin the route allows, and
/// no credentials (no `Authorization`, no `podium_auth` cookie). Everything else (a presenter or
/// moderator signing in by cookie or header, a refused origin, any other address) goes through
/// the router as before, with its middleware, its answers and its refusals. An accepted upgrade
/// gets the same `101` and the same socket as through the router.
struct LiveUpgrade: Sendable {
    let live: LiveConnection
    let origins: OriginCheck
    /// Proxies whose `X-Forwarded-For` names the client (as ``AuthMiddleware`` reads it).
    let trustedProxies: Set<String>

    /// A plain viewer's upgrade, as read from its head: what the route would have accepted.
    struct Plan: Equatable {
        let code: String
        /// From the `podium_viewer` cookie.
        let viewerId: String?
        /// The client's address (or the one a trusted proxy forwarded).
        let clientKey: String
    }

    /// The headers of the router's `101` (``SecurityHeadersMiddleware``'s), so that a `101`
    /// says the same whichever way it was decided.
    static let headers = HTTPHeaders(SecurityHeadersMiddleware<AppRequestContext>.fields)

    /// Accepts a plain viewer's upgrade (see ``LiveUpgrade``); nil leaves it to the router.
    func accept(_ head: HTTPRequestHead, channel: any Channel, logger: Logger) -> (
        install: SocketUpgrade.Install, headers: HTTPHeaders
    )? {
        guard let plan = Self.plan(head, remoteAddress: channel.remoteAddress, origins: origins, trustedProxies: trustedProxies)
        else { return nil }
        let requester = LiveConnection.Requester(user: nil, viewerId: plan.viewerId, clientKey: plan.clientKey)
        return (live.accept(code: plan.code, requester: requester, requestLogger: logger), Self.headers)
    }

    /// What a plain viewer's upgrade asks for; nil for anything the router should decide.
    static func plan(
        _ head: HTTPRequestHead, remoteAddress: SocketAddress?, origins: OriginCheck, trustedProxies: Set<String>
    ) -> Plan? {
        guard head.method == .GET, let code = code(inTarget: head.uri) else { return nil }
        let fields = head.headers
        // As ``OriginCheck/verifyUpgrade(_:)`` asks (one field: several are combined there).
        let upgrade = fields["Upgrade"]
        guard upgrade.count == 1, upgrade[0].lowercased() == "websocket" else { return nil }
        // Credentials: ``AuthMiddleware`` looks them up, and may refuse.
        guard !fields.contains(name: "Authorization") else { return nil }
        let cookies = Cookies(from: fields["Cookie"])
        guard cookies[AuthMiddleware.cookieName] == nil else { return nil }
        // Several origins are combined into one list, as the router's request has them.
        let origin = fields["Origin"]
        guard
            origins.allows(origin: origin.isEmpty ? nil : origin.joined(separator: ","), host: fields["Host"].first)
        else { return nil }  // the router refuses it, with its own answer
        let viewerId = cookies[ViewerCookie.name].map(\.value).flatMap(ViewerCookie.validate)
        let peer = remoteAddress?.ipAddress
        let forwardedFor = ForwardedFor.client(
            peer: peer, trustedProxies: trustedProxies, values: fields["X-Forwarded-For"])
        return Plan(code: code, viewerId: viewerId, clientKey: forwardedFor ?? peer ?? "unknown")
    }

    /// The code of `/api/v1/sessions/<code>/live` (a query after it is left alone, as the router
    /// leaves it), when the code is of letters, digits, `-` and `_`.
    static func code(inTarget target: String) -> String? {
        var path = target.utf8[...]
        if let question = path.firstIndex(of: UInt8(ascii: "?")) { path = path[..<question] }
        let prefix = "/api/v1/sessions/".utf8
        let suffix = "/live".utf8
        guard path.count > prefix.count + suffix.count, path.starts(with: prefix), path.reversed().starts(with: suffix.reversed())
        else { return nil }
        let code = path.dropFirst(prefix.count).dropLast(suffix.count)
        guard
            code.allSatisfy({ byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default: false
                }
            })
        else { return nil }
        return String(decoding: code, as: UTF8.self)
    }
}
