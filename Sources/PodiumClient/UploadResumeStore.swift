import Foundation
import Synchronization

// MARK: - Remembering uploads across runs

/// Where a caller remembers its unfinished uploads, `{fingerprint → upload URL}`, so a later
/// call (after a crash, a killed run, a new launch of the app) continues an upload instead of
/// starting it again. The SDK remembers an upload once it is created and forgets it when it
/// finishes or the server refuses it; an upload given up for the network is kept.
///
/// ``FileUploadResumeStore`` keeps them in a JSON file (the CLI's), ``MemoryUploadResumeStore``
/// for the life of the process.
public protocol UploadResumeStore: Sendable {
    /// The upload remembered for `fingerprint`, if any.
    func uploadURL(for fingerprint: String) async -> URL?
    func remember(_ upload: URL, for fingerprint: String) async
    func forget(_ fingerprint: String) async
    /// Told when an upload continues from what the server already has (`progress.bytes`), before
    /// anything more is sent; the CLI says "Resuming talk.mp4 at 43 %". Does nothing by default.
    func resuming(_ fingerprint: String, at progress: TransferProgress) async
}

extension UploadResumeStore {
    public func resuming(_ fingerprint: String, at progress: TransferProgress) async {}
}

/// Remembers uploads for the life of the process.
public final class MemoryUploadResumeStore: UploadResumeStore {
    private let entries = Mutex<[String: URL]>([:])

    public init() {}

    public var all: [String: URL] { entries.withLock { $0 } }

    public func uploadURL(for fingerprint: String) async -> URL? { entries.withLock { $0[fingerprint] } }
    public func remember(_ upload: URL, for fingerprint: String) async { entries.withLock { $0[fingerprint] = upload } }
    public func forget(_ fingerprint: String) async { _ = entries.withLock { $0.removeValue(forKey: fingerprint) } }
}

/// Remembers uploads in a JSON file, `{"fingerprint": "upload URL", …}`, rewritten whole
/// (atomically) on every change; a missing or unreadable file reads as empty. Several processes
/// may share it: each change reads the file afresh first.
public final class FileUploadResumeStore: UploadResumeStore {
    public let file: URL
    private let lock = Mutex(())

    public init(file: URL) {
        self.file = file
    }

    /// The CLI's file: `$XDG_STATE_HOME/podium/uploads.json`, else
    /// `~/.local/state/podium/uploads.json` (XDG Base Directory: state that survives a restart
    /// but is not worth a backup).
    public static func standardFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let state: URL
        if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") {
            state = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            state = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/state", isDirectory: true)
        }
        return state.appendingPathComponent("podium", isDirectory: true).appendingPathComponent("uploads.json")
    }

    /// Every remembered upload.
    public var all: [String: URL] {
        lock.withLock { _ in read().compactMapValues { URL(string: $0) } }
    }

    public func uploadURL(for fingerprint: String) async -> URL? {
        lock.withLock { _ in read()[fingerprint].flatMap { URL(string: $0) } }
    }

    public func remember(_ upload: URL, for fingerprint: String) async {
        change { $0[fingerprint] = upload.absoluteString }
    }

    public func forget(_ fingerprint: String) async {
        change { $0.removeValue(forKey: fingerprint) }
    }

    private func read() -> [String: String] {
        guard let data = try? Data(contentsOf: file) else { return [:] }
        return (try? JSONDecoder().decode([String: String].self, from: data)) ?? [:]
    }

    /// Remembering is a convenience: a file that cannot be written loses the entry, not the upload.
    private func change(_ body: (inout [String: String]) -> Void) {
        lock.withLock { _ in
            var entries = read()
            body(&entries)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(entries) else { return }
            try? FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            try? data.write(to: file, options: .atomic)
        }
    }
}
