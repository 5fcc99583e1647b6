import Crypto
import Foundation
import _CryptoExtras

/// Why a JSON Web Token was refused. The case says what failed; none carries the token itself.
public enum JSONWebTokenError: Error, Equatable, Sendable {
    /// Not three base64url parts, or a header or payload that is not a JSON object.
    case malformed
    /// An algorithm other than RS256 or ES256 (`none` above all), or one that does not fit the key.
    case unsupportedAlgorithm(String)
    /// No key in the set has the token's `kid` (or, without a `kid`, no single key fits).
    case unknownKey(String?)
    /// The signature does not verify with the key.
    case badSignature
    /// `exp` is past (beyond the leeway), or missing.
    case expired
    /// `nbf` (or `iat`) is in the future beyond the leeway.
    case notYetValid
}

/// Compact JSON Web Tokens (RFC 7519) signed with RS256 or ES256 (RFC 7518): verified against a
/// key set (OpenID Connect's ID tokens, LTI 1.3's launches) and signed with RS256 (LTI's own
/// messages and its key set).
///
/// `verify` checks the algorithm, the signature and the times; what the claims must say (`iss`,
/// `aud`, `nonce`, ...) is the caller's, which decodes the payload it returns.
public enum JSONWebToken {
    /// The payload's JSON bytes once the token is proven: its header's `alg` is RS256 or ES256
    /// (never `none`, never HMAC), its signature verifies with the key of its `kid` in `keys`
    /// (of the algorithm's key type), `exp` is present and not past `now - leeway`, and `nbf`, if
    /// any, is not after `now + leeway`.
    public static func verify(
        _ compact: String, keys: JSONWebKeySet, now: Date, leeway: TimeInterval = 60
    ) throws(JSONWebTokenError) -> Data {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerBytes = Base64URL.decode(parts[0]),
            let payloadBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            let header = try? JSONDecoder().decode(Header.self, from: headerBytes),
            (try? JSONSerialization.jsonObject(with: payloadBytes)) is [String: Any],
            let times = try? JSONDecoder().decode(Times.self, from: payloadBytes)
        else { throw .malformed }
        let alg = header.alg
        let keyID = header.kid
        let signingInput = Data(compact.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))

        switch alg {
        case "RS256":
            guard let key = keys.rsaKey(keyID) else { throw .unknownKey(keyID) }
            let valid = key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature),
                for: SHA256.hash(data: signingInput), padding: .insecurePKCS1v1_5)
            guard valid else { throw .badSignature }
        case "ES256":
            guard let key = keys.p256Key(keyID) else { throw .unknownKey(keyID) }
            guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
                key.isValidSignature(ecdsa, for: SHA256.hash(data: signingInput))
            else { throw .badSignature }
        default:
            throw .unsupportedAlgorithm(alg)
        }

        guard let exp = times.exp, now.timeIntervalSince1970 <= exp + leeway else { throw .expired }
        if let nbf = times.nbf, nbf > now.timeIntervalSince1970 + leeway {
            throw .notYetValid
        }
        return payloadBytes
    }

    /// A compact RS256 token of `payload` (a JSON object's bytes), its header naming `keyID`.
    public static func signRS256(payload: Data, key: _RSA.Signing.PrivateKey, keyID: String) throws -> String {
        let header = try JSONSerialization.data(
            withJSONObject: ["alg": "RS256", "typ": "JWT", "kid": keyID], options: [.sortedKeys])
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        let signature = try key.signature(
            for: SHA256.hash(data: Data(signingInput.utf8)), padding: .insecurePKCS1v1_5)
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }

    private struct Header: Decodable {
        var alg: String
        var kid: String?
    }

    /// The registered times (NumericDate: seconds since 1970); another type there is malformed.
    private struct Times: Decodable {
        var exp: Double?
        var nbf: Double?
    }
}

/// Base64url without padding (RFC 7515 §2), as JOSE writes it.
enum Base64URL {
    static func encode(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.contains("="), !base64.contains(where: { $0.isWhitespace }) else { return nil }
        switch base64.utf8.count % 4 {
        case 2: base64 += "=="
        case 3: base64 += "="
        case 1: return nil
        default: break
        }
        return Data(base64Encoded: base64)
    }
}
