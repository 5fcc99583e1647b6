import Crypto
import Foundation

/// Immutable files named by the SHA-256 of their bytes, e.g. page images and uploaded PDFs.
///
/// The same bytes are stored once however many decks use them, and a name never changes meaning,
/// so they are served with immutable caching.
public protocol BlobStore: Sendable {
    /// Stores the file's bytes (moving or copying it) and returns its name, `<sha256>.<ext>`.
    func put(fileAt url: URL, fileExtension: String) throws -> String
    /// The local file behind a blob name, if it exists.
    func file(named name: String) -> URL?
    /// Where the file of a blob name is, without asking the file system whether it is there (nil:
    /// not a blob name). For a caller that reads the file's attributes anyway: serving a blob
    /// stats it once, and a missing file is its 404.
    func path(named name: String) -> String?
    /// Removes a blob no record uses any more (a deleted video's segments); a missing one is no error.
    /// While a `podium backup` runs it is left for the blob collector (``BlobStoreLock``).
    func remove(named name: String) throws
}

/// Blobs as files under `root/ab/<sha256>.<ext>`.
public struct FileBlobStore: BlobStore {
    public let root: URL
    /// `root`'s path, made once: a blob's path is two concatenations (``path(named:)``).
    private let rootPath: String

    public init(root: URL) throws {
        self.root = root
        self.rootPath = root.path
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    public func put(fileAt url: URL, fileExtension: String) throws -> String {
        let hash = try Self.sha256(of: url)
        let name = "\(hash).\(fileExtension)"
        let destination = path(for: name)
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: destination.path) {
            // Put again: its time says so, so the blob collector keeps it until its row is written
            // (a blob unreferenced for a day is deleted only if its file is that old too).
            try? fileManager.setAttributes([.modificationDate: Date()], ofItemAtPath: destination.path)
            return name
        }
        try fileManager.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Copy to a temporary name in the same directory, then rename: readers never see a
        // half-written blob, and rename within one file system is atomic.
        let temporary = destination.deletingLastPathComponent().appendingPathComponent(".\(UUID().uuidString).tmp")
        try fileManager.copyItem(at: url, to: temporary)
        if rename(temporary.path, destination.path) != 0 {
            let code = errno
            try? fileManager.removeItem(at: temporary)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        return name
    }

    public func file(named name: String) -> URL? {
        guard let path = path(named: name), FileManager.default.fileExists(atPath: path) else { return nil }
        return URL(fileURLWithPath: path, isDirectory: false)
    }

    public func path(named name: String) -> String? {
        guard Self.isValidName(name) else { return nil }
        return "\(rootPath)/\(name.prefix(2))/\(name)"
    }

    public func remove(named name: String) throws {
        guard Self.isValidName(name) else { return }
        // While a backup copies, a blob its snapshot may name stays; no row names it any more, so
        // the blob collector deletes it later (see BlobStoreLock). A directory that cannot be
        // locked (read-only to this user) is no reason to keep it.
        let hold: BlobStoreLock?
        do {
            guard let taken = try BlobStoreLock.deletingIfNoBackup(root) else { return }
            hold = taken
        } catch {
            hold = nil
        }
        defer { hold?.release() }
        do {
            try FileManager.default.removeItem(at: path(for: name))
        } catch CocoaError.fileNoSuchFile {
            return
        }
    }

    /// `<64 hex>.<1-5 lowercase letters or digits, starting with a letter>` (`jpg`, `mp4`, `m3u8`):
    /// nothing else can reach the file system.
    /// Read as UTF-8 bytes (every blob request asks this; a byte is cheaper than a `Character`).
    public static func isValidName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard (66...70).contains(bytes.count) else { return false }
        var index = 0
        for byte in bytes {
            switch index {
            case 0..<64: guard isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) else { return false }
            case 64: guard byte == UInt8(ascii: ".") else { return false }
            case 65: guard isLowercaseLetter(byte) else { return false }
            default: guard isLowercaseLetter(byte) || isDigit(byte) else { return false }
            }
            index += 1
        }
        return true
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    private static func isLowercaseLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }

    func path(for name: String) -> URL {
        root.appendingPathComponent(String(name.prefix(2))).appendingPathComponent(name)
    }

    /// Streams the file through SHA-256 in 1 MiB chunks, so large PDFs are not read whole.
    public static func sha256(of url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
