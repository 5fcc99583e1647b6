import Crypto
import Foundation
import Logging
import NIOSSL
import ServiceLifecycle
import Synchronization

/// The certificate and key HTTPS connections are served with, swapped whole: each new connection
/// takes the pair installed at that moment, connections already open keep theirs. A new pair is
/// checked (the PEM parses, the key belongs to the certificate: NIOSSL's context refuses a key
/// that does not) before it replaces the old one, so a bad pair never takes HTTPS down.
final class TLSCertificateBox: Sendable {
    struct Installed: Sendable {
        let context: NIOSSLContext
        /// When the leaf certificate stops being valid, and since when it is.
        let notBefore: Date
        let notAfter: Date
        /// SHA-256 of the certificate's and key's PEM bytes: what was installed.
        let fingerprint: Data
    }

    private let state = Mutex<Installed?>(nil)

    /// The pair to serve now; nil before the first (an ACME server before its first certificate).
    var current: Installed? { state.withLock { $0 } }

    /// Checks the pair and, if it is good, serves it from the next connection on.
    @discardableResult
    func install(certificatePEM: [UInt8], keyPEM: [UInt8]) throws -> Installed {
        let installed = try Self.check(certificatePEM: certificatePEM, keyPEM: keyPEM)
        install(installed)
        return installed
    }

    /// Serves a pair already checked, from the next connection on.
    func install(_ installed: Installed) {
        state.withLock { $0 = installed }
    }

    static func check(certificatePEM: [UInt8], keyPEM: [UInt8]) throws -> Installed {
        let chain = try NIOSSLCertificate.fromPEMBytes(certificatePEM)
        guard let leaf = chain.first else { throw TLSFileError("the certificate file holds no certificate") }
        let key = try NIOSSLPrivateKey(bytes: keyPEM, format: .pem)
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        // Fails when the key is not the certificate's (BoringSSL checks the pair).
        let context = try NIOSSLContext(configuration: configuration)
        return Installed(
            context: context, notBefore: Date(timeIntervalSince1970: TimeInterval(leaf.notValidBefore)),
            notAfter: Date(timeIntervalSince1970: TimeInterval(leaf.notValidAfter)),
            fingerprint: fingerprint(certificatePEM, keyPEM))
    }

    static func fingerprint(_ certificatePEM: [UInt8], _ keyPEM: [UInt8]) -> Data {
        var hash = SHA256()
        hash.update(data: certificatePEM)
        hash.update(data: [0])
        hash.update(data: keyPEM)
        return Data(hash.finalize())
    }
}

struct TLSFileError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Reads the operator's certificate and key files every ``TLSSettings/reloadInterval`` and serves
/// a pair that changed without a restart (certbot, lego or the school's IT replacing the files).
/// A new pair that does not load (a half-written file, a key of another certificate) is refused
/// with an error in the log, once per pair, and the old one stays.
struct TLSFileReloader: Service {
    let certificateFile: URL
    let keyFile: URL
    let box: TLSCertificateBox
    let interval: Duration
    let logger: Logger

    /// Loads the pair at start: a server told to serve HTTPS with files it cannot read must not start.
    static func loadAtStart(certificateFile: URL, keyFile: URL, into box: TLSCertificateBox) throws {
        do {
            let (certificate, key) = try read(certificateFile, keyFile)
            try box.install(certificatePEM: certificate, keyPEM: key)
        } catch {
            throw StartupError(
                "could not load the TLS certificate \(certificateFile.path) with the key \(keyFile.path): \(describe(error))")
        }
    }

    static func read(_ certificateFile: URL, _ keyFile: URL) throws -> ([UInt8], [UInt8]) {
        (Array(try Data(contentsOf: certificateFile)), Array(try Data(contentsOf: keyFile)))
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? NIOSSLError {
            switch error {
            case .failedToLoadPrivateKey: return "the key does not load, or is not the certificate's key"
            default: return "\(error)"
            }
        }
        if error is BoringSSLError { return "the key is not the certificate's key, or a file is not PEM (\(error))" }
        return "\(error)"
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var refused: Data?
            while true {
                do { try await Task.sleep(for: self.interval) } catch { break }  // the server stops
                self.reloadIfChanged(refused: &refused)
            }
        }
    }

    /// One look at the files.
    func reloadIfChanged(refused: inout Data?) {
        guard let (certificate, key) = try? Self.read(certificateFile, keyFile) else { return }
        let fingerprint = TLSCertificateBox.fingerprint(certificate, key)
        guard fingerprint != box.current?.fingerprint, fingerprint != refused else { return }
        do {
            let installed = try box.install(certificatePEM: certificate, keyPEM: key)
            refused = nil
            logger.notice(
                "TLS: serving the new certificate from \(certificateFile.path) (valid until \(installed.notAfter))")
        } catch {
            refused = fingerprint
            logger.error(
                "TLS: refused the new certificate \(certificateFile.path) with the key \(keyFile.path): \(Self.describe(error)). Still serving the previous one."
            )
        }
    }
}
