import Foundation

/// An MP4 export of a session's replay (`POST /api/v1/sessions/{code}/replay/exports`,
/// `GET /api/v1/replay-exports/{id}`): the slides as they were shown, with their ink, and the
/// presenter's recorded voice, made by a background job.
public struct ReplayExport: Codable, Sendable, Equatable {
    public var id: String
    /// `queued`, `running`, `ready` or `failed`.
    public var status: String
    /// How far the job has come, 0 to 1 (1 once ready).
    public var progress: Double
    /// The video's length in milliseconds, once ready.
    public var duration: Int?
    /// `/api/v1/replay-exports/{id}/file` once ready; nil before.
    public var downloadUrl: String?
    /// Why it failed.
    public var error: FailureDetail?
    /// The channel video it was published as (`POST /api/v1/replay-exports/{id}/publish`).
    public var channelVideoId: String?

    public init(
        id: String, status: String, progress: Double, duration: Int?, downloadUrl: String?, error: FailureDetail?,
        channelVideoId: String?
    ) {
        self.id = id
        self.status = status
        self.progress = progress
        self.duration = duration
        self.downloadUrl = downloadUrl
        self.error = error
        self.channelVideoId = channelVideoId
    }

    public var isReady: Bool { status == "ready" }

    enum CodingKeys: String, CodingKey {
        case id, status, progress, duration, downloadUrl, error, channelVideoId
    }

    /// Every field, nulls included: what the API sends.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(status, forKey: .status)
        try container.encode(progress, forKey: .progress)
        try container.encode(duration, forKey: .duration)
        try container.encode(downloadUrl, forKey: .downloadUrl)
        try container.encode(error, forKey: .error)
        try container.encode(channelVideoId, forKey: .channelVideoId)
    }
}

/// `POST /api/v1/replay-exports/{id}/publish`: a ready export put on the channel as a video.
public struct ReplayExportPublish: Codable, Sendable, Equatable {
    public var title: String
    /// The channel category (top level); absent: the category named "Replays", made if none is.
    public var categoryId: String?
    public var description: String?

    public init(title: String, categoryId: String? = nil, description: String? = nil) {
        self.title = title
        self.categoryId = categoryId
        self.description = description
    }
}
