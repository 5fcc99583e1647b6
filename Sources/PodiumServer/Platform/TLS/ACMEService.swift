import Crypto
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Gets and renews the server's certificate from an ACME CA (RFC 8555) with the http-01
/// challenge, answered on the HTTP port (``HTTPPortServer``). The account key and the
/// certificate with its key are kept in `<data-dir>/tls/`, so a restart serves the certificate it
/// has. A certificate is renewed when a third of its lifetime is left (about 30 days before a
/// 90-day certificate ends), looked at every ``ACMESettings/checkInterval``; the new one is served
/// from the next connection on, with no restart (``TLSCertificateBox``). An order that fails is
/// logged and tried again after ``ACMESettings/retryInterval``; the old certificate stays meanwhile.
struct ACMEService: Service {
    let settings: ACMESettings
    /// `<data-dir>/tls`.
    let directory: URL
    let box: TLSCertificateBox
    let challenges: ACMEChallenges
    let logger: Logger
    let now: @Sendable () -> Date
    private let http: ACMEHTTPClient
    /// Resolved once the HTTP port listens: the CA's check of a challenge must find it.
    let httpPortReady: ReadySignal?

    init(
        settings: ACMESettings, directory: URL, box: TLSCertificateBox, challenges: ACMEChallenges,
        httpPortReady: ReadySignal?, logger: Logger, now: @escaping @Sendable () -> Date
    ) throws {
        self.settings = settings
        self.directory = directory
        self.box = box
        self.challenges = challenges
        self.httpPortReady = httpPortReady
        self.logger = logger
        self.now = now
        http = try ACMEHTTPClient(trustedCAFile: settings.trustedCAFile)
    }

    var accountKeyFile: URL { directory.appendingPathComponent("acme-account-key.pem") }
    var certificateFile: URL { directory.appendingPathComponent("\(fileStem).pem") }
    var keyFile: URL { directory.appendingPathComponent("\(fileStem)-key.pem") }
    private var fileStem: String {
        "acme-" + settings.domain.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }
    }

    /// Serves the certificate kept from an earlier start, if there is one that loads.
    func loadKept() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard let certificate = try? Data(contentsOf: certificateFile), let key = try? Data(contentsOf: keyFile) else { return }
        do {
            let installed = try box.install(certificatePEM: Array(certificate), keyPEM: Array(key))
            logger.info("ACME: serving the kept certificate for \(settings.domain), valid until \(installed.notAfter)")
        } catch {
            logger.error("ACME: the kept certificate \(certificateFile.path) does not load (\(error)); a new one is ordered")
        }
    }

    /// Whether the certificate served should be renewed at `date`: none yet, or a third of its
    /// lifetime or less left.
    static func isDue(_ installed: TLSCertificateBox.Installed?, at date: Date) -> Bool {
        guard let installed else { return true }
        let lifetime = installed.notAfter.timeIntervalSince(installed.notBefore)
        return installed.notAfter.timeIntervalSince(date) <= lifetime / 3
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await httpPortReady?.wait()
            while !Task.isCancelled {
                var wait = settings.checkInterval
                if Self.isDue(box.current, at: now()) {
                    do {
                        let installed = try await obtain()
                        logger.notice(
                            "ACME: got a certificate for \(settings.domain), valid until \(installed.notAfter); serving it")
                    } catch {
                        if Task.isCancelled { break }
                        logger.error(
                            "ACME: could not get a certificate for \(settings.domain) from \(settings.directory): \(error). Trying again in \(settings.retryInterval)."
                        )
                        wait = min(wait, settings.retryInterval)
                    }
                }
                do { try await Task.sleep(for: wait) } catch { break }
            }
        }
    }

    /// One order from start to certificate; the certificate is saved and served.
    func obtain() async throws -> TLSCertificateBox.Installed {
        let signer = ACMESigner(key: try accountKey())
        var session = try await Session(http: http, signer: signer, directoryURL: settings.directory)
        // The account: created, or found again for the same key.
        var account: [String: Any] = ["termsOfServiceAgreed": true]
        if let email = settings.email { account["contact"] = ["mailto:\(email)"] }
        let created = try await session.post(session.url("newAccount"), payload: account, expect: [200, 201])
        guard let keyID = created.response.header("Location") else { throw ACMEError("the CA named no account") }
        session.keyID = keyID
        // The order.
        let ordered = try await session.post(
            session.url("newOrder"), payload: ["identifiers": [["type": "dns", "value": settings.domain]]], expect: [201])
        guard let orderURL = ordered.response.header("Location").flatMap(URL.init(string:)),
            let authorizations = ordered.json["authorizations"] as? [String], let finalize = ordered.json["finalize"] as? String,
            let finalizeURL = URL(string: finalize)
        else { throw ACMEError("the CA's order is not understood: \(ordered.json)") }
        for authorization in authorizations.compactMap(URL.init(string:)) {
            try await authorize(authorization, session: &session, thumbprint: signer.thumbprint)
        }
        // The certificate's own key, and the request for it.
        let certificateKey = P256.Signing.PrivateKey()
        let csr = try CertificateRequest.der(domain: settings.domain, key: certificateKey)
        var order = try await session.post(finalizeURL, payload: ["csr": ACMEBase64.encode(csr)], expect: [200])
        for _ in 0..<120 where !["valid", "invalid"].contains(order.json["status"] as? String ?? "") {
            try await Task.sleep(for: .milliseconds(500))
            order = try await session.post(orderURL, payload: nil, expect: [200])
        }
        guard order.json["status"] as? String == "valid", let certificate = order.json["certificate"] as? String,
            let certificateURL = URL(string: certificate)
        else { throw ACMEError("the order did not become valid: \(order.json)") }
        let chain = try await session.post(certificateURL, payload: nil, expect: [200], json: false)
        let keyPEM = Array(certificateKey.pemRepresentation.utf8)
        let checked = try TLSCertificateBox.check(certificatePEM: Array(chain.response.body), keyPEM: keyPEM)
        // Kept on disk before it is served: a restart after the first HTTPS answer serves it again.
        try Self.write(chain.response.body, to: certificateFile)
        try Self.write(Data(keyPEM), to: keyFile)
        box.install(checked)
        return checked
    }

    /// Answers the authorization's http-01 challenge and waits until the CA has checked it.
    private func authorize(_ url: URL, session: inout Session, thumbprint: String) async throws {
        var authorization = try await session.post(url, payload: nil, expect: [200])
        if authorization.json["status"] as? String == "valid" { return }
        guard let challenges = authorization.json["challenges"] as? [[String: Any]],
            let challenge = challenges.first(where: { $0["type"] as? String == "http-01" }),
            let token = challenge["token"] as? String, let challengeURL = (challenge["url"] as? String).flatMap(URL.init(string:))
        else { throw ACMEError("the CA offers no http-01 challenge for \(settings.domain)") }
        self.challenges.set(token: token, keyAuthorization: "\(token).\(thumbprint)")
        defer { self.challenges.remove(token: token) }
        _ = try await session.post(challengeURL, payload: [String: Any](), expect: [200])
        for _ in 0..<120 where !["valid", "invalid"].contains(authorization.json["status"] as? String ?? "") {
            try await Task.sleep(for: .milliseconds(500))
            authorization = try await session.post(url, payload: nil, expect: [200])
        }
        guard authorization.json["status"] as? String == "valid" else {
            let problem = (authorization.json["challenges"] as? [[String: Any]])?.compactMap { $0["error"] }.first
            throw ACMEError(
                "the CA could not check http://\(settings.domain)/.well-known/acme-challenge/\(token): \(problem.map { "\($0)" } ?? "\(authorization.json)")"
            )
        }
    }

    /// The account key, made and kept at the first order.
    private func accountKey() throws -> P256.Signing.PrivateKey {
        if let pem = try? String(contentsOf: accountKeyFile, encoding: .utf8) {
            return try P256.Signing.PrivateKey(pemRepresentation: pem)
        }
        let key = P256.Signing.PrivateKey()
        try Self.write(Data(key.pemRepresentation.utf8), to: accountKeyFile)
        return key
    }

    /// Written whole (a temporary file renamed), readable by the server's user only.
    static func write(_ data: Data, to file: URL) throws {
        let temporary = file.appendingPathExtension("new")
        FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600])
        guard rename(temporary.path, file.path) == 0 else { throw ACMEError("could not write \(file.path): errno \(errno)") }
    }

    /// One conversation with the CA: its directory, the nonce to use next, the account.
    struct Session {
        let http: ACMEHTTPClient
        let signer: ACMESigner
        let directory: [String: Any]
        var nonce: String?
        var keyID: String?

        init(http: ACMEHTTPClient, signer: ACMESigner, directoryURL: URL) async throws {
            self.http = http
            self.signer = signer
            let answer = try await http.get(directoryURL)
            guard answer.status == 200,
                let directory = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
            else { throw ACMEError("\(directoryURL) is not an ACME directory (status \(answer.status))") }
            self.directory = directory
        }

        func url(_ name: String) throws -> URL {
            guard let text = directory[name] as? String, let url = URL(string: text) else {
                throw ACMEError("the CA's directory has no \(name)")
            }
            return url
        }

        /// A signed POST (`payload` nil: POST-as-GET). A `badNonce` refusal is tried again with
        /// the fresh nonce it carries, as RFC 8555 asks.
        mutating func post(_ url: URL, payload: Any?, expect: Set<Int>, json: Bool = true) async throws -> (
            response: ACMEHTTPClient.Response, json: [String: Any]
        ) {
            for _ in 0..<5 {
                let nonce = try await takeNonce()
                let body = try payload.map { try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]) }
                let response = try await http.post(
                    url, jose: try signer.sign(payload: body, url: url, nonce: nonce, keyID: keyID))
                self.nonce = response.header("Replay-Nonce")
                let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
                if response.status == 400, object["type"] as? String == "urn:ietf:params:acme:error:badNonce" { continue }
                guard expect.contains(response.status) else {
                    throw ACMEError(
                        "\(url) answered \(response.status): \(object["detail"] as? String ?? String(decoding: response.body.prefix(500), as: UTF8.self))"
                    )
                }
                return (response, json ? object : [:])
            }
            throw ACMEError("the CA refused five nonces in a row")
        }

        private mutating func takeNonce() async throws -> String {
            if let nonce = nonce.take() { return nonce }
            let answer = try await http.get(try url("newNonce"))
            guard let nonce = answer.header("Replay-Nonce") else { throw ACMEError("the CA gave no nonce") }
            return nonce
        }
    }
}

/// Something that happens once (the HTTP port listening), awaited by whoever needs it.
final class ReadySignal: Sendable {
    private let ready = Mutex(false)

    func resolve() { ready.withLock { $0 = true } }

    /// Returns once resolved, or when the task is cancelled (the server stops).
    func wait() async {
        while !ready.withLock({ $0 }) {
            do { try await Task.sleep(for: .milliseconds(20)) } catch { return }
        }
    }
}
