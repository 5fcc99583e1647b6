import Foundation

/// HTTPS served by Podium itself (`podium serve --tls-cert/--tls-key`, or `--acme-domain`): see
/// docs/operations.md, "Podium in a school". Nil in ``ServerConfiguration/tls``: plain HTTP (or
/// TLS ended by a reverse proxy).
public struct TLSSettings: Sendable {
    /// Where the certificate comes from.
    public enum Source: Sendable {
        /// PEM files the operator keeps (the school's certificate, or one an ACME client such as
        /// certbot or lego renews with DNS-01): read at start and again whenever they change.
        case files(certificate: URL, key: URL)
        /// Obtained and renewed by the server itself from an ACME certificate authority.
        case acme(ACMESettings)
    }

    public var source: Source
    /// The plain HTTP port: it answers every request with a `308` to the same path on HTTPS,
    /// except ACME's http-01 challenges (`/.well-known/acme-challenge/<token>`). Nil: not listened on.
    public var httpPort: Int?
    /// `Strict-Transport-Security: max-age=` of every HTTPS answer, in seconds; 0 sends none.
    public var hstsMaxAge = 31_536_000
    /// How often the certificate and key files are read to see whether they changed (and, with
    /// ACME, the certificate is looked at for renewal, see ``ACMESettings/checkInterval``).
    public var reloadInterval = Duration.seconds(5)
    /// Told the HTTP port once it listens (tests listen on port 0).
    var onHTTPPortListening: (@Sendable (Int) async -> Void)?

    public init(source: Source, httpPort: Int? = nil) {
        self.source = source
        self.httpPort = httpPort
    }

    /// The port the HTTP port redirects to when none is said: 80 for 443, else none.
    public static func defaultHTTPPort(httpsPort: Int) -> Int? { httpsPort == 443 ? 80 : nil }
}

/// ACME (RFC 8555): the server gets its own certificate for ``domain`` with the http-01 challenge
/// (answered on ``TLSSettings/httpPort``, which the CA reaches at port 80 of the name), and renews it
/// when a third of its lifetime is left.
public struct ACMESettings: Sendable {
    /// The public DNS name the certificate is for.
    public var domain: String
    /// Where the CA writes about the account (expiry notices); nil for none.
    public var email: String?
    /// The CA's directory.
    public var directory: URL = ACMESettings.letsEncrypt
    /// PEM certificates to trust for the CA's own HTTPS beside the system's (a private ACME CA,
    /// such as a school's step-ca, or the test server pebble); nil: the system's only.
    public var trustedCAFile: URL?
    /// How often the certificate is looked at for renewal (and a failed order tried again).
    public var checkInterval = Duration.seconds(3600)
    /// How long a failed order waits before it is tried again.
    public var retryInterval = Duration.seconds(600)

    public static let letsEncrypt = URL(string: "https://acme-v02.api.letsencrypt.org/directory")!

    public init(domain: String, email: String? = nil) {
        self.domain = domain
        self.email = email
    }
}
