import Foundation
import HTTPTypes
import Hummingbird

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
// `struct stat` belongs, for the compiler, to whichever module read <sys/stat.h> first: on Linux
// in a fresh build that is Dispatch's C module, and member import visibility then asks for it.
#if canImport(CDispatch)
    import CDispatch
#endif

/// An immutable file answered whole or in part, as RFC 9110 describes (§13 conditional requests,
/// §14 range requests): what seeking in a video, resuming a download and a media player's
/// probing need. Blobs and deck downloads use it; media routes can too.
///
/// - `Range: bytes=a-b`, `bytes=a-` or `bytes=-n` on a `GET` → `206` with `Content-Range`; a range
///   that starts at or past the end (or `bytes=-0`) → `416` with `Content-Range: bytes */size`.
/// - Several ranges in one header → the whole file, `200`: a server may ignore `Range` (§14.2),
///   players ask for one range at a time, and `multipart/byteranges` is not worth its cost.
/// - A `Range` that does not parse, or of a unit other than `bytes` → ignored: the whole file.
/// - `If-Range` with an entity tag (compared strongly) or a date (compared exactly with
///   `Last-Modified`): the range only while the file is still that one, else the whole file.
/// - `If-None-Match` matching the entity tag (weak comparison), or without it an
///   `If-Modified-Since` no older than the file → `304`.
/// - `HEAD`: the headers a `GET` would get, no body. `Range` is for `GET` only (§14.2).
///
/// The body (the whole file or its one range) is written to the connection as NIO's `FileRegion`
/// (``FileRegionBody``: `sendfile`, no byte read into the process); on a connection that cannot
/// carry one (TLS), or with a context that does not know its connection, it is read in chunks and
/// streamed, never read whole.
struct RangeResponse {
    /// What a conditional or range request gets.
    enum Answer: Equatable {
        case notModified
        case whole
        case part(ClosedRange<Int>)
        case unsatisfiable
    }

    /// What a `Range` header asks of a file of a given size.
    enum RangeRequest: Equatable {
        /// Malformed, another unit, or several ranges: answered with the whole file.
        case ignored
        case satisfiable(ClosedRange<Int>)
        case unsatisfiable
    }

    let path: String
    let size: Int
    /// Whole seconds, as `Last-Modified` says it.
    let modified: Date
    /// `modified` as `Last-Modified` says it, formatted once.
    let lastModified: String
    /// The file this answer was made for, as `stat(2)` told it.
    let identity: FileIdentity
    /// Strong and quoted, e.g. `"3a7bd3…"`.
    let entityTag: String
    /// Sent with every answer but `416`: the file's `Content-Type`, `Cache-Control`, `Content-Disposition`.
    let headers: HTTPFields

    /// Reads the file's size and modification time; `404` if it is not a regular file.
    init(file url: URL, entityTag: String, headers: HTTPFields) throws {
        try self.init(path: url.path, entityTag: entityTag, headers: headers)
    }

    /// Reads the file's size and modification time with one `stat(2)`, inline (no read, no hop to
    /// a file thread); `404` if it is missing or not a regular file. Not Foundation's
    /// `attributesOfItem`: it also reads the extended attributes and looks up the owner's and
    /// group's names (`/etc/passwd`, `/etc/group`): about fifteen system calls a request more.
    init(path: String, entityTag: String, headers: HTTPFields) throws {
        guard let identity = FileIdentity(path: path) else { throw APIError.notFound("file") }
        self.path = path
        self.identity = identity
        self.size = identity.size
        // Whole seconds, as `Last-Modified` says it (the nanoseconds are dropped).
        self.modified = Date(timeIntervalSince1970: TimeInterval(identity.modifiedSeconds))
        self.lastModified = HTTPDate.format(modified)
        self.entityTag = entityTag
        self.headers = headers
    }

    /// The strong entity tag of a blob: its name starts with the SHA-256 of its bytes, and the
    /// same bytes always have the same hash.
    static func entityTag(forBlob name: String) -> String {
        "\"\(name.prefix { $0 != "." })\""
    }

    /// A file answer's status and headers, and the bytes its body carries: what ``response(to:context:fileIO:)``
    /// sends, and what a file answered on the connection's loop sends (``FileAnswerHandler``).
    struct FileHead {
        let status: HTTPResponse.Status
        let headers: HTTPFields
        /// The file's bytes the body carries; empty for a `304`, a `HEAD` and an empty file.
        let body: Range<Int>
    }

    /// The answer to a request with `method` and `headers` but a `416` (nil: the range asked for
    /// starts past the end, which is answered with an error body).
    func head(method: HTTPRequest.Method, headers requestHeaders: HTTPFields) -> FileHead? {
        var headers = self.headers
        headers[.acceptRanges] = "bytes"
        headers[.eTag] = entityTag
        headers[.lastModified] = lastModified
        let range: Range<Int>
        let status: HTTPResponse.Status
        switch Self.answer(method: method, headers: requestHeaders, size: size, entityTag: entityTag, modified: modified) {
        case .notModified:
            // A 304 has no body, and its length may only be that of the 200 (RFC 9110 §8.6).
            return FileHead(status: .notModified, headers: headers, body: 0..<0)
        case .unsatisfiable:
            return nil
        case .whole:
            (status, range) = (.ok, 0..<size)
        case .part(let part):
            (status, range) = (.partialContent, Range(part))
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(size)"
        }
        headers[.contentLength] = String(range.count)
        return FileHead(status: status, headers: headers, body: method == .head ? 0..<0 : range)
    }

    func response(to request: Request, context: some RequestContext, fileIO: FileIO = FileIO()) async throws -> Response {
        guard let head = head(method: request.method, headers: request.headers) else {
            var response = try APIError(
                .rangeNotSatisfiable, code: "range_not_satisfiable",
                message: "The range asked for starts past the end of the file (\(size) bytes)."
            ).response(from: request, context: context)
            response.headers[.contentRange] = "bytes */\(size)"
            response.headers[.acceptRanges] = "bytes"
            return response
        }
        guard !head.body.isEmpty else {
            var response = Response(status: head.status, headers: head.headers)
            // Response's initialiser gives an empty body a length; a 304's is the 200's or none.
            if head.status == .notModified { response.headers[.contentLength] = nil }
            return response
        }
        let range = head.body
        if let channel = (context as? AppRequestContext)?.channel {
            return Response(
                status: head.status, headers: head.headers,
                body: FileRegionBody.body(path: path, range: range, channel: channel))
        }
        let body = try await fileIO.loadFile(path: path, range: range.lowerBound...(range.upperBound - 1), context: context)
        return Response(status: head.status, headers: head.headers, body: body)
    }

    /// Decides from the request's method and headers alone; see the type's documentation.
    static func answer(method: HTTPRequest.Method, headers: HTTPFields, size: Int, entityTag: String, modified: Date)
        -> Answer
    {
        let ifNoneMatch = headers[values: .ifNoneMatch]
        if !ifNoneMatch.isEmpty {
            if entityTags(ifNoneMatch).contains(where: { $0 == "*" || weakMatch($0, entityTag) }) { return .notModified }
        } else if let since = headers[.ifModifiedSince].flatMap(HTTPDate.parse), modified <= since {
            return .notModified
        }
        guard method == .get, let header = headers[.range] else { return .whole }
        if let ifRange = headers[.ifRange], !ifRangeMatches(ifRange, entityTag: entityTag, modified: modified) {
            return .whole
        }
        switch parse(header, size: size) {
        case .ignored: return .whole
        case .satisfiable(let range): return .part(range)
        case .unsatisfiable: return .unsatisfiable
        }
    }

    /// `bytes=a-b`, `bytes=a-`, `bytes=-n` (RFC 9110 §14.1.1), clamped to the file.
    static func parse(_ header: String, size: Int) -> RangeRequest {
        guard let equals = header.firstIndex(of: "="),
            header[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == "bytes"
        else { return .ignored }
        // A list may have empty elements, which a recipient ignores (RFC 9110 §5.6.1.2).
        let specs = header[header.index(after: equals)...].split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard specs.count == 1, let dash = specs[0].firstIndex(of: "-") else { return .ignored }
        let first = specs[0][..<dash]
        let last = specs[0][specs[0].index(after: dash)...]
        if first.isEmpty {
            guard let suffix = number(last) else { return .ignored }
            guard suffix > 0 else { return .unsatisfiable }
            // The last bytes of an empty file are no bytes: the whole (empty) file.
            guard size > 0 else { return .ignored }
            return .satisfiable(max(0, size - suffix)...(size - 1))
        }
        guard let start = number(first) else { return .ignored }
        var end = Int.max
        if !last.isEmpty {
            guard let given = number(last), given >= start else { return .ignored }
            end = given
        }
        guard start < size else { return .unsatisfiable }
        return .satisfiable(start...min(end, size - 1))
    }

    /// Digits only; a number too large for `Int` is as good as infinite here.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text) ?? Int.max
    }

    /// The entity tags of `If-None-Match` lines, e.g. `"a", W/"b"` → `["\"a\"", "W/\"b\""]`.
    private static func entityTags(_ lines: [String]) -> [String] {
        lines.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private static func weakMatch(_ tag: String, _ entityTag: String) -> Bool {
        (tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag) == entityTag
    }

    /// Strong comparison for an entity tag (a weak one never matches); exact equality for a date.
    private static func ifRangeMatches(_ value: String, entityTag: String, modified: Date) -> Bool {
        let value = value.trimmingCharacters(in: .whitespaces)
        if value.hasPrefix("\"") || value.hasPrefix("W/") { return value == entityTag }
        return HTTPDate.parse(value) == modified
    }
}

/// A file as `stat(2)` tells it: a head made for one identity is true of the file while a new
/// `stat` of its path gives the same (``FileAnswers`` keeps heads so). A file written anew gets a
/// new inode or a new change time (`st_ctim`, which no one but the kernel sets), a file removed
/// no identity at all.
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64
    let size: Int
    let modifiedSeconds: Int
    let modifiedNanoseconds: Int
    let changedSeconds: Int
    let changedNanoseconds: Int

    /// Nil when `path` is missing or not a regular file.
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int(status.st_size)
        #if canImport(Glibc)
            (modifiedSeconds, modifiedNanoseconds) = (Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec))
            (changedSeconds, changedNanoseconds) = (Int(status.st_ctim.tv_sec), Int(status.st_ctim.tv_nsec))
        #else
            (modifiedSeconds, modifiedNanoseconds) = (Int(status.st_mtimespec.tv_sec), Int(status.st_mtimespec.tv_nsec))
            (changedSeconds, changedNanoseconds) = (Int(status.st_ctimespec.tv_sec), Int(status.st_ctimespec.tv_nsec))
        #endif
    }
}
