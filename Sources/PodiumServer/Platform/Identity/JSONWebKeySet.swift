import Crypto
import Foundation
import _CryptoExtras

/// A JSON Web Key Set (RFC 7517) of signature keys: RSA (`kty` RSA, for RS256) and P-256
/// (`kty` EC, `crv` P-256, for ES256). Keys of other types, or marked for encryption only
/// (`use` enc), are skipped, as RFC 7517 §5 lets a reader do.
public struct JSONWebKeySet: Sendable {
    struct Key: Sendable {
        enum Material: Sendable {
            case rsa(_RSA.Signing.PublicKey)
            /// The point's raw x||y (swift-crypto's P256 keys are not Sendable; this is remade per use).
            case p256(Data)
        }
        var keyID: String?
        var material: Material
    }

    var keys: [Key]

    public enum ParseError: Error, Sendable { case notAKeySet }

    /// Reads `{"keys": [...]}`; a key it cannot use is skipped, a document that is not a key set throws.
    public init(json: Data) throws {
        guard let object = try? JSONDecoder().decode(Document.self, from: json) else { throw ParseError.notAKeySet }
        keys = object.keys.compactMap { jwk in
            if let use = jwk.use, use != "sig" { return nil }
            switch jwk.kty {
            case "RSA":
                guard jwk.alg == nil || jwk.alg == "RS256",
                    let n = jwk.n.flatMap(Base64URL.decode), let e = jwk.e.flatMap(Base64URL.decode),
                    let key = try? _RSA.Signing.PublicKey(n: n, e: e), key.keySizeInBits >= 2048
                else { return nil }
                return Key(keyID: jwk.kid, material: .rsa(key))
            case "EC":
                guard jwk.crv == "P-256", jwk.alg == nil || jwk.alg == "ES256",
                    let x = jwk.x.flatMap(Base64URL.decode), let y = jwk.y.flatMap(Base64URL.decode),
                    x.count == 32, y.count == 32,
                    (try? P256.Signing.PublicKey(rawRepresentation: x + y)) != nil
                else { return nil }
                return Key(keyID: jwk.kid, material: .p256(x + y))
            default:
                return nil
            }
        }
    }

    init(keys: [Key]) { self.keys = keys }

    /// The key set document publishing `keys` (RS256 signature keys), as a tool's JWKS URL serves it.
    public static func publicJSON(keys: [(keyID: String, key: _RSA.Signing.PublicKey)]) -> Data {
        let jwks: [[String: String]] = keys.compactMap { entry in
            guard let primitives = try? entry.key.getKeyPrimitives() else { return nil }
            return [
                "kty": "RSA", "use": "sig", "alg": "RS256", "kid": entry.keyID,
                "n": Base64URL.encode(primitives.modulus), "e": Base64URL.encode(primitives.publicExponent),
            ]
        }
        return (try? JSONSerialization.data(withJSONObject: ["keys": jwks], options: [.sortedKeys])) ?? Data()
    }

    /// Whether a key has this id (a token naming an id not here asks for the set again).
    public func contains(keyID: String) -> Bool { keys.contains { $0.keyID == keyID } }

    /// The RSA key of `keyID`; without an id, the set's only RSA key.
    func rsaKey(_ keyID: String?) -> _RSA.Signing.PublicKey? {
        let candidates: [_RSA.Signing.PublicKey] = keys.compactMap { key in
            guard case .rsa(let rsa) = key.material, keyID == nil || key.keyID == keyID else { return nil }
            return rsa
        }
        return candidates.count == 1 ? candidates[0] : (keyID != nil ? candidates.first : nil)
    }

    /// The P-256 key of `keyID`; without an id, the set's only P-256 key.
    func p256Key(_ keyID: String?) -> P256.Signing.PublicKey? {
        let candidates: [P256.Signing.PublicKey] = keys.compactMap { key in
            guard case .p256(let raw) = key.material, keyID == nil || key.keyID == keyID else { return nil }
            return try? P256.Signing.PublicKey(rawRepresentation: raw)
        }
        return candidates.count == 1 ? candidates[0] : (keyID != nil ? candidates.first : nil)
    }

    private struct Document: Decodable {
        var keys: [JWK]
    }

    private struct JWK: Decodable {
        var kty: String
        var kid: String?
        var use: String?
        var alg: String?
        var n: String?
        var e: String?
        var crv: String?
        var x: String?
        var y: String?
    }
}

/// Key sets fetched by URL and kept: a token whose `kid` the kept set lacks asks for the set again
/// (the provider rotated its keys), at most once a minute per URL, so tokens naming made-up ids
/// cannot make the server hammer the provider.
public actor JSONWebKeySetCache {
    private let fetch: @Sendable (URL) async throws -> Data
    private let now: @Sendable () -> Date
    /// The shortest time between two fetches of one URL when the kept set lacks a wanted id.
    public static let refetchInterval: TimeInterval = 60
    private var entries: [URL: (set: JSONWebKeySet, fetchedAt: Date)] = [:]

    public init(fetch: @escaping @Sendable (URL) async throws -> Data, now: @escaping @Sendable () -> Date = Date.init) {
        self.fetch = fetch
        self.now = now
    }

    /// The key set at `url`: the kept one, unless it lacks `keyID` and the last fetch is a minute old.
    public func keys(at url: URL, needing keyID: String?) async throws -> JSONWebKeySet {
        if let entry = entries[url] {
            let lacking = keyID.map { !entry.set.contains(keyID: $0) } ?? false
            if !lacking || now().timeIntervalSince(entry.fetchedAt) < Self.refetchInterval { return entry.set }
        }
        let fetchedAt = now()
        let set = try JSONWebKeySet(json: try await fetch(url))
        // Another call may have fetched meanwhile (the actor is re-entered across the await): the newer stays.
        if let entry = entries[url], entry.fetchedAt > fetchedAt { return entry.set }
        entries[url] = (set, fetchedAt)
        return set
    }
}
