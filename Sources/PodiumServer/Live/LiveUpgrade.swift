import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1
import NIOWebSocket

/// The live socket's own way in: a viewer's upgrade of `/api/v1/sessions/:code/live`, accepted on
/// the connection's event loop without the router and without NIO's upgrade handler
/// (``LiveUpgradeHandler``).
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

/// A viewer's upgrade of the live route, done by one handler on the connection's loop instead of
/// NIO's general upgrade machinery (#42).
///
/// NIO's `NIOTypedHTTPServerUpgradeHandler` runs any upgrade through a state machine and a chain
/// of futures: the upgrader is looked up by name, the WebSocket key checked in a future, the HTTP
/// handlers removed, the `101` sent, the encoder removed and the new handlers added each in a
/// future of its own, and every step pays for its callbacks and generic metadata (about 130,000
/// instructions a join, `Benchmarks/fanout-instructions.sh`). A plain viewer's upgrade
/// (``LiveUpgrade/plan(_:remoteAddress:origins:trustedProxies:)``) needs none of it: this handler
/// sits between NIO's request decoder and its upgrade handler, takes such an upgrade when its
/// request ends, sends the same `101`, swaps the HTTP handlers for the WebSocket ones in place and
/// installs the socket, all in one call. Anything else (another address, a signed-in upgrade, a
/// request with a body, plain HTTP) is handed on to NIO's upgrade handler as it came, and this
/// handler leaves the pipeline.
final class LiveUpgradeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    typealias UpgradeResult = PodiumServerChannel.UpgradeResult

    private let live: LiveUpgrade
    private let maxFrameSize: Int
    private let logger: Logger
    /// Completed with ``PodiumServerChannel/UpgradeResult/socket`` by an upgrade taken here; NIO's
    /// upgrade handler's own result is passed to it otherwise (see ``PodiumServerChannel``).
    private let result: EventLoopPromise<UpgradeResult>
    /// Cancels the connection's deadline for its first request head.
    private let headArrived: () -> Void
    /// The upgrade decided by the head, done when the request ends.
    private var pending: (install: SocketUpgrade.Install, response: HTTPResponseHead)?

    init(
        live: LiveUpgrade, maxFrameSize: Int, logger: Logger, result: EventLoopPromise<UpgradeResult>,
        headArrived: @escaping () -> Void
    ) {
        self.live = live
        self.maxFrameSize = maxFrameSize
        self.logger = logger
        self.result = result
        self.headArrived = headArrived
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let pending else {
            guard case .head(let head) = unwrapInboundIn(data), let taken = take(head, channel: context.channel) else {
                // Not a plain viewer's upgrade: NIO's upgrade handler decides, as before.
                context.fireChannelRead(data)
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                return
            }
            headArrived()
            self.pending = taken
            return
        }
        // A taken upgrade has no body (``take(_:channel:)``): what follows its head is its end.
        guard case .end = unwrapInboundIn(data) else { return }
        self.pending = nil
        upgrade(context: context, install: pending.install, response: pending.response)
    }

    /// The upgrade to take for `head` (its installer and its `101`), or nil to hand it on.
    private func take(_ head: HTTPRequestHead, channel: any Channel) -> (
        install: SocketUpgrade.Install, response: HTTPResponseHead
    )? {
        let fields = head.headers
        // A body would be read by NIO's upgrade handler and replayed after it: left to it.
        guard !fields.contains(name: "Content-Length") || fields["Content-Length"] == ["0"],
            !fields.contains(name: "Transfer-Encoding")
        else { return nil }
        // As NIO's WebSocket upgrader asks: one key, version 13 (it refuses anything else).
        let keys = fields[canonicalForm: "Sec-WebSocket-Key"]
        let versions = fields[canonicalForm: "Sec-WebSocket-Version"]
        guard keys.count == 1, versions.count == 1, versions[0] == "13" else { return nil }
        guard let accepted = live.accept(head, channel: channel, logger: logger) else { return nil }
        return (accepted.install, Self.response(headers: accepted.headers, key: keys[0]))
    }

    /// The `101` NIO's WebSocket upgrader sends: the route's headers, then `Upgrade`, the key's
    /// `Sec-WebSocket-Accept` and `Connection`, in that order.
    static func response(headers: HTTPHeaders, key: Substring) -> HTTPResponseHead {
        var headers = headers
        headers.replaceOrAdd(name: "Upgrade", value: "websocket")
        headers.add(name: "Sec-WebSocket-Accept", value: accept(key: key))
        headers.replaceOrAdd(name: "Connection", value: "upgrade")
        return HTTPResponseHead(version: .http1_1, status: .switchingProtocols, headers: headers)
    }

    /// RFC 6455's answer to a key: the base64 of the SHA-1 of the key and the protocol's GUID.
    static func accept(key: Substring) -> String {
        var hasher = Insecure.SHA1()
        hasher.update(data: Array(key.utf8))
        hasher.update(data: Array("258EAFA5-E914-47DA-95CA-C5AB0DC85B11".utf8))
        return Data(hasher.finalize()).base64EncodedString()
    }

    /// Sends the `101`, puts the WebSocket handlers where the HTTP ones were and installs the
    /// socket. The request decoder leaves after this read (NIO defers its removal), and hands the
    /// bytes it holds past the head, a client's first frames, to the WebSocket decoder then.
    private func upgrade(context: ChannelHandlerContext, install: SocketUpgrade.Install, response: HTTPResponseHead) {
        let pipeline = context.pipeline.syncOperations
        do {
            context.writeAndFlush(wrapOutboundOut(.head(response)), promise: nil)
            try pipeline.removeHandler(context: pipeline.context(handlerType: HTTPResponseEncoder.self), promise: nil)
            try pipeline.removeHandler(
                context: pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self), promise: nil)
            try pipeline.addHandler(WebSocketFrameEncoder())
            try pipeline.addHandler(ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: maxFrameSize)))
            try install(context.channel)
            // Before NIO's handler leaves: its leaving fails its result, which is passed on to
            // this one and then comes too late.
            result.succeed(.socket)
            try pipeline.removeHandler(
                context: pipeline.context(handlerType: NIOTypedHTTPServerUpgradeHandler<UpgradeResult>.self), promise: nil)
        } catch {
            logger.debug("the live socket's upgrade failed: \(error)")
            result.fail(error)
            context.close(promise: nil)
        }
        pipeline.removeHandler(context: context, promise: nil)
    }
}
