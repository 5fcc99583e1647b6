import Foundation
import PodiumCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Swift SDK's REST client: sign in, upload decks, start sessions.
///
/// The live socket speaks the message types of `PodiumCore` (``ClientMessage``, ``Welcome``,
/// ``SessionEvent``); see docs/protocol.md.
public struct PodiumAPI: Sendable {
    public let baseURL: URL
    public var token: String?
    private let session: URLSession

    /// The SDK signs in by token only: a cookie kept from a sign-in (to this or another server on
    /// the same host: cookies ignore ports) would make the server treat it as a browser.
    public static let cookielessSession: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        return URLSession(configuration: configuration)
    }()

    public init(baseURL: URL, token: String? = nil, session: URLSession = PodiumAPI.cookielessSession) {
        self.baseURL = baseURL
        self.token = token
        self.session = session
    }

    public struct Deck: Codable, Sendable {
        public var id: String
        public var title: String
        public var status: String
        public var pageCount: Int
        public var pages: [PageInfo]?
        public var error: APIErrorDetail?
    }

    public struct LiveSession: Codable, Sendable {
        public var id: String
        public var code: String
        public var joinUrl: String
        public var title: String
        public var hasPasscode: Bool
        public var allowDownload: Bool
        public var live: Bool
    }

    struct ErrorEnvelope: Decodable { let error: APIErrorDetail }

    public struct APIErrorDetail: Codable, Sendable, Error, Equatable {
        public var code: String
        public var message: String
    }

    /// Signs in and keeps the token for the following calls.
    public mutating func signIn(email: String, password: String) async throws {
        struct Body: Encodable {
            let email: String
            let password: String
        }
        struct Reply: Decodable { let token: String }
        token = try await send("POST", "api/v1/auth/login", json: Body(email: email, password: password), as: Reply.self).token
    }

    /// Uploads a PDF; the deck comes back `processing`.
    public func upload(pdf: Data, title: String? = nil) async throws -> Deck {
        var path = "api/v1/decks"
        if let title, let escaped = title.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) {
            path += "?title=\(escaped)"
        }
        return try await send("POST", path, body: pdf, contentType: "application/pdf", as: Deck.self)
    }

    public func deck(id: String) async throws -> Deck {
        try await send("GET", "api/v1/decks/\(id)", as: Deck.self)
    }

    /// Polls until the deck is `ready` or `failed`.
    public func waitUntilProcessed(deckId: String, pollEvery interval: Duration = .milliseconds(250)) async throws -> Deck {
        while true {
            let deck = try await deck(id: deckId)
            if deck.status != "processing" { return deck }
            try await Task.sleep(for: interval)
        }
    }

    public func startSession(deckId: String, passcode: String? = nil, allowDownload: Bool = false) async throws -> LiveSession {
        struct Body: Encodable {
            let deckId: String
            let passcode: String?
            let allowDownload: Bool
        }
        return try await send(
            "POST", "api/v1/sessions", json: Body(deckId: deckId, passcode: passcode, allowDownload: allowDownload),
            as: LiveSession.self)
    }

    public func liveSessions() async throws -> [LiveSession] {
        try await send("GET", "api/v1/sessions?live=true", as: [LiveSession].self)
    }

    /// The socket URL of a session, for a WebSocket client of your choice.
    public func liveURL(code: String) -> URL {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)!
        components.scheme = components.scheme == "https" ? "wss" : "ws"
        components.path = "/api/v1/sessions/\(code)/live"
        return components.url!
    }

    private func send<Reply: Decodable>(
        _ method: String, _ path: String, json: (some Encodable)? = String?.none, as: Reply.Type
    ) async throws -> Reply {
        try await send(
            method, path, body: try json.map { try JSONEncoder().encode($0) }, contentType: "application/json", as: Reply.self)
    }

    private func send<Reply: Decodable>(
        _ method: String, _ path: String, body: Data?, contentType: String, as: Reply.Type
    ) async throws -> Reply {
        var request = URLRequest(url: URL(string: path, relativeTo: baseURL)!)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw (try? JSONDecoder().decode(ErrorEnvelope.self, from: data).error)
                ?? APIErrorDetail(code: "http_\(status)", message: String(decoding: data, as: UTF8.self))
        }
        return try JSONDecoder().decode(Reply.self, from: data)
    }
}
