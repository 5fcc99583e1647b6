import Crypto
import Foundation
import Synchronization
import Testing
import _CryptoExtras

@testable import PodiumServer

/// Tokens signed here, with keys made here, verified as a provider's would be.
@Suite("JSON Web Tokens")
struct JSONWebTokenTests {
    /// One 2048-bit key for the suite: making one takes a noticeable moment.
    static let rsa = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let otherRSA = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func payload(_ claims: [String: Any]) -> Data {
        try! JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
    }

    static var claims: [String: Any] {
        ["iss": "https://idp.example", "sub": "alice", "exp": now.timeIntervalSince1970 + 300]
    }

    static func keySet(_ keys: [(keyID: String, key: _RSA.Signing.PublicKey)]) throws -> JSONWebKeySet {
        try JSONWebKeySet(json: JSONWebKeySet.publicJSON(keys: keys))
    }

    /// A compact token with the given header, payload and ES256 signature by `key`.
    static func es256(_ claims: [String: Any], key: P256.Signing.PrivateKey, keyID: String) throws -> String {
        let header = payload(["alg": "ES256", "kid": keyID])
        let input = Base64URL.encode(header) + "." + Base64URL.encode(payload(claims))
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    @Test func anRS256TokenSignedHereVerifiesAndGivesItsPayload() throws {
        let token = try JSONWebToken.signRS256(payload: Self.payload(Self.claims), key: Self.rsa, keyID: "k1")
        let keys = try Self.keySet([("k1", Self.rsa.publicKey)])
        let payload = try JSONWebToken.verify(token, keys: keys, now: Self.now)
        let object = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
        #expect(object["sub"] as? String == "alice")
    }

    @Test func aTamperedPayloadOrSignatureIsRefused() throws {
        let token = try JSONWebToken.signRS256(payload: Self.payload(Self.claims), key: Self.rsa, keyID: "k1")
        let keys = try Self.keySet([("k1", Self.rsa.publicKey)])
        let parts = token.split(separator: ".").map(String.init)
        var claims = Self.claims
        claims["sub"] = "mallory"
        let forged = [parts[0], Base64URL.encode(Self.payload(claims)), parts[2]].joined(separator: ".")
        #expect(throws: JSONWebTokenError.badSignature) { try JSONWebToken.verify(forged, keys: keys, now: Self.now) }

        var signature = try #require(Base64URL.decode(parts[2]))
        signature[10] ^= 0x01
        let flipped = [parts[0], parts[1], Base64URL.encode(signature)].joined(separator: ".")
        #expect(throws: JSONWebTokenError.badSignature) { try JSONWebToken.verify(flipped, keys: keys, now: Self.now) }
    }

    @Test func aTokenSignedByAnotherKeyWithTheSameIdIsRefused() throws {
        let token = try JSONWebToken.signRS256(payload: Self.payload(Self.claims), key: Self.otherRSA, keyID: "k1")
        let keys = try Self.keySet([("k1", Self.rsa.publicKey)])
        #expect(throws: JSONWebTokenError.badSignature) { try JSONWebToken.verify(token, keys: keys, now: Self.now) }
    }

    @Test func anUnknownKeyIdIsSaidSo() throws {
        let token = try JSONWebToken.signRS256(payload: Self.payload(Self.claims), key: Self.rsa, keyID: "k2")
        let keys = try Self.keySet([("k1", Self.rsa.publicKey)])
        #expect(throws: JSONWebTokenError.unknownKey("k2")) { try JSONWebToken.verify(token, keys: keys, now: Self.now) }
    }

    @Test func algNoneAndHMACAreNeverAccepted() throws {
        let keys = try Self.keySet([("k1", Self.rsa.publicKey)])
        let body = Base64URL.encode(Self.payload(Self.claims))
        let none = Base64URL.encode(Self.payload(["alg": "none", "kid": "k1"])) + "." + body + "."
        #expect(throws: JSONWebTokenError.unsupportedAlgorithm("none")) {
            try JSONWebToken.verify(none, keys: keys, now: Self.now)
        }
        // The classic confusion: an HMAC "signed" with the public key's bytes.
        let hsInput = Base64URL.encode(Self.payload(["alg": "HS256", "kid": "k1"])) + "." + body
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data(hsInput.utf8), using: SymmetricKey(data: Self.rsa.publicKey.pkcs1DERRepresentation))
        let hs = hsInput + "." + Base64URL.encode(Data(mac))
        #expect(throws: JSONWebTokenError.unsupportedAlgorithm("HS256")) {
            try JSONWebToken.verify(hs, keys: keys, now: Self.now)
        }
    }

    @Test func expiryAndNotBeforeAreCheckedWithTheLeeway() throws {
        let keys = try Self.keySet([("k1", Self.rsa.publicKey)])
        func token(_ claims: [String: Any]) throws -> String {
            try JSONWebToken.signRS256(payload: Self.payload(claims), key: Self.rsa, keyID: "k1")
        }
        let t = Self.now.timeIntervalSince1970
        #expect(throws: JSONWebTokenError.expired) {
            try JSONWebToken.verify(try token(["exp": t - 61]), keys: keys, now: Self.now)
        }
        _ = try JSONWebToken.verify(try token(["exp": t - 59]), keys: keys, now: Self.now)
        #expect(throws: JSONWebTokenError.expired) {
            try JSONWebToken.verify(try token(["sub": "no exp"]), keys: keys, now: Self.now)
        }
        #expect(throws: JSONWebTokenError.notYetValid) {
            try JSONWebToken.verify(try token(["exp": t + 600, "nbf": t + 120]), keys: keys, now: Self.now)
        }
        _ = try JSONWebToken.verify(try token(["exp": t + 600, "nbf": t + 30]), keys: keys, now: Self.now)
        #expect(throws: JSONWebTokenError.malformed) {
            try JSONWebToken.verify(try token(["exp": "tomorrow"]), keys: keys, now: Self.now)
        }
    }

    @Test func malformedTokensAreSaidSo() throws {
        let keys = try Self.keySet([("k1", Self.rsa.publicKey)])
        for text in ["", "a.b", "a.b.c.d", "!!.??.##", "e30.e30"] {
            #expect(throws: JSONWebTokenError.malformed) { try JSONWebToken.verify(text, keys: keys, now: Self.now) }
        }
    }

    @Test func anES256TokenVerifiesWithItsP256Key() throws {
        let ec = P256.Signing.PrivateKey()
        let raw = ec.publicKey.rawRepresentation
        let jwks = Self.payload([
            "keys": [
                [
                    "kty": "EC", "crv": "P-256", "kid": "ec1", "use": "sig",
                    "x": Base64URL.encode(raw.prefix(32)), "y": Base64URL.encode(raw.suffix(32)),
                ]
            ]
        ])
        let keys = try JSONWebKeySet(json: jwks)
        let token = try Self.es256(Self.claims, key: ec, keyID: "ec1")
        _ = try JSONWebToken.verify(token, keys: keys, now: Self.now)
        let other = try Self.es256(Self.claims, key: P256.Signing.PrivateKey(), keyID: "ec1")
        #expect(throws: JSONWebTokenError.badSignature) { try JSONWebToken.verify(other, keys: keys, now: Self.now) }
        // An RS256 header cannot borrow the EC key.
        let rs = try JSONWebToken.signRS256(payload: Self.payload(Self.claims), key: Self.rsa, keyID: "ec1")
        #expect(throws: JSONWebTokenError.unknownKey("ec1")) { try JSONWebToken.verify(rs, keys: keys, now: Self.now) }
    }

    @Test func theKeySetSkipsEncryptionKeysAndUnknownTypes() throws {
        let published = try #require(
            try JSONSerialization.jsonObject(with: JSONWebKeySet.publicJSON(keys: [("k1", Self.rsa.publicKey)]))
                as? [String: [[String: String]]])
        var encryption = try #require(published["keys"]?.first)
        encryption["use"] = "enc"
        encryption["kid"] = "enc"
        let json = Self.payload(["keys": [encryption, ["kty": "oct", "k": "c2VjcmV0", "kid": "hmac"]]])
        let keys = try JSONWebKeySet(json: json)
        #expect(!keys.contains(keyID: "enc"))
        #expect(!keys.contains(keyID: "hmac"))
        #expect(throws: (any Error).self) { try JSONWebKeySet(json: Data("[]".utf8)) }
    }

    /// A fetch counted, answering whatever set it is given.
    final class Provider: Sendable {
        let state = Mutex<(count: Int, json: Data)>((0, Data()))
        func fetch(_ url: URL) -> Data {
            state.withLock {
                $0.count += 1
                return $0.json
            }
        }
    }

    @Test func theCacheAsksAgainForAnUnknownKeyAtMostOnceAMinute() async throws {
        let provider = Provider()
        provider.state.withLock { $0.json = JSONWebKeySet.publicJSON(keys: [("k1", Self.rsa.publicKey)]) }
        let clock = Mutex(Self.now)
        let cache = JSONWebKeySetCache(
            fetch: { provider.fetch($0) }, now: { clock.withLock { $0 } })
        let url = URL(string: "https://idp.example/jwks")!

        #expect(try await cache.keys(at: url, needing: "k1").contains(keyID: "k1"))
        _ = try await cache.keys(at: url, needing: "k1")
        _ = try await cache.keys(at: url, needing: nil)
        #expect(provider.state.withLock { $0.count } == 1)

        // The provider rotates: k2 appears. The first unknown id asks again (a minute after the first fetch).
        provider.state.withLock {
            $0.json = JSONWebKeySet.publicJSON(keys: [("k1", Self.rsa.publicKey), ("k2", Self.otherRSA.publicKey)])
        }
        clock.withLock { $0 += 30 }
        #expect(try await !cache.keys(at: url, needing: "k2").contains(keyID: "k2"))
        #expect(provider.state.withLock { $0.count } == 1)
        clock.withLock { $0 += 31 }
        #expect(try await cache.keys(at: url, needing: "k2").contains(keyID: "k2"))
        #expect(provider.state.withLock { $0.count } == 2)

        // Made-up ids do not hammer the provider.
        for id in ["x", "y", "z"] { _ = try await cache.keys(at: url, needing: id) }
        #expect(provider.state.withLock { $0.count } == 2)
        clock.withLock { $0 += 61 }
        _ = try await cache.keys(at: url, needing: "x")
        #expect(provider.state.withLock { $0.count } == 3)
    }
}
