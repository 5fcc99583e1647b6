import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOPosix
import PodiumStore
import Synchronization

/// What the file routes would answer, decided on the connection's event loop when it can be told
/// at once, so that a player's segment or a viewer's page picture costs no trip through
/// Hummingbird's router, its middleware and a task. Two routes, each decided by the route's own
/// code, so the two cannot differ:
///
/// - `GET`/`HEAD /stream/<token>/<file>`: the token checked (``StreamController/heldFile(token:file:)``,
///   the same HMAC and expiry), the file one of the resource's held blobs, its head from
///   ``StreamBlobSets/fileAnswer(_:path:)``; the viewer cookie a browser without one is given, as the
///   stream routes' ``ChannelViewerMiddleware`` does.
/// - `GET`/`HEAD /blobs/<name>`: a picture blob (``WebController/publicBlob(_:blobs:)``, the same
///   extension check and path).
///
/// The head is built by the route's own ``RangeResponse/head(method:headers:)`` (ranges,
/// `If-None-Match`, `If-Modified-Since`, `If-Range`, `HEAD`), with the headers every answer gets from
/// the middleware: the security headers, `Date` and `Server`.
///
/// Anything else is left to the router, which answers it as before: refusals (a forged or expired
/// token, a file not the resource's, a blob that is not a picture or does not exist, `416`), a set
/// not held in memory or a caption source's playlists (they read the store), and requests the
/// middleware treats differently: a signed-in person's (`Authorization`, the sign-in cookie: an
/// account lookup), one through a proxy (`X-Forwarded-Proto`: `Secure` cookies), a query
/// (``FormQueryMiddleware``), an upgrade, `Connection` other than keep-alive. The web root
/// (``FileMiddleware``) has no `stream` or `blobs` folder. Nothing per request is lost by skipping
/// the router: it keeps no request log and no per-route metrics. One instance serves every
/// connection.
final class FileAnswers: Sendable {
    /// Nil: no stream file is answered here.
    let streams: StreamController?
    /// Nil: no blob is answered here.
    let blobs: (any BlobStore)?
    let serverName: String?
    /// The security headers' middleware's fields, made once (its list is built at each call).
    private let securityFields = SecurityHeadersMiddleware<AppRequestContext>.fields
    private let answeredCount = Atomic<Int>(0)
    /// `Date`, formatted once a second.
    private let date = Mutex<(second: Int, text: String)>((-1, ""))

    init(streams: StreamController? = nil, blobs: (any BlobStore)? = nil, serverName: String?) {
        self.streams = streams
        self.blobs = blobs
        self.serverName = serverName
    }

    /// How many answers were given on the loop (for tests).
    var answered: Int { answeredCount.load(ordering: .relaxed) }

    func countAnswer() { answeredCount.add(1, ordering: .relaxed) }

    /// A file answer decided on the loop: the head to send and the file's bytes to send after it.
    struct Answer {
        let head: HTTPResponse
        let path: String
        /// Empty: the head alone (`304`, `HEAD`, an empty file).
        let body: Range<Int>
    }

    /// The file routes' targets answered here.
    enum Target: Equatable {
        case stream(token: String, file: String)
        case blob(name: String)
    }

    /// The route's answer to `request`, or nil when the router must give it.
    func answer(to request: HTTPRequest) -> Answer? {
        guard request.method == .get || request.method == .head, let path = request.path, let target = Self.target(path)
        else { return nil }
        let fields = request.headerFields
        guard fields[.authorization] == nil, fields[HTTPSMiddleware.forwardedProto] == nil, fields[.upgrade] == nil,
            fields[.connection].map({ $0.lowercased() == "keep-alive" }) ?? true
        else { return nil }
        let cookies = Cookies(from: fields[values: .cookie])
        if let account = cookies[AuthMiddleware.cookieName]?.value, !account.isEmpty { return nil }
        let file: RangeResponse
        let issuesViewerCookie: Bool
        switch target {
        case .stream(let token, let name):
            guard let streams, let path = streams.heldFile(token: token, file: name),
                let answer = try? StreamBlobSets.fileAnswer(name, path: path)
            else { return nil }
            file = answer
            // ChannelViewerMiddleware: a browser without a viewer cookie is given one.
            issuesViewerCookie = cookies[ViewerCookie.name].map(\.value).flatMap(ViewerCookie.validate) == nil
        case .blob(let name):
            guard let blobs, let answer = try? WebController.publicBlob(name, blobs: blobs) else { return nil }
            file = answer
            issuesViewerCookie = false
        }
        guard let head = file.head(method: request.method, headers: fields) else { return nil }
        var headers = head.headers
        if issuesViewerCookie { headers.append(HTTPField(name: .setCookie, value: ViewerCookie.issue().description)) }
        for field in securityFields { headers[field.name] = field.value }
        headers[.date] = currentDate()
        if let serverName { headers[.server] = serverName }
        return Answer(head: HTTPResponse(status: head.status, headerFields: headers), path: file.path, body: head.body)
    }

    /// `/stream/<token>/<file>` or `/blobs/<name>`, each part made of the letters tokens and blob
    /// names have (base64url, `.`, `-`, `_`), so nothing is percent-encoded; nil for any other target.
    static func target(_ target: String) -> Target? {
        if let name = Self.parts(of: target, after: "/blobs/", count: 1)?.first { return .blob(name: name) }
        if let parts = Self.parts(of: target, after: "/stream/", count: 2) { return .stream(token: parts[0], file: parts[1]) }
        return nil
    }

    /// The `count` parts of `target` after `prefix`, split at `/`: each not empty and plain.
    private static func parts(of target: String, after prefix: String, count: Int) -> [String]? {
        guard target.hasPrefix(prefix) else { return nil }
        let parts = target.utf8.dropFirst(prefix.utf8.count).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count == count, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isPlain) }) else { return nil }
        return parts.map { String(Substring($0)) }
    }

    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    /// The `Date` header: IMF-fixdate, as Hummingbird's own date cache writes it.
    private func currentDate() -> String {
        let now = Date()
        let second = Int(now.timeIntervalSince1970)
        return date.withLock { cached in
            if cached.second != second { cached = (second, HTTPDate.format(now)) }
            return cached.text
        }
    }
}

/// Answers files on the connection's loop (``FileAnswers``): the head through
/// Hummingbird's connection state handler (so keep-alive, the idle timeout and closing work as for
/// any answer), the bytes as NIO's `FileRegion` below the plain HTTP/1 codec (`sendfile`, as
/// ``FileRegionBody``), corked with the head (``FileAnswerCork``). Sits after Hummingbird's
/// connection state handler, before the async channel that hands requests to the router.
///
/// Order is kept: a request is answered here only when every request passed to the router before
/// it has been answered (pipelining); while a region answered here is not yet written the next
/// request goes to the router, whose answer is held until this one's end, so one connection holds
/// at most one file open here.
final class FileAnswerHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let answers: FileAnswers
    /// The plain HTTP/1 codec's context: a region is written from there (``FileRegionBody``).
    private var codec: ChannelHandlerContext?
    private var cork: FileAnswerCork?
    /// Requests passed to the router whose answers have not ended.
    private var routed = 0
    /// The request being read is answered here once its end is read (its body is dropped).
    private var pending: Pending?
    /// A region answered here is not written yet: its end follows once it is, and what the router
    /// writes meanwhile (a pipelined request's answer) waits behind it.
    private var sending = false
    private var heldWrites: [(NIOAny, EventLoopPromise<Void>?)] = []
    private var heldFlush = false

    private struct Pending {
        let answer: FileAnswers.Answer
        /// The file, opened for a body; nil when the answer is a head alone.
        let handle: NIOFileHandle?
    }

    init(answers: FileAnswers) {
        self.answers = answers
    }

    func handlerAdded(context: ChannelHandlerContext) {
        codec = try? context.pipeline.syncOperations.context(name: FileRegionBody.plainHTTP1Codec)
        cork = try? context.pipeline.syncOperations.handler(type: FileAnswerCork.self)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if let answer = prepare(request) {
                pending = answer
                return
            }
            routed += 1
            context.fireChannelRead(data)
        case .body:
            if pending == nil { context.fireChannelRead(data) }
        case .end:
            guard let answer = pending.take() else { return context.fireChannelRead(data) }
            send(answer, context: context)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { routed -= 1 }
        guard !sending else { return heldWrites.append((data, promise)) }
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        guard !sending else {
            heldFlush = true
            return
        }
        context.flush()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if let handle = pending.take()?.handle { try? handle.close() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let handle = pending.take()?.handle { try? handle.close() }
        context.fireChannelInactive()
    }

    /// The answer given here to `request`, its file opened (on the loop, as ``FileRegionBody``
    /// does: an open of a file the page cache knows costs less than a hop to a file thread); nil
    /// when the router answers it.
    private func prepare(_ request: HTTPRequest) -> Pending? {
        guard routed == 0, !sending, codec != nil, let answer = answers.answer(to: request) else { return nil }
        guard !answer.body.isEmpty else { return Pending(answer: answer, handle: nil) }
        guard let handle = try? NIOFileHandle(_deprecatedPath: answer.path) else { return nil }
        return Pending(answer: answer, handle: handle)
    }

    private func send(_ pending: Pending, context: ChannelHandlerContext) {
        let answer = pending.answer
        answers.countAnswer()
        guard let handle = pending.handle, let codec else {
            context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            return
        }
        cork?.expectFileAnswer()
        context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
        let region = FileRegion(fileHandle: handle, readerIndex: answer.body.lowerBound, endIndex: answer.body.upperBound)
        let written = context.eventLoop.makePromise(of: Void.self)
        sending = true
        codec.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.fileRegion(region))), promise: written)
        // Written, or failed (the connection went): the socket no longer holds the region. The end
        // goes after it, as the route's does (``FileRegionBody``): the cork comes off with the
        // end's flush, so the whole region leaves corked, in full segments.
        written.futureResult.assumeIsolated().whenComplete { _ in
            try? handle.close()
            self.sending = false
            context.write(self.wrapOutboundOut(.end(nil)), promise: nil)
            let held = self.heldWrites
            self.heldWrites = []
            for (data, promise) in held { context.write(data, promise: promise) }
            self.heldFlush = false
            context.flush()
        }
    }
}
