import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
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
/// The head is the route's own: decided by ``RangeResponse/answer(method:headers:size:entityTag:modified:)``
/// and built by ``RangeResponse/head(method:headers:)`` (ranges, `If-None-Match`,
/// `If-Modified-Since`, `If-Range`, `HEAD`), with the headers every answer gets from the
/// middleware: the security headers, `Date` and `Server`. A whole file's head is made once per
/// file and kept while the file is the same (``KeptHead``), as HTTP/1 writes it.
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
    /// The whole-file heads made so far, by the file's path (``KeptHead``).
    private let kept = Mutex<[String: KeptHead]>([:])
    /// At most this many heads are kept (about a kilobyte each); past it, one is dropped for each
    /// one kept.
    static let keptLimit = 1024

    init(streams: StreamController? = nil, blobs: (any BlobStore)? = nil, serverName: String?) {
        self.streams = streams
        self.blobs = blobs
        self.serverName = serverName
    }

    /// How many answers were given on the loop (for tests).
    var answered: Int { answeredCount.load(ordering: .relaxed) }

    /// How many whole-file heads are kept (for tests).
    var keptHeads: Int { kept.withLock { $0.count } }

    func countAnswer() { answeredCount.add(1, ordering: .relaxed) }

    /// A file answer decided on the loop: the head to send (as NIO's HTTP/1 encoder takes it) and
    /// the file's bytes to send after it.
    struct Answer {
        let head: HTTPResponseHead
        let path: String
        /// Empty: the head alone (`304`, `HEAD`, an empty file).
        let body: Range<Int>
    }

    /// The file routes' targets answered here.
    enum Target: Equatable {
        case stream(token: String, file: String)
        case blob(name: String)
    }

    /// The head of a file's whole answer (`200`, the route's headers, the security headers and
    /// `Server`), kept for the file's identity: every picture of a deck is asked for by each
    /// viewer, and the head is the same every time but for `Date`. It is used only while a `stat`
    /// of the path, made for every request as before, gives the identity it was made for
    /// (``FileIdentity``: the same inode, size, modification and change times), so a blob written
    /// anew or removed is never answered from it; a changed file's head is made again.
    private struct KeptHead {
        let identity: FileIdentity
        let file: RangeResponse
        /// `Date` is added per second (``dated``).
        let whole: HTTPResponseHead
        var dated: (second: Int, head: HTTPResponseHead)
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
        // The route's own decision: which file, and its answer's headers (made only when no head
        // is kept for the file as it is now).
        let filePath: String
        let makeFile: () throws -> RangeResponse
        let issuesViewerCookie: Bool
        switch target {
        case .stream(let token, let name):
            guard let streams, let held = streams.heldFile(token: token, file: name) else { return nil }
            (filePath, makeFile) = (held, { try StreamBlobSets.fileAnswer(name, path: held) })
            // ChannelViewerMiddleware: a browser without a viewer cookie is given one.
            issuesViewerCookie = cookies[ViewerCookie.name].map(\.value).flatMap(ViewerCookie.validate) == nil
        case .blob(let name):
            guard let blobs, let held = WebController.publicBlobPath(name, blobs: blobs) else { return nil }
            (filePath, makeFile) = (held, { try WebController.publicBlob(name, blobs: blobs) })
            issuesViewerCookie = false
        }
        // A missing file is the route's 404.
        guard let identity = FileIdentity(path: filePath), let whole = wholeHead(filePath, identity, makeFile) else {
            return nil
        }
        let file = whole.file
        let decision = RangeResponse.answer(
            method: request.method, headers: fields, size: file.size, entityTag: file.entityTag, modified: file.modified)
        if decision == .whole {
            var head = whole.head
            if issuesViewerCookie { head.headers.add(name: "Set-Cookie", value: ViewerCookie.issue().description) }
            return Answer(head: head, path: filePath, body: request.method == .head ? 0..<0 : 0..<file.size)
        }
        guard let answer = file.head(method: request.method, headers: fields) else { return nil }
        var headers = answer.headers
        if issuesViewerCookie { headers.append(HTTPField(name: .setCookie, value: ViewerCookie.issue().description)) }
        decorate(&headers)
        headers[.date] = currentDate().text
        return Answer(
            head: HTTPResponseHead(HTTPResponse(status: answer.status, headerFields: headers)), path: filePath, body: answer.body)
    }

    /// The headers every answer gets from the middleware but `Date`: the security headers, `Server`.
    private func decorate(_ headers: inout HTTPFields) {
        for field in securityFields { headers[field.name] = field.value }
        if let serverName { headers[.server] = serverName }
    }

    /// The whole answer's head for the file at `path` as it is now (`identity`), dated this
    /// second: the kept one while the file is the same, else one made from the route's answer
    /// (`makeFile`) and kept; nil when the route's answer fails (the router answers it).
    private func wholeHead(_ path: String, _ identity: FileIdentity, _ makeFile: () throws -> RangeResponse)
        -> (file: RangeResponse, head: HTTPResponseHead)?
    {
        let date = currentDate()
        let found = kept.withLock { heads -> (file: RangeResponse, head: HTTPResponseHead)? in
            guard var head = heads[path], head.identity == identity else { return nil }
            if head.dated.second != date.second {
                head.dated = (date.second, Self.dated(head.whole, date.text))
                heads[path] = head
            }
            return (head.file, head.dated.head)
        }
        if let found { return found }
        guard let file = try? makeFile() else { return nil }
        var fields = file.headers
        fields[.acceptRanges] = "bytes"
        fields[.eTag] = file.entityTag
        fields[.lastModified] = file.lastModified
        fields[.contentLength] = String(file.size)
        decorate(&fields)
        let whole = HTTPResponseHead(HTTPResponse(status: .ok, headerFields: fields))
        let made = KeptHead(identity: file.identity, file: file, whole: whole, dated: (date.second, Self.dated(whole, date.text)))
        // Kept only when the route's `stat` saw the file this request's did (not changed between).
        if file.identity == identity {
            kept.withLock { heads in
                if heads.count >= Self.keptLimit, heads[path] == nil { heads.remove(at: heads.startIndex) }
                heads[path] = made
            }
        }
        return (file, made.dated.head)
    }

    private static func dated(_ head: HTTPResponseHead, _ date: String) -> HTTPResponseHead {
        var head = head
        head.headers.add(name: "Date", value: date)
        return head
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

    /// The `Date` header: IMF-fixdate, as Hummingbird's own date cache writes it, and its second.
    private func currentDate() -> (second: Int, text: String) {
        let now = Date()
        let second = Int(now.timeIntervalSince1970)
        return date.withLock { cached in
            if cached.second != second { cached = (second, HTTPDate.format(now)) }
            return cached
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
        // The head is already HTTP/1's (kept so, ``FileAnswers``): written from the plain codec's
        // context, as the region is; the end passes through the connection state handler.
        guard let codec else { return }
        guard let handle = pending.handle else {
            codec.write(NIOAny(HTTPServerResponsePart.head(answer.head)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            return
        }
        cork?.expectFileAnswer()
        codec.write(NIOAny(HTTPServerResponsePart.head(answer.head)), promise: nil)
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
