import Foundation
import Hummingbird
import PodiumStore

/// A picture an admin uploads for the channel (a place's, the venue's): JPEG, PNG or WebP,
/// told by its first bytes (never by its name or the type the browser claims), kept as a blob.
enum ChannelImageUpload {
    static let maxBytes = 10 * 1024 * 1024

    /// Receives the upload, checks it and stores it; returns its blob name.
    static func receive(_ request: Request, uploadDirectory: URL, blobs: any BlobStore) async throws -> String {
        let received = try await Upload.receive(request, into: uploadDirectory, limit: maxBytes)
        defer { try? FileManager.default.removeItem(at: received.file) }
        let handle = try FileHandle(forReadingFrom: received.file)
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        try? handle.close()
        guard let type = kind(of: head) else {
            throw APIError(
                .unsupportedMediaType, code: "not_image", message: "That file is not a picture: upload a JPEG, PNG or WebP.")
        }
        return try blobs.put(fileAt: received.file, fileExtension: type)
    }

    /// `jpg`, `png` or `webp` by the file's magic numbers; nil for anything else.
    static func kind(of head: Data) -> String? {
        let bytes = [UInt8](head)
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpg" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "png" }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return "webp"
        }
        return nil
    }
}
