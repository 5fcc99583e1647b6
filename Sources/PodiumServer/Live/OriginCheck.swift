import Foundation
import HTTPTypes
import Hummingbird

/// Refuses WebSocket upgrades from other web sites (cross-site WebSocket hijacking).
///
/// A browser sends the `podium_auth` cookie with a WebSocket opened by any page of the same
/// *site* (SameSite does not look at ports or at other hosts of a LAN), and the socket then acts
/// as the signed-in presenter. Browsers always send `Origin` with a WebSocket, so a socket whose
/// origin is neither this server (its `Host`) nor the configured public URL is refused. Programs
/// (the SDK, the CLI) send no `Origin`, or one that is not a web page's, and authenticate with a
/// token in `hello`.
struct OriginCheck: Sendable {
    /// The origin of the configured public URL, e.g. `https://podium.example.org`.
    let publicOrigin: String?

    init(publicURL: String?) {
        publicOrigin = publicURL.flatMap(URL.init(string:)).flatMap(Self.origin(of:))
    }

    static let refused = APIError(
        .forbidden, code: "origin_not_allowed",
        message: "This socket was opened from another web site. Open Podium's own page, or set the public URL.")

    /// Throws ``refused`` unless the request may open a socket.
    func verify(_ request: Request) throws {
        guard allows(origin: request.headers[.origin], host: request.head.authority) else {
            throw Self.refused
        }
    }

    static let notAnUpgrade = APIError(
        HTTPResponse.Status(code: 426, reasonPhrase: "Upgrade Required"), code: "upgrade_required",
        message: "This address is a WebSocket: open it with a WebSocket client.")

    /// For a socket route: throws ``refused`` for another site's page, ``notAnUpgrade`` for a
    /// plain request.
    func verifyUpgrade(_ request: Request) throws {
        try verify(request)
        guard SocketUpgrade.isRequested(request) else { throw Self.notAnUpgrade }
    }

    func allows(origin header: String?, host: String?) -> Bool {
        guard let header else { return true }
        // One origin, or several joined by a client that adds its own: every one must pass.
        return header.split(separator: ",").allSatisfy { allows(single: $0.trimmingCharacters(in: .whitespaces), host: host) }
    }

    private func allows(single origin: String, host: String?) -> Bool {
        // Sandboxed frames and file:// pages: a browser page we cannot place.
        guard origin != "null" else { return false }
        guard let url = URL(string: origin), let scheme = url.scheme?.lowercased(), let normalized = Self.origin(of: url)
        else { return false }
        // Only web pages can carry a visitor's cookies to us against their will, and a web page's
        // origin is always http(s). Other schemes come from programs and app shells.
        guard scheme == "http" || scheme == "https" else { return true }
        if let publicOrigin, normalized == publicOrigin { return true }
        guard let host, let originAuthority = Self.authority(of: url) else { return false }
        // The page came from this server if its origin names the host and port the browser
        // connected to (a proxy must pass the Host header on, as docs/operations.md shows).
        return originAuthority == Self.normalize(authority: host, scheme: scheme)
    }

    /// `scheme://host[:port]`, lower-cased, the default port left out.
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let authority = authority(of: url) else { return nil }
        return "\(scheme)://\(authority)"
    }

    /// `host[:port]` of a URL, lower-cased, the default port of its scheme left out.
    static func authority(of url: URL) -> String? {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        guard let port = url.port, port != defaultPort(url.scheme ?? "http") else { return bracketed }
        return "\(bracketed):\(port)"
    }

    static func normalize(authority: String, scheme: String) -> String {
        let lowered = authority.lowercased()
        let suffix = ":\(defaultPort(scheme))"
        return lowered.hasSuffix(suffix) ? String(lowered.dropLast(suffix.count)) : lowered
    }

    static func defaultPort(_ scheme: String) -> Int {
        switch scheme.lowercased() {
        case "https", "wss": 443
        default: 80
        }
    }
}
