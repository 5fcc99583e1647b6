import Foundation

/// A resumable upload under way (tus, issue #41): its row, while its bytes arrive in
/// `<blob-dir>/uploads/<id>.part`, and after its last byte, with the answer it gave, until it
/// expires.
public struct UploadRecord: Sendable, Equatable, Codable {
    public var id: String
    /// Who may go on with it: `user:<id>` for a signed-in person, `viewer:<id>` for a room's guest
    /// presenter (the viewer cookie).
    public var ownerKey: String
    /// `deck`, `video`, `room-deck` or `room-video`.
    public var target: String
    /// The creation's `Upload-Metadata`, decoded: a JSON object of strings.
    public var metadata: String
    /// The whole file's size in bytes (`Upload-Length`).
    public var uploadLength: Int
    /// The bytes received and kept so far (`Upload-Offset`).
    public var uploadOffset: Int
    public var expiresAt: Date
    /// Once the last byte arrived and the file was taken: the JSON answer it gave.
    public var result: String?
    public var createdAt: Date

    public init(
        id: String, ownerKey: String, target: String, metadata: String, uploadLength: Int, uploadOffset: Int = 0,
        expiresAt: Date, result: String? = nil, createdAt: Date
    ) {
        self.id = id
        self.ownerKey = ownerKey
        self.target = target
        self.metadata = metadata
        self.uploadLength = uploadLength
        self.uploadOffset = uploadOffset
        self.expiresAt = expiresAt
        self.result = result
        self.createdAt = createdAt
    }
}

/// Where resumable uploads' partial bytes live: `<blob-dir>/uploads/<id>.part`, beside the blob
/// directories (shared by the nodes as the blobs are). Not blobs: the blob collector and `podium
/// check` pass them by.
public enum UploadFiles {
    public static let directoryName = "uploads"
}

/// Resumable uploads. The offset only moves by compare-and-set, so two requests (on one node or
/// two) can never both append at the same place.
public protocol UploadStore: Sendable {
    func insertUpload(_ upload: UploadRecord) async throws
    func upload(id: String) async throws -> UploadRecord?
    /// Moves the offset from `from` to `to` and the expiry to `expiresAt`, only while the stored
    /// offset is `from` and the upload has no result; false when it was not (or no such upload).
    func advanceUpload(id: String, from: Int, to: Int, expiresAt: Date) async throws -> Bool
    /// Keeps the answer of a finished upload (until `expiresAt`); false when there is no such upload.
    func finishUpload(id: String, result: String, expiresAt: Date) async throws -> Bool
    /// False when there was no such upload.
    func deleteUpload(id: String) async throws -> Bool
    /// Deletes the uploads that expired before `now`; their ids.
    func deleteExpiredUploads(before now: Date) async throws -> [String]
}
