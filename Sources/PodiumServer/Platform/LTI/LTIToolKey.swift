import Crypto
import Foundation
import PodiumStore
import _CryptoExtras

/// The tool's own RSA key: it signs deep linking responses, and its public half is served at
/// `GET /api/v1/lti/jwks` for platforms to verify them. Made once, by the first node that needs it,
/// and kept in the store (`channel_settings`, as the stream key), so every node signs with the same
/// key and a restart keeps it.
actor LTIToolKey {
    static let settingName = "lti_tool_key"
    private let store: any ChannelSettingsStore
    private var loaded: (key: _RSA.Signing.PrivateKey, keyID: String)?

    init(store: any ChannelSettingsStore) {
        self.store = store
    }

    /// The key and its id (`kid`), read once per process.
    func key() async throws -> (key: _RSA.Signing.PrivateKey, keyID: String) {
        if let loaded { return loaded }
        // Several nodes starting at once each offer a new key; the first stored is everyone's.
        let offered = try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
        let pem = try await store.channelSetting(Self.settingName, orInsert: offered)
        let key = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
        let entry = (key, Self.keyID(key.publicKey))
        loaded = entry
        return entry
    }

    /// The public key set document (RFC 7517) platforms fetch.
    func publicKeySet() async throws -> Data {
        let (key, keyID) = try await key()
        return JSONWebKeySet.publicJSON(keys: [(keyID: keyID, key: key.publicKey)])
    }

    /// A key id that changes with the key: the first 16 characters of its SHA-256, base64url.
    static func keyID(_ key: _RSA.Signing.PublicKey) -> String {
        String(Base64URL.encode(Data(SHA256.hash(data: key.derRepresentation))).prefix(16))
    }
}
