import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// HTTPS of the main port when ``ServerConfiguration/tls`` is set: the certificate every new
/// connection is served with, the services that keep it fresh (the files' reloader, or the ACME
/// client), the HTTP port's redirects, and the middleware that adds HSTS and `Secure` cookies.
struct TLSFeature {
    /// Nil without TLS.
    let box: TLSCertificateBox?
    let services: [any Service]
    let middleware: HTTPSMiddleware
    /// The HTTPS port, for the HTTP port's redirects: set once the main listener listens.
    let httpsPort: ListeningPort
    var scheme: String { box == nil ? "http" : "https" }

    init(configuration: ServerConfiguration, logger: Logger, now: @escaping @Sendable () -> Date) throws {
        httpsPort = ListeningPort(configuration.port)
        guard let settings = configuration.tls else {
            box = nil
            services = []
            middleware = HTTPSMiddleware(tls: false, hstsMaxAge: 0, trustedProxies: configuration.trustedProxies)
            return
        }
        let box = TLSCertificateBox()
        let challenges = ACMEChallenges()
        var services: [any Service] = []
        var fallbackHost: String?
        var httpPortReady: ReadySignal?
        switch settings.source {
        case .files(let certificate, let key):
            try TLSFileReloader.loadAtStart(certificateFile: certificate, keyFile: key, into: box)
            services.append(
                TLSFileReloader(
                    certificateFile: certificate, keyFile: key, box: box, interval: settings.reloadInterval, logger: logger))
        case .acme(let acme):
            guard settings.httpPort != nil else {
                throw StartupError("ACME's http-01 challenge needs the HTTP port (--http-port; 80 is the one the CA checks)")
            }
            fallbackHost = acme.domain
            httpPortReady = ReadySignal()
            let service = try ACMEService(
                settings: acme, directory: configuration.dataDirectory.appendingPathComponent("tls", isDirectory: true),
                box: box, challenges: challenges, httpPortReady: httpPortReady, logger: logger, now: now)
            try service.loadKept()
            services.append(service)
        }
        if let httpPort = settings.httpPort {
            // First, so it listens before the ACME client asks for a challenge to be checked.
            services.insert(
                HTTPPortServer(
                    host: configuration.host, port: httpPort, httpsPort: httpsPort, challenges: challenges,
                    fallbackHost: fallbackHost ?? configuration.publicURL.flatMap { URL(string: $0)?.host },
                    onListening: { [told = settings.onHTTPPortListening, ready = httpPortReady] port in
                        ready?.resolve()
                        await told?(port)
                    }, logger: logger), at: 0)
        }
        self.box = box
        self.services = services
        middleware = HTTPSMiddleware(tls: true, hstsMaxAge: settings.hstsMaxAge, trustedProxies: configuration.trustedProxies)
    }
}
