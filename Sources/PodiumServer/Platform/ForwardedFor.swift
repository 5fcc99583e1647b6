import Foundation

/// The client's address as a trusted reverse proxy reported it in `X-Forwarded-For`: the last
/// address in the field (the one the proxy appended; earlier ones are the client's word, and a
/// client can write anything), at most 64 characters. nil when the connection is not from one
/// of `trustedProxies`, or the field is missing or empty. Read by the router's middleware and by
/// the live socket's upgrade, which runs before the router (``LiveUpgrade``): one rule for both.
enum ForwardedFor {
    /// `values`: every `X-Forwarded-For` field of the request, in order (several fields are one
    /// list, as HTTP combines them).
    static func client(peer: String?, trustedProxies: Set<String>, values: [String]) -> String? {
        guard let peer, trustedProxies.contains(peer), !values.isEmpty,
            let last = values.joined(separator: ",").split(separator: ",").last
        else { return nil }
        let client = last.trimmingCharacters(in: .whitespaces)
        return client.isEmpty ? nil : String(client.prefix(64))
    }
}
