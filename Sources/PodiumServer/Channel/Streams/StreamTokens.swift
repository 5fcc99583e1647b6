import Crypto
import Foundation

/// What a stream token grants: one resource (`video:<id>`, `radio:<id>`, `clip:<id>`) to one
/// viewer (a channel viewer's key, `user:<id>`, `session:<id>`) until a time.
struct StreamClaims: Sendable, Equatable {
    let resource: String
    let viewerKey: String
    let expiresAt: Date

    /// The resource's kind, which picks the ``StreamSource`` that serves it (`video`, `radio`, `clip`).
    var kind: Substring { resource.prefix { $0 != ":" } }
    /// The resource's id within its kind.
    var id: Substring { resource.drop { $0 != ":" }.dropFirst() }
}

enum StreamTokenError: Error, Equatable {
    /// Not made by this channel, or altered: 403.
    case forged
    /// Made here, but its time is over: 410, and the page asks for a new one.
    case expired
}

/// Signs the per-person stream URLs of the channel (`/stream/<token>/<file>`), so a link works
/// for one person for a while and then stops, and checking one costs an HMAC, not a database read.
///
/// A token is `<payload>.<mac>`, both base64url without padding: the payload is
/// `resource|viewerKey|expiry` (seconds since 1970), the MAC HMAC-SHA256 of the payload under the
/// channel's key. Playlists name their segments relatively, so every segment URL carries the
/// playlist's token.
struct StreamTokens: Sendable {
    /// The key's bytes (this version of `SymmetricKey` is not `Sendable`; one is made per use).
    let keyBytes: [UInt8]
    let lifetime: TimeInterval
    let now: @Sendable () -> Date

    /// The name of the key in the store's `channel_settings`.
    static let settingName = "stream_key"

    /// A new random key, as stored (hex).
    static func newKeyText() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { bytes in bytes.map { String(format: "%02x", $0) }.joined() }
    }

    /// The key from its stored text; nil if the text is not 32 bytes of hex.
    static func key(fromText text: String) -> [UInt8]? {
        guard text.count == 64 else { return nil }
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }

    private var key: SymmetricKey { SymmetricKey(data: keyBytes) }

    /// A token for `resource` given to `viewerKey`, good for `lifetime` (this signer's unless given).
    func issue(resource: String, viewerKey: String, lifetime: TimeInterval? = nil) -> (token: String, expiresAt: Date) {
        let expiresAt = Date(timeIntervalSince1970: (now() + (lifetime ?? self.lifetime)).timeIntervalSince1970.rounded(.down))
        let payload = Data("\(resource)|\(viewerKey)|\(Int(expiresAt.timeIntervalSince1970))".utf8)
        let mac = HMAC<SHA256>.authenticationCode(for: payload, using: key)
        return (Self.base64URL(payload) + "." + Self.base64URL(Data(mac)), expiresAt)
    }

    func verify(_ token: String) throws(StreamTokenError) -> StreamClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count <= 512, let payload = Self.bytes(base64URL: parts[0]),
            let mac = Self.bytes(base64URL: parts[1]),
            HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: payload, using: key),
            let text = String(validating: payload, as: UTF8.self)
        else { throw .forged }
        let fields = text.split(separator: "|", omittingEmptySubsequences: false)
        guard fields.count == 3, let seconds = Int(fields[2]) else { throw .forged }
        let claims = StreamClaims(
            resource: String(fields[0]), viewerKey: String(fields[1]),
            expiresAt: Date(timeIntervalSince1970: TimeInterval(seconds)))
        guard now() < claims.expiresAt else { throw .expired }
        return claims
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func data(base64URL text: Substring) -> Data? {
        bytes(base64URL: text).map { Data($0) }
    }

    /// Base64url without padding (RFC 4648 §5) decoded straight from the text's UTF-8 bytes: every
    /// segment request decodes a token's two parts, and rewriting them into standard base64 for
    /// Foundation (two string replacements and a test per `Character`) cost more than the HMAC.
    /// Nil for a byte outside the alphabet or a length no encoding has (4n + 1 characters).
    static func bytes(base64URL text: Substring) -> [UInt8]? {
        let count = text.utf8.count
        guard count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 3 / 4)
        // The last bits read, 6 a character; a byte is taken out whenever 8 are there.
        var bits: UInt32 = 0
        var held = 0
        for character in text.utf8 {
            guard let value = sextet(character) else { return nil }
            bits = bits << 6 | UInt32(value)
            held += 6
            if held >= 8 {
                held -= 8
                bytes.append(UInt8(truncatingIfNeeded: bits >> UInt32(held)))
            }
        }
        return bytes
    }

    /// The value of a base64url character.
    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
