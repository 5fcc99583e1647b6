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
    func accept(_ head: HTTPRequestHead, fields: Fields, channel: any Channel, logger: Logger) -> SocketUpgrade.Install? {
        guard
            let plan = Self.plan(
                head, fields: fields, remoteAddress: channel.remoteAddress, origins: origins, trustedProxies: trustedProxies)
        else { return nil }
        let requester = LiveConnection.Requester(user: nil, viewerId: plan.viewerId, clientKey: plan.clientKey)
        return live.accept(code: plan.code, requester: requester, requestLogger: logger)
    }

    /// What a plain viewer's upgrade asks for; nil for anything the router should decide.
    static func plan(
        _ head: HTTPRequestHead, remoteAddress: SocketAddress?, origins: OriginCheck, trustedProxies: Set<String>
    ) -> Plan? {
        plan(head, fields: Fields(head.headers), remoteAddress: remoteAddress, origins: origins, trustedProxies: trustedProxies)
    }

    /// The same, from the head's fields read once (``Fields``).
    static func plan(
        _ head: HTTPRequestHead, fields: Fields, remoteAddress: SocketAddress?, origins: OriginCheck,
        trustedProxies: Set<String>
    ) -> Plan? {
        guard head.method == .GET, let code = code(inTarget: head.uri) else { return nil }
        // As ``OriginCheck/verifyUpgrade(_:)`` asks (one field: several are combined there).
        guard fields.upgrade.count == 1, fields.upgrade[0].lowercased() == "websocket" else { return nil }
        // Credentials: ``AuthMiddleware`` looks them up, and may refuse.
        guard !fields.hasAuthorization else { return nil }
        let cookies = Cookies(from: fields.cookie)
        guard cookies[AuthMiddleware.cookieName] == nil else { return nil }
        // Several origins are combined into one list, as the router's request has them.
        guard
            origins.allows(
                origin: fields.origin.isEmpty ? nil : fields.origin.joined(separator: ","), host: fields.host.first)
        else { return nil }  // the router refuses it, with its own answer
        let viewerId = cookies[ViewerCookie.name].map(\.value).flatMap(ViewerCookie.validate)
        let peer = remoteAddress?.ipAddress
        let forwardedFor = ForwardedFor.client(peer: peer, trustedProxies: trustedProxies, values: fields.forwardedFor)
        return Plan(code: code, viewerId: viewerId, clientKey: forwardedFor ?? peer ?? "unknown")
    }

    /// The fields of an upgrade's head that decide it, read in one pass over the head's fields.
    /// `HTTPHeaders`' subscripts each walk every field, and its `canonicalForm` splits and trims
    /// every value into new strings: the ten reads by name cost about 20,000 instructions a
    /// join (`Benchmarks/fanout-instructions.sh`). Each list holds a name's values in the order
    /// they came, as `HTTPHeaders[name]` returns them; names compare case-insensitively.
    struct Fields {
        var upgrade: [String] = []
        var hasAuthorization = false
        var cookie: [String] = []
        var origin: [String] = []
        var host: [String] = []
        var forwardedFor: [String] = []
        var contentLength: [String] = []
        var hasTransferEncoding = false
        var webSocketKey: [String] = []
        var webSocketVersion: [String] = []

        init(_ headers: HTTPHeaders) {
            for (name, value) in headers {
                // The names' lengths tell most apart before any byte is compared.
                switch name.utf8.count {
                case 4: if Self.name(name, is: "host") { host.append(value) }
                case 6:
                    if Self.name(name, is: "cookie") {
                        cookie.append(value)
                    } else if Self.name(name, is: "origin") {
                        origin.append(value)
                    }
                case 7: if Self.name(name, is: "upgrade") { upgrade.append(value) }
                case 13: if Self.name(name, is: "authorization") { hasAuthorization = true }
                case 14: if Self.name(name, is: "content-length") { contentLength.append(value) }
                case 15: if Self.name(name, is: "x-forwarded-for") { forwardedFor.append(value) }
                case 17:
                    if Self.name(name, is: "sec-websocket-key") {
                        webSocketKey.append(value)
                    } else if Self.name(name, is: "transfer-encoding") {
                        hasTransferEncoding = true
                    }
                case 21: if Self.name(name, is: "sec-websocket-version") { webSocketVersion.append(value) }
                default: break
                }
            }
        }

        /// Whether `name` is `lowercased` (ASCII letters, digits and `-`), whatever its case.
        static func name(_ name: String, is lowercased: StaticString) -> Bool {
            let expected = UnsafeBufferPointer(start: lowercased.utf8Start, count: lowercased.utf8CodeUnitCount)
            return name.utf8.elementsEqual(expected) { byte, lower in
                (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == lower
            }
        }

        /// The one value of a field whose value NIO reads by `canonicalForm` (split at commas,
        /// trimmed) when that gives exactly one: nil for none, several, or an empty one. A value
        /// with a comma is nil too, and the upgrade is left to NIO's handler, which reads it so.
        static func single(_ values: [String]) -> Substring? {
            guard values.count == 1 else { return nil }
            let bytes = values[0].utf8
            let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
            guard !bytes.contains(UInt8(ascii: ",")), let first = bytes.firstIndex(where: { !isBlank($0) }),
                let last = bytes.lastIndex(where: { !isBlank($0) })
            else { return nil }
            return Substring(bytes[first...last])
        }
    }

    /// The code of `/api/v1/sessions/<code>/live` (a query after it is left alone, as the router
    /// leaves it), when the code is of letters, digits, `-` and `_`.
    static func code(inTarget target: String) -> String? {
        var target = target
        // On the target's bytes in place: through `String.UTF8View`'s generic index steps, this
        // took 5,000 instructions a join.
        return target.withUTF8 { bytes in
            var path = bytes[...]
            if let question = path.firstIndex(of: UInt8(ascii: "?")) { path = path[..<question] }
            let prefix: StaticString = "/api/v1/sessions/"
            let suffix: StaticString = "/live"
            let prefixBytes = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
            let suffixBytes = UnsafeBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount)
            guard path.count > prefixBytes.count + suffixBytes.count, path.starts(with: prefixBytes),
                path.suffix(suffixBytes.count).elementsEqual(suffixBytes)
            else { return nil }
            return code(path.dropFirst(prefixBytes.count).dropLast(suffixBytes.count))
        }
    }

    /// The code itself, when it is of letters, digits, `-` and `_`.
    private static func code(_ code: Slice<UnsafeBufferPointer<UInt8>>) -> String? {
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
    typealias UpgradeResult = PodiumServerChannel.UpgradeResult

    private let live: LiveUpgrade
    private let maxFrameSize: Int
    /// Nothing outbound sits below the handlers of this connection (no TLS): the framing handler
    /// is put directly above the channel (``WebSocketFraming/aboveChannel``).
    private let plain: Bool
    private let logger: Logger
    /// Completed with ``PodiumServerChannel/UpgradeResult/socket`` by an upgrade taken here; NIO's
    /// upgrade handler's own result is passed to it otherwise (see ``PodiumServerChannel``).
    private let outcome: UpgradeOutcome
    /// Cancels the connection's deadline for its first request head.
    private let headArrived: () -> Void
    /// The upgrade decided by the head, done when the request ends.
    private var pending: (install: SocketUpgrade.Install, response: ByteBuffer)?

    init(
        live: LiveUpgrade, maxFrameSize: Int, plain: Bool, logger: Logger, outcome: UpgradeOutcome,
        headArrived: @escaping () -> Void
    ) {
        self.live = live
        self.maxFrameSize = maxFrameSize
        self.plain = plain
        self.logger = logger
        self.outcome = outcome
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
        install: SocketUpgrade.Install, response: ByteBuffer
    )? {
        let fields = LiveUpgrade.Fields(head.headers)
        // A body would be read by NIO's upgrade handler and replayed after it: left to it.
        guard fields.contentLength.isEmpty || fields.contentLength == ["0"], !fields.hasTransferEncoding else { return nil }
        // As NIO's WebSocket upgrader asks: one key, version 13 (it refuses anything else).
        guard let key = LiveUpgrade.Fields.single(fields.webSocketKey),
            LiveUpgrade.Fields.single(fields.webSocketVersion) == "13"
        else { return nil }
        guard let install = live.accept(head, fields: fields, channel: channel, logger: logger) else { return nil }
        return (install, Self.response(key: key, allocator: channel.allocator))
    }

    /// The `101` NIO's WebSocket upgrader sends, as NIO's HTTP encoder writes it: the route's
    /// headers (``LiveUpgrade/headers``), then `Upgrade`, the key's `Sec-WebSocket-Accept` and
    /// `Connection`, in that order. All of it but the accept value is the same for every viewer,
    /// so it is encoded once: the head's headers and NIO's encoder took about 21,000
    /// instructions a join (`Benchmarks/fanout-instructions.sh`).
    static func response(key: Substring, allocator: ByteBufferAllocator) -> ByteBuffer {
        let accept = accept(key: key)
        var buffer = allocator.buffer(capacity: responseStart.count + accept.utf8.count + responseEnd.utf8CodeUnitCount)
        buffer.writeBytes(responseStart)
        buffer.writeString(accept)
        buffer.writeStaticString(responseEnd)
        return buffer
    }

    /// The `101`'s bytes before the accept value: its status line, the route's headers, `Upgrade`.
    private static let responseStart: [UInt8] = {
        var text = "HTTP/1.1 101 Switching Protocols\r\n"
        for (name, value) in LiveUpgrade.headers { text += "\(name): \(value)\r\n" }
        text += "Upgrade: websocket\r\nSec-WebSocket-Accept: "
        return Array(text.utf8)
    }()
    private static let responseEnd: StaticString = "\r\nConnection: upgrade\r\n\r\n"

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
    private func upgrade(context: ChannelHandlerContext, install: SocketUpgrade.Install, response: ByteBuffer) {
        let pipeline = context.pipeline.syncOperations
        do {
            // Already encoded (``response(key:allocator:)``): written from the encoder's place,
            // as the encoder writes what it encodes, and the encoder leaves.
            let encoder = try pipeline.context(handlerType: HTTPResponseEncoder.self)
            encoder.writeAndFlush(NIOAny(IOData.byteBuffer(response)), promise: nil)
            try pipeline.removeHandler(context: encoder, promise: nil)
            try pipeline.removeHandler(
                context: pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self), promise: nil)
            // The HTTP handlers are gone: below the framing handler there is only the channel, or TLS.
            try pipeline.addHandler(WebSocketFraming(maxFrameSize: maxFrameSize, aboveChannel: plain))
            try install(context.channel)
            // Before NIO's handler leaves: its leaving fails its result, which is passed on to
            // this one and then comes too late.
            outcome.complete(.success(.socket))
            try pipeline.removeHandler(
                context: pipeline.context(handlerType: NIOTypedHTTPServerUpgradeHandler<UpgradeResult>.self), promise: nil)
        } catch {
            logger.debug("the live socket's upgrade failed: \(error)")
            outcome.complete(.failure(error))
            context.close(promise: nil)
        }
        pipeline.removeHandler(context: context, promise: nil)
    }
}
