import Foundation

/// One audio take of the presenter's microphone (`/api/v1/sessions/{code}/recordings`, issue
/// #44): sent in chunks while it records, then packaged as HLS audio. `startedAt` is on the
/// server's clock, so the take lines up with the session's event log.
public struct RecordingResponse: Codable, Sendable, Equatable {
    public var id: String
    public var startedAt: Date
    /// `recording`, `packaging`, `ready` or `failed`.
    public var status: String
    /// Chunks received (the next one to send is this number).
    public var chunks: Int
    public var bytes: Int
    /// Milliseconds, once ready.
    public var duration: Int?
    /// The HLS playlist, once ready.
    public var playlistUrl: String?
    /// When failed.
    public var error: FailureDetail?

    public init(
        id: String, startedAt: Date, status: String, chunks: Int, bytes: Int, duration: Int?, playlistUrl: String?,
        error: FailureDetail?
    ) {
        self.id = id
        self.startedAt = startedAt
        self.status = status
        self.chunks = chunks
        self.bytes = bytes
        self.duration = duration
        self.playlistUrl = playlistUrl
        self.error = error
    }

    // Every field is sent, `null` included. `startedAt` keeps its milliseconds (the API's other
    // dates are whole seconds): the replay lines the take up with the event log by it, and a
    // second's rounding put the voice up to a second out of step with the slides.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(
            startedAt.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)), forKey: .startedAt)
        try container.encode(status, forKey: .status)
        try container.encode(chunks, forKey: .chunks)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(duration, forKey: .duration)
        try container.encode(playlistUrl, forKey: .playlistUrl)
        try container.encode(error, forKey: .error)
    }

    enum CodingKeys: String, CodingKey { case id, startedAt, status, chunks, bytes, duration, playlistUrl, error }
}

/// Starts a take (`POST /api/v1/sessions/{code}/recordings`).
public struct RecordingStart: Codable, Sendable, Equatable {
    /// When the microphone started, on the server's clock (the live console's clock).
    public var startedAt: Date
    /// `audio/webm;codecs=opus` (MediaRecorder's) or `audio/ogg;codecs=opus`.
    public var mimeType: String

    public init(startedAt: Date, mimeType: String) {
        self.startedAt = startedAt
        self.mimeType = mimeType
    }
}

/// A chunk taken (`PUT /api/v1/recordings/{id}/chunks/{n}`): the take's chunks and bytes now.
public struct RecordingChunkReceipt: Codable, Sendable, Equatable {
    public var chunks: Int
    public var bytes: Int

    public init(chunks: Int, bytes: Int) {
        self.chunks = chunks
        self.bytes = bytes
    }
}

/// A session's takes (`GET /api/v1/sessions/{code}/recordings`), oldest first.
public struct RecordingList: Codable, Sendable, Equatable {
    public var recordings: [RecordingResponse]

    public init(recordings: [RecordingResponse]) { self.recordings = recordings }
}
