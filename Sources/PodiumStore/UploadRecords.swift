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

/// What a renewal of an upload's writer's lease found.
public enum UploadLeaseRenewal: Sendable, Equatable {
    /// Still the holder's, for the new term.
    case renewed
    /// Still the holder's, for the new term, but another request asked for it.
    case wanted
    /// No longer the holder's (its term ran out and another took it), or no such upload.
    case lost
}

/// Resumable uploads. One request at a time writes an upload's part file, on any node: it holds
/// the upload's lease (taken, renewed and let go by compare-and-set), and the offset only moves by
/// compare-and-set, under that lease.
public protocol UploadStore: Sendable {
    func insertUpload(_ upload: UploadRecord) async throws
    func upload(id: String) async throws -> UploadRecord?
    /// Moves the offset from `from` to `to` and the expiry to `expiresAt`, only while the stored
    /// offset is `from`, the upload has no result and `holder` holds its lease; false when not
    /// (or no such upload).
    func advanceUpload(id: String, from: Int, to: Int, expiresAt: Date, holder: String) async throws -> Bool
    /// Takes the writer's lease of upload `id` for `holder` until `until`, when nobody holds it,
    /// its holder's lease ended before `now`, or `holder` holds it already; clears a wish to take
    /// over. False when another holds it (or no such upload).
    func takeUploadLease(id: String, holder: String, until: Date, now: Date) async throws -> Bool
    /// Asks the lease's holder to let go (it stops at its next renewal): `holder` wants it.
    func wantUploadLease(id: String, holder: String) async throws
    /// Moves `holder`'s lease on to `until`, while it holds it: `.wanted` when another request
    /// asked for it (the holder stops reading, finishes what it does and lets go), `.lost` when it
    /// no longer holds it.
    func renewUploadLease(id: String, holder: String, until: Date) async throws -> UploadLeaseRenewal
    /// Lets go of `holder`'s lease (nothing when another holds it).
    func releaseUploadLease(id: String, holder: String) async throws
    /// Keeps the answer of a finished upload (until `expiresAt`); false when there is no such upload.
    func finishUpload(id: String, result: String, expiresAt: Date) async throws -> Bool
    /// False when there was no such upload.
    func deleteUpload(id: String) async throws -> Bool
    /// Deletes the uploads that expired before `now`; their ids.
    func deleteExpiredUploads(before now: Date) async throws -> [String]
}
