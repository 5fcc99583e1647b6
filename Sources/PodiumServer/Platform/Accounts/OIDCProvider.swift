import Crypto
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP exchange with the provider: the answer's body and status.
typealias OIDCHTTP = @Sendable (URLRequest) async throws -> (Data, Int)

/// Why a sign-in with the provider failed; `code` is what the sign-in page shows (in the person's
/// language), the description goes to the log.
struct OIDCFailure: Error, CustomStringConvertible {
    enum Code: String {
        /// The person (or the provider) said no.
        case denied
        /// In none of the groups allowed to sign in.
        case notAllowed = "not_allowed"
        /// The sign-in's state did not match: started elsewhere, too old, or replayed.
        case state
        /// The provider could not be reached or answered wrongly; the ID token was refused.
        case failed
        /// The provider's address belongs to a local account and is not verified there.
        case emailTaken = "email_taken"
    }

    let code: Code
    let description: String
}

/// The provider as Podium's client sees it: its discovery document, its token endpoint, its keys.
/// Discovery is kept an hour; keys as ``JSONWebKeySetCache`` keeps them.
actor OIDCProvider {
    struct Discovery: Decodable, Sendable {
        let issuer: String
        let authorizationEndpoint: String
        let tokenEndpoint: String
        let jwksUri: String
        let userinfoEndpoint: String?
        let tokenEndpointAuthMethodsSupported: [String]?
        let codeChallengeMethodsSupported: [String]?
    }

    /// The ID token's claims that Podium reads, with every claim kept for the groups.
    struct Identity: Sendable {
        let subject: String
        let email: String?
        let emailVerified: Bool
        let name: String?
        let groups: Set<String>
    }

    let settings: OIDCSettings
    private let http: OIDCHTTP
    private let now: @Sendable () -> Date
    private let keys: JSONWebKeySetCache
    private var discovery: (document: Discovery, fetchedAt: Date)?

    init(settings: OIDCSettings, http: @escaping OIDCHTTP = OIDCProvider.urlSession, now: @escaping @Sendable () -> Date) {
        self.settings = settings
        self.http = http
        self.now = now
        keys = JSONWebKeySetCache(
            fetch: { url in
                var request = URLRequest(url: url, timeoutInterval: 10)
                request.setValue("application/json", forHTTPHeaderField: "Accept")
                let (data, status) = try await http(request)
                guard status == 200 else { throw OIDCFailure(code: .failed, description: "key set: HTTP \(status)") }
                return data
            }, now: now)
    }

    /// FoundationNetworking's URLSession, without following redirects' bodies beyond what it does.
    static let urlSession: OIDCHTTP = { request in
        try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: (data ?? Data(), (response as? HTTPURLResponse)?.statusCode ?? 0))
                }
            }.resume()
        }
    }

    func discovered() async throws -> Discovery {
        if let discovery, now().timeIntervalSince(discovery.fetchedAt) < 3600 { return discovery.document }
        let base = settings.issuer.hasSuffix("/") ? String(settings.issuer.dropLast()) : settings.issuer
        guard let url = URL(string: base + "/.well-known/openid-configuration") else {
            throw OIDCFailure(code: .failed, description: "the issuer \(settings.issuer) is no URL")
        }
        let (data, status) = try await http(URLRequest(url: url, timeoutInterval: 10))
        guard status == 200 else { throw OIDCFailure(code: .failed, description: "discovery: HTTP \(status)") }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let document: Discovery
        do { document = try decoder.decode(Discovery.self, from: data) } catch {
            throw OIDCFailure(code: .failed, description: "discovery: \(error)")
        }
        // OpenID Connect Discovery §4.3: the document's issuer is the one asked for.
        guard trimmed(document.issuer) == trimmed(settings.issuer) else {
            throw OIDCFailure(code: .failed, description: "discovery names the issuer \(document.issuer), not \(settings.issuer)")
        }
        discovery = (document, now())
        return document
    }

    /// Where the browser goes to sign in: the code flow with PKCE (S256), `state` and `nonce`.
    func authorizationURL(redirectURI: String, state: String, nonce: String, verifier: String) async throws -> String {
        let document = try await discovered()
        guard var components = URLComponents(string: document.authorizationEndpoint) else {
            throw OIDCFailure(code: .failed, description: "authorization endpoint is no URL")
        }
        components.queryItems =
            (components.queryItems ?? []) + [
                URLQueryItem(name: "response_type", value: "code"),
                URLQueryItem(name: "client_id", value: settings.clientId),
                URLQueryItem(name: "redirect_uri", value: redirectURI),
                URLQueryItem(name: "scope", value: settings.scopes.joined(separator: " ")),
                URLQueryItem(name: "state", value: state),
                URLQueryItem(name: "nonce", value: nonce),
                URLQueryItem(name: "code_challenge", value: Self.challenge(verifier)),
                URLQueryItem(name: "code_challenge_method", value: "S256"),
            ]
        // `+` would read as a space: form-encode it as the query's other reserved characters are.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.string else { throw OIDCFailure(code: .failed, description: "authorization URL") }
        return url
    }

    /// PKCE's S256 challenge of a verifier (RFC 7636 §4.2).
    static func challenge(_ verifier: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// Exchanges the code at the token endpoint and returns the proven identity: the ID token's
    /// signature (the provider's key set), `iss`, `aud` (and `azp`), `exp`, `nonce` checked.
    func redeem(code: String, redirectURI: String, verifier: String, nonce: String) async throws -> Identity {
        let document = try await discovered()
        guard let tokenURL = URL(string: document.tokenEndpoint) else {
            throw OIDCFailure(code: .failed, description: "token endpoint is no URL")
        }
        var form = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("code_verifier", verifier),
        ]
        var request = URLRequest(url: tokenURL, timeoutInterval: 10)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let methods = document.tokenEndpointAuthMethodsSupported ?? ["client_secret_basic"]
        if methods.contains("client_secret_basic") || !methods.contains("client_secret_post") {
            // RFC 6749 §2.3.1: the id and secret form-encoded, then Basic.
            let credentials = Self.formEncode(settings.clientId) + ":" + Self.formEncode(settings.clientSecret)
            request.setValue("Basic " + Data(credentials.utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        } else {
            form += [("client_id", settings.clientId), ("client_secret", settings.clientSecret)]
        }
        request.httpBody = Data(form.map { Self.formEncode($0.0) + "=" + Self.formEncode($0.1) }.joined(separator: "&").utf8)
        let (data, status) = try await http(request)
        struct TokenAnswer: Decodable {
            let id_token: String?
            let access_token: String?
            let error: String?
        }
        let answer = try? JSONDecoder().decode(TokenAnswer.self, from: data)
        guard status == 200, let idToken = answer?.id_token else {
            throw OIDCFailure(
                code: .failed,
                description:
                    "token endpoint: HTTP \(status) \(answer?.error ?? String(decoding: data.prefix(200), as: UTF8.self))")
        }
        var claims = try await verifiedClaims(idToken, issuer: document.issuer, jwksURI: document.jwksUri, nonce: nonce)
        // Some providers put the address or the groups in the UserInfo answer only.
        if claims["email"] == nil || claims[settings.groupsClaim] == nil, let endpoint = document.userinfoEndpoint,
            let accessToken = answer?.access_token, let more = try? await userInfo(endpoint, accessToken: accessToken),
            more["sub"] as? String == claims["sub"] as? String
        {
            for (name, value) in more where claims[name] == nil { claims[name] = value }
        }
        return identity(claims)
    }

    /// The identity an ID token proves for this client and this sign-in.
    func verify(_ idToken: String, issuer: String, jwksURI: String, nonce: String) async throws -> Identity {
        identity(try await verifiedClaims(idToken, issuer: issuer, jwksURI: jwksURI, nonce: nonce))
    }

    /// The ID token's claims once it is proven for this client and this sign-in.
    private func verifiedClaims(_ idToken: String, issuer: String, jwksURI: String, nonce: String) async throws -> [String: Any] {
        guard let jwksURL = URL(string: jwksURI) else { throw OIDCFailure(code: .failed, description: "jwks_uri is no URL") }
        let keyID = Self.keyID(idToken)
        let keySet = try await keys.keys(at: jwksURL, needing: keyID)
        let payload: Data
        do { payload = try JSONWebToken.verify(idToken, keys: keySet, now: now()) } catch {
            throw OIDCFailure(code: .failed, description: "ID token refused: \(error)")
        }
        return try Self.check(payload, issuer: issuer, clientId: settings.clientId, nonce: nonce)
    }

    /// OpenID Connect Core §3.1.3.7: `iss` is the provider's, `aud` holds this client (and with
    /// other audiences, `azp` is this client), `nonce` is the one this sign-in sent, `sub` is there.
    static func check(_ payload: Data, issuer: String, clientId: String, nonce: String) throws -> [String: Any] {
        guard let claims = (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any] else {
            throw OIDCFailure(code: .failed, description: "ID token: no claims")
        }
        guard claims["iss"] as? String == issuer else {
            throw OIDCFailure(code: .failed, description: "ID token: iss \(claims["iss"] ?? "none") is not \(issuer)")
        }
        let audiences: [String] =
            switch claims["aud"] {
            case let one as String: [one]
            case let many as [Any]: many.compactMap { $0 as? String }
            default: []
            }
        guard audiences.contains(clientId) else {
            throw OIDCFailure(code: .failed, description: "ID token: aud is not this client")
        }
        if audiences.count > 1, claims["azp"] as? String != clientId {
            throw OIDCFailure(code: .failed, description: "ID token: azp is not this client")
        }
        guard let sent = claims["nonce"] as? String, constantTimeEqual(sent, nonce) else {
            throw OIDCFailure(code: .failed, description: "ID token: nonce does not match")
        }
        guard let subject = claims["sub"] as? String, !subject.isEmpty else {
            throw OIDCFailure(code: .failed, description: "ID token: no sub")
        }
        return claims
    }

    func identity(_ claims: [String: Any]) -> Identity {
        let verified: Bool =
            switch claims["email_verified"] {
            case let flag as Bool: flag
            case let text as String: text == "true"
            default: false
            }
        let email = (claims["email"] as? String)?.trimmingCharacters(in: .whitespaces).lowercased()
        let name = (claims["name"] as? String) ?? (claims["preferred_username"] as? String)
        return Identity(
            subject: claims["sub"] as? String ?? "", email: email?.isEmpty == false ? email : nil, emailVerified: verified,
            name: name, groups: OIDCSettings.groups(from: claims[settings.groupsClaim]))
    }

    private func userInfo(_ endpoint: String, accessToken: String) async throws -> [String: Any] {
        guard let url = URL(string: endpoint) else { return [:] }
        var request = URLRequest(url: url, timeoutInterval: 10)
        request.setValue("Bearer " + accessToken, forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, status) = try await http(request)
        guard status == 200 else { return [:] }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    static func keyID(_ compact: String) -> String? {
        guard let header = compact.split(separator: ".").first, let bytes = Base64URL.decode(header) else { return nil }
        struct Header: Decodable { let kid: String? }
        return (try? JSONDecoder().decode(Header.self, from: bytes))?.kid
    }

    static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    private func trimmed(_ issuer: String) -> String { issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer }
}

func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8)
    let y = Array(b.utf8)
    guard x.count == y.count else { return false }
    return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
}
