import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The channel's public API, for its own pages and for native apps (seed 004, Appendix B):
/// versions chosen by the `Accept` header, and answers a client may keep and revalidate.
enum ChannelAPI {
    /// The versions this server speaks, oldest first; the newest answers when none is asked for.
    static let supportedVersions = [1]
    static var newestVersion: Int { supportedVersions.last! }

    /// Keys sorted: the same content is the same bytes, so its entity tag stays the same.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    /// How long a client may keep an answer.
    enum CachePolicy {
        /// The same for everyone: kept, but checked again each time (a 304 costs nothing).
        case revalidate
        /// One person's (favourites, positions, scores): not kept.
        case personal
    }

    /// The version the request asks for: `application/vnd.podium.v<N>+json`, or the newest for
    /// `application/json`, `*/*` or no `Accept`. An `Accept` this server cannot answer gets 406
    /// `unsupported_version`, naming the versions it has.
    static func version(of request: Request) throws -> (version: Int, explicit: Bool) {
        guard let accept = request.headers[.accept], !accept.trimmingCharacters(in: .whitespaces).isEmpty else {
            return (newestVersion, false)
        }
        var generic = false
        var asked: [Int] = []
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first else { continue }
            if parts.dropFirst().contains(where: { $0.replacingOccurrences(of: " ", with: "") == "q=0" }) { continue }
            if type == "application/json" || type == "application/*" || type == "*/*" {
                generic = true
            } else if type.hasPrefix("application/vnd.podium.v"), type.hasSuffix("+json"),
                let number = Int(type.dropFirst("application/vnd.podium.v".count).dropLast("+json".count))
            {
                asked.append(number)
            }
        }
        if let chosen = asked.filter(supportedVersions.contains).max() { return (chosen, true) }
        if generic { return (newestVersion, false) }
        let list = supportedVersions.map { "application/vnd.podium.v\($0)+json" }.joined(separator: ", ")
        throw APIError(
            .notAcceptable, code: "unsupported_version",
            message: "This server speaks \(list) (or application/json for the newest).")
    }

    /// Encodes `body` in the asked version's media type with its validators, or answers 304 Not
    /// Modified when the client's copy is current (`If-None-Match`, else `If-Modified-Since`).
    static func respond(
        _ body: some Encodable, lastModified: Date?, to request: Request, context: AppRequestContext,
        cache: CachePolicy = .revalidate
    ) throws -> Response {
        let (version, explicit) = try version(of: request)
        let data = try encoder.encode(body)
        let digest = SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined()
        let entityTag = "\"v\(version)-\(digest)\""
        var headers = HTTPFields()
        headers[.vary] = "Accept"
        headers[.eTag] = entityTag
        headers[.cacheControl] = cache == .personal ? "private, no-store" : "no-cache"
        let modified = lastModified.map(HTTPDate.truncated)
        if let modified { headers[.lastModified] = HTTPDate.format(modified) }
        if isCurrent(request.headers, entityTag: entityTag, modified: modified) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = explicit ? "application/vnd.podium.v\(version)+json" : "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Whether the client's copy is current: `If-None-Match` decides when sent (RFC 9110 13.2.2),
    /// else `If-Modified-Since`.
    static func isCurrent(_ headers: HTTPFields, entityTag: String, modified: Date?) -> Bool {
        if let match = headers[.ifNoneMatch] {
            let tags = match.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return tags.contains("*") || tags.contains { $0.replacingOccurrences(of: "W/", with: "") == entityTag }
        }
        if let since = headers[.ifModifiedSince].flatMap(HTTPDate.parse), let modified {
            return modified <= since
        }
        return false
    }

    /// A page of a list: `?limit=` (1…100, 50 unless given) and `?offset=` (0 or more); anything
    /// else is a 400 that says what was wrong.
    static func page(_ request: Request) throws -> (limit: Int, offset: Int) {
        let query = request.uri.queryParameters
        var limit = 50
        var offset = 0
        if let text = query.get("limit") {
            guard let value = Int(text), (1...100).contains(value) else {
                throw APIError.badRequest("limit is a whole number from 1 to 100.")
            }
            limit = value
        }
        if let text = query.get("offset") {
            guard let value = Int(text), value >= 0 else { throw APIError.badRequest("offset is a whole number, 0 or more.") }
            offset = value
        }
        return (limit, offset)
    }
}
