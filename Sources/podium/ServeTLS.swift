import ArgumentParser
import Foundation
import PodiumServer

extension Serve {
    /// HTTPS from `--tls-cert`/`--tls-key` or `--acme-domain` and the `PODIUM_TLS_*`, `PODIUM_ACME_*`
    /// variables (see docs/operations.md, "Podium in a school").
    static func readTLS(_ options: Serve, _ environment: [String: String], into configuration: inout ServerConfiguration)
        throws
    {
        func value(_ option: String?, _ name: String) -> String? {
            (option ?? environment[name]).flatMap { $0.isEmpty ? nil : $0 }
        }
        func seconds(_ name: String) throws -> Duration? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            guard let value = Double(text), value > 0, value.isFinite else {
                throw ValidationError("\(name) must be a positive number of seconds")
            }
            return .milliseconds(Int(value * 1000))
        }
        let certificate = value(options.tlsCert, "PODIUM_TLS_CERT")
        let key = value(options.tlsKey, "PODIUM_TLS_KEY")
        let domain = value(options.acmeDomain, "PODIUM_ACME_DOMAIN")
        let httpPortText = options.httpPort.map(String.init) ?? value(nil, "PODIUM_HTTP_PORT")
        var settings: TLSSettings
        switch (certificate, key, domain) {
        case (nil, nil, nil):
            if httpPortText != nil {
                throw ValidationError("--http-port redirects to HTTPS: it needs --tls-cert or --acme-domain")
            }
            return
        case (let certificate?, let key?, nil):
            settings = TLSSettings(
                source: .files(certificate: URL(fileURLWithPath: certificate), key: URL(fileURLWithPath: key)),
                httpPort: TLSSettings.defaultHTTPPort(httpsPort: configuration.port))
        case (nil, nil, let domain?):
            var acme = ACMESettings(domain: domain, email: value(options.acmeEmail, "PODIUM_ACME_EMAIL"))
            if let directory = value(options.acmeDirectory, "PODIUM_ACME_DIRECTORY") {
                guard let url = URL(string: directory), url.scheme == "https" else {
                    throw ValidationError("--acme-directory must be an https:// URL")
                }
                acme.directory = url
            }
            acme.trustedCAFile = value(nil, "PODIUM_ACME_CA_FILE").map { URL(fileURLWithPath: $0) }
            if let check = try seconds("PODIUM_ACME_CHECK_SECONDS") { acme.checkInterval = check }
            if let retry = try seconds("PODIUM_ACME_RETRY_SECONDS") { acme.retryInterval = retry }
            settings = TLSSettings(source: .acme(acme), httpPort: 80)
        case (_, _, _?):
            throw ValidationError("--acme-domain gets its own certificate: leave out --tls-cert and --tls-key")
        default:
            throw ValidationError("--tls-cert and --tls-key go together")
        }
        if let text = httpPortText {
            guard let port = Int(text), (0...65535).contains(port) else {
                throw ValidationError("--http-port must be a port number")
            }
            guard port != configuration.port || port == 0 else {
                throw ValidationError("--http-port must differ from --port (the HTTPS port)")
            }
            settings.httpPort = port
        }
        if let text = environment["PODIUM_HSTS_MAX_AGE"], !text.isEmpty {
            guard let age = Int(text), age >= 0 else { throw ValidationError("PODIUM_HSTS_MAX_AGE must be seconds, 0 or more") }
            settings.hstsMaxAge = age
        }
        if let reload = try seconds("PODIUM_TLS_RELOAD_SECONDS") { settings.reloadInterval = reload }
        configuration.tls = settings
    }
}
