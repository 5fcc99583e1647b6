import Foundation

/// One audio take of a presenter's microphone (issue #44): its row, while its chunks arrive in
/// `<blob-dir>/recordings/<id>.webm` (appended in order), and after it was packaged as HLS audio
/// in `<blob-dir>/recordings/<id>/`.
public struct RecordingRecord: Sendable, Equatable, Codable {
    public enum Status: String, Sendable, Codable, CaseIterable {
        case recording, packaging, ready, failed
    }

    public var id: String
    public var sessionId: String
    /// Who sends its chunks: `user:<id>` for a signed-in host, `viewer:<id>` for a room's guest
    /// presenter (the viewer cookie).
    public var ownerKey: String
    /// When the microphone started, on the server's clock (the event log's).
    public var startedAt: Date
    public var mimeType: String
    public var status: Status
    /// Chunks received, in order (the next expected is this number).
    public var chunks: Int
    /// Bytes of those chunks, the length of the take's file that counts.
    public var bytes: Int
    /// When the last chunk arrived (nil: none yet).
    public var lastChunkAt: Date?
    public var stoppedAt: Date?
    /// Milliseconds, once packaged.
    public var durationMs: Int?
    /// Bytes of the packaged HLS (playlist and segments), once packaged.
    public var hlsBytes: Int?
    public var errorCode: String?
    public var errorMessage: String?
    public var createdAt: Date

    public init(
        id: String, sessionId: String, ownerKey: String, startedAt: Date, mimeType: String, status: Status = .recording,
        chunks: Int = 0, bytes: Int = 0, lastChunkAt: Date? = nil, stoppedAt: Date? = nil, durationMs: Int? = nil,
        hlsBytes: Int? = nil, errorCode: String? = nil, errorMessage: String? = nil, createdAt: Date
    ) {
        self.id = id
        self.sessionId = sessionId
        self.ownerKey = ownerKey
        self.startedAt = startedAt
        self.mimeType = mimeType
        self.status = status
        self.chunks = chunks
        self.bytes = bytes
        self.lastChunkAt = lastChunkAt
        self.stoppedAt = stoppedAt
        self.durationMs = durationMs
        self.hlsBytes = hlsBytes
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.createdAt = createdAt
    }
}

/// Where audio takes live: `<blob-dir>/recordings/<id>.webm` (the chunks) and
/// `<blob-dir>/recordings/<id>/` (the HLS), beside the blob directories (shared by the nodes as
/// the blobs are). Not blobs, but kept with them: `podium backup` copies a snapshot's takes'
/// files, `restore` puts them back, `podium check` checks them and the blob collector deletes
/// those of takes with no row (see `RecordingFilesOnDisk.swift`).
public enum RecordingFiles {
    public static let directoryName = "recordings"
}

/// What appending a chunk to a take found.
public enum RecordingChunkAppend: Sendable, Equatable {
    /// Taken: the take now has `chunks` chunks and `bytes` bytes.
    case appended(chunks: Int, bytes: Int)
    /// Not the next chunk: the take expects `expected`.
    case outOfOrder(expected: Int)
    /// The take is no longer recording.
    case stopped
    /// No such take.
    case missing
}

/// Audio takes and the sizes of their chunks.
public protocol RecordingStore: Sendable {
    func insertRecording(_ recording: RecordingRecord) async throws
    func recording(id: String) async throws -> RecordingRecord?
    /// A session's takes, oldest first (by `startedAt`).
    func recordings(sessionId: String) async throws -> [RecordingRecord]
    /// Records chunk `n` of `bytes` bytes, only when it is the next one and the take is recording.
    func appendRecordingChunk(id: String, n: Int, bytes: Int, at: Date) async throws -> RecordingChunkAppend
    /// The size of chunk `n` of take `id`, when received.
    func recordingChunkBytes(id: String, n: Int) async throws -> Int?
    /// `recording` → `packaging` at `at`; false when the take was not recording (or no such take).
    func stopRecording(id: String, at: Date) async throws -> Bool
    /// Stores a packaging's outcome: status, duration, HLS size, error.
    func finishRecording(
        id: String, status: RecordingRecord.Status, durationMs: Int?, hlsBytes: Int?, errorCode: String?,
        errorMessage: String?
    ) async throws
    /// Takes still recording whose last chunk (or, with none, whose creation) is before `before`.
    func stalledRecordings(before: Date) async throws -> [RecordingRecord]
}
