import Foundation
// The wire types (Deck, Folder, User, …) are the SDK's own: a client that imports PodiumClient sees them.
@_exported import PodiumWire
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Swift SDK: every REST endpoint of `Public/openapi.yaml` as a typed async call, and the
/// live sockets as ``PodiumLiveSession`` and ``StoryboardLiveSession`` (one live stream under
/// both).
///
/// ```swift
/// let podium = PodiumClient(baseURL: URL(string: "http://podium.local:8080")!)
/// try await podium.signIn(email: "admin", password: "…")
/// let deck = try await podium.uploadDeck(file: pdfURL).deck
/// let ready = try await podium.waitUntilReady(deck: deck.id)
/// let session = try await podium.startSession(deckId: ready.id)
/// ```
///
/// Calls are grouped by area in extensions (`Auth.swift`, `Library.swift`, `Sessions.swift`…).
/// A refusal throws ``PodiumError`` (the server's code, message and status); a server that
/// cannot be reached, or answers something else, throws ``PodiumTransportError``.
public final class PodiumClient: Sendable {
    public let baseURL: URL
    let session: URLSession
    private let tokenBox: Mutex<String?>
    let uploadBox = Mutex(UploadClientState())

    /// The bearer token sent with every call (set by ``signIn(email:password:)``).
    public var token: String? {
        get { tokenBox.withLock { $0 } }
        set { tokenBox.withLock { $0 = newValue } }
    }

    /// The SDK signs in by token only: a cookie kept from a sign-in (to this or another server on
    /// the same host: cookies ignore ports) would make the server treat it as a browser.
    public static func cookielessConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        return configuration
    }

    static let sharedSession = URLSession(configuration: cookielessConfiguration())

    public init(baseURL: URL, token: String? = nil) {
        self.baseURL = baseURL
        self.session = Self.sharedSession
        self.tokenBox = Mutex(token)
    }

    // MARK: - JSON

    static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            if let seconds = try? container.decode(Double.self) { return Date(timeIntervalSince1970: seconds) }
            let text = try container.decode(String.self)
            if let date = try? Date(text, strategy: .iso8601) { return date }
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
                return date
            }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date: \(text)")
        }
        return decoder
    }

    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    // MARK: - Requests

    /// A request of `endpoint` with its path parameters and query filled in.
    func request(
        _ endpoint: Endpoint, _ parameters: [String: String] = [:], query: [String: String?] = [:],
        body: Data? = nil, contentType: String? = nil, headers: [String: String] = [:]
    ) throws -> URLRequest {
        let path = try endpoint.resolve(parameters)
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw PodiumTransportError(.unreachable, "not a URL: \(baseURL)")
        }
        let prefix =
            components.percentEncodedPath.hasSuffix("/")
            ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        components.percentEncodedPath = prefix + path
        let items = query.sorted { $0.key < $1.key }.compactMap { key, value in value.map { URLQueryItem(name: key, value: $0) } }
        components.queryItems = items.isEmpty ? nil : items
        // URLComponents leaves a `+` bare in a query, and servers (Podium's too) read a bare `+`
        // as a space: a title "C++ basics" would arrive as "C   basics".
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else { throw PodiumTransportError(.unreachable, "bad URL for \(endpoint)") }
        var request = URLRequest(url: url)
        request.httpMethod = endpoint.method
        request.httpBody = body
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// Performs a request; a status outside 2xx becomes ``PodiumError``.
    func perform(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw PodiumTransportError(.unreachable, "\(request.url?.absoluteString ?? ""): \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw PodiumTransportError(.badResponse, "not an HTTP answer")
        }
        try Self.check(status: http.statusCode, body: data)
        return (data, http)
    }

    struct ErrorEnvelope: Decodable {
        struct Detail: Decodable {
            let code: String
            let message: String?
            let retryAfter: Int?
        }
        let error: Detail
    }

    static func check(status: Int, body: Data) throws {
        guard !(200..<300).contains(status) else { return }
        if let envelope = try? JSONDecoder().decode(ErrorEnvelope.self, from: body) {
            throw PodiumError(
                code: envelope.error.code, message: envelope.error.message ?? "", status: status,
                retryAfter: envelope.error.retryAfter)
        }
        throw PodiumError(code: "http_\(status)", message: String(decoding: body.prefix(500), as: UTF8.self), status: status)
    }

    static func decode<Reply: Decodable>(_ type: Reply.Type, from data: Data, _ what: @autoclosure () -> String) throws -> Reply {
        do {
            return try makeDecoder().decode(Reply.self, from: data)
        } catch {
            throw PodiumTransportError(.badResponse, "\(what()): \(error)")
        }
    }

    /// A JSON call: `json` (if any) as the body, the answer decoded as `Reply`.
    func call<Reply: Decodable>(
        _ endpoint: Endpoint, _ parameters: [String: String] = [:], query: [String: String?] = [:],
        json: (some Encodable)? = Empty?.none, as: Reply.Type = Reply.self
    ) async throws -> Reply {
        let body = try json.map { try Self.makeEncoder().encode($0) }
        let request = try request(
            endpoint, parameters, query: query, body: body, contentType: body == nil ? nil : "application/json")
        let (data, _) = try await perform(request)
        return try Self.decode(Reply.self, from: data, "\(endpoint)")
    }

    /// A call whose answer has no body worth reading (204, or an object the caller ignores).
    func callIgnoringReply(
        _ endpoint: Endpoint, _ parameters: [String: String] = [:], query: [String: String?] = [:],
        json: (some Encodable)? = Empty?.none
    ) async throws {
        let body = try json.map { try Self.makeEncoder().encode($0) }
        let request = try request(
            endpoint, parameters, query: query, body: body, contentType: body == nil ? nil : "application/json")
        _ = try await perform(request)
    }

    /// The raw bytes of a GET (CSV, Markdown, a blob).
    func bytes(_ endpoint: Endpoint, _ parameters: [String: String] = [:], query: [String: String?] = [:]) async throws
        -> Data
    {
        try await perform(try request(endpoint, parameters, query: query)).0
    }

    struct Empty: Codable, Sendable {}
}

extension PodiumClient {
    /// A call whose answer the SDK passes on as ``JSONValue`` (`.null` for an empty body, a 204).
    func callJSON(
        _ endpoint: Endpoint, _ parameters: [String: String] = [:], query: [String: String?] = [:], body: JSONValue? = nil
    ) async throws -> JSONValue {
        let data = try body.map { try Self.makeEncoder().encode($0) }
        let request = try request(
            endpoint, parameters, query: query, body: data, contentType: data == nil ? nil : "application/json")
        let (reply, _) = try await perform(request)
        if reply.isEmpty { return .null }
        return try Self.decode(JSONValue.self, from: reply, "\(endpoint)")
    }

    /// Sends a file as the raw body of `endpoint` and passes the answer on as ``JSONValue``.
    func uploadJSON(
        _ endpoint: Endpoint, _ parameters: [String: String] = [:], query: [String: String?] = [:], file: URL,
        contentType: String = "application/octet-stream", progress: ProgressHandler? = nil
    ) async throws -> JSONValue {
        let request = try request(endpoint, parameters, query: query, contentType: contentType)
        let (reply, _) = try await upload(request, file: file, data: nil, progress: progress)
        if reply.isEmpty { return .null }
        return try Self.decode(JSONValue.self, from: reply, "\(endpoint)")
    }
}
