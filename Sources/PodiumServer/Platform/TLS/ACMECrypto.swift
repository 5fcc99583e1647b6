import Crypto
import Foundation

/// ACME's JSON Web Signatures (RFC 7515, RFC 8555 section 6.2) with an ES256 account key.
struct ACMESigner {
    let key: P256.Signing.PrivateKey

    /// The account's public key as a JWK, members in the order RFC 7638's thumbprint needs.
    var jwk: String {
        let raw = key.publicKey.rawRepresentation  // x then y, 32 bytes each
        return
            #"{"crv":"P-256","kty":"EC","x":"\#(ACMEBase64.encode(raw.prefix(32)))","y":"\#(ACMEBase64.encode(raw.suffix(32)))"}"#
    }

    /// RFC 7638's thumbprint of the JWK, for key authorizations.
    var thumbprint: String { ACMEBase64.encode(Data(SHA256.hash(data: Data(jwk.utf8)))) }

    /// The flattened JWS of `payload` (nil: POST-as-GET's empty payload) to `url`, signed with
    /// the account key and named by `keyID` (the account's URL) or, before there is one, by its JWK.
    func sign(payload: Data?, url: URL, nonce: String, keyID: String?) throws -> Data {
        let identity = keyID.map { #""kid":\#(jsonString($0))"# } ?? #""jwk":\#(jwk)"#
        let protected = #"{"alg":"ES256",\#(identity),"nonce":\#(jsonString(nonce)),"url":\#(jsonString(url.absoluteString))}"#
        let protected64 = ACMEBase64.encode(Data(protected.utf8))
        let payload64 = payload.map(ACMEBase64.encode) ?? ""
        let signature = try key.signature(for: Data("\(protected64).\(payload64)".utf8))
        let body =
            #"{"protected":"\#(protected64)","payload":"\#(payload64)","signature":"\#(ACMEBase64.encode(signature.rawRepresentation))"}"#
        return Data(body.utf8)
    }

    private func jsonString(_ text: String) -> String {
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }
}

enum ACMEBase64 {
    static func encode<D: DataProtocol>(_ data: D) -> String {
        Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// A PKCS #10 certificate signing request (RFC 2986) for one DNS name, signed with a P-256 key:
/// the few DER structures it needs, written by hand.
enum CertificateRequest {
    static func der(domain: String, key: P256.Signing.PrivateKey) throws -> Data {
        let commonName = DER.sequence([DER.oid([0x55, 0x04, 0x03]), DER.tagged(0x0C, Data(domain.utf8))])
        // A common name is at most 64 characters; the subject alternative name is what counts.
        let subject = DER.sequence(domain.utf8.count <= 64 ? [DER.tagged(0x31, commonName)] : [])
        let dnsName = DER.tagged(0x82, Data(domain.utf8))  // [2] IMPLICIT IA5String
        let subjectAltName = DER.sequence([
            DER.oid([0x55, 0x1D, 0x11]), DER.tagged(0x04, DER.sequence([dnsName])),
        ])
        let extensionRequest = DER.sequence([
            DER.oid([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x0E]),
            DER.tagged(0x31, DER.sequence([subjectAltName])),
        ])
        let info = DER.sequence([
            DER.tagged(0x02, Data([0])),  // version 0
            subject,
            key.publicKey.derRepresentation,  // SubjectPublicKeyInfo
            DER.tagged(0xA0, extensionRequest),  // [0] attributes
        ])
        let signature = try key.signature(for: info)
        let ecdsaWithSHA256 = DER.sequence([DER.oid([0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x02])])
        return DER.sequence([info, ecdsaWithSHA256, DER.tagged(0x03, Data([0]) + signature.derRepresentation)])
    }
}

/// Distinguished Encoding Rules: a tag, a length, the contents.
enum DER {
    static func tagged(_ tag: UInt8, _ contents: Data) -> Data {
        var out = Data([tag])
        let count = contents.count
        if count < 0x80 {
            out.append(UInt8(count))
        } else {
            var bytes: [UInt8] = []
            var rest = count
            while rest > 0 {
                bytes.insert(UInt8(rest & 0xFF), at: 0)
                rest >>= 8
            }
            out.append(0x80 | UInt8(bytes.count))
            out.append(contentsOf: bytes)
        }
        out.append(contents)
        return out
    }

    static func sequence(_ items: [Data]) -> Data { tagged(0x30, items.reduce(Data(), +)) }

    /// An object identifier already in its encoded form.
    static func oid(_ encoded: [UInt8]) -> Data { tagged(0x06, Data(encoded)) }
}
