import Foundation

/// A job kept on the server (`GET /api/v1/jobs/{id}`): a deck's processing, a video's packaging…
public struct Job: Codable, Sendable, Equatable {
    public var id: String
    /// `pdf`, `video`…
    public var kind: String
    /// What the job works on (the deck's or video's id).
    public var subjectId: String
    /// `queued`, `running`, `done` or `failed`.
    public var state: String
    /// Runs started (a run cut short by a graceful shutdown is not counted).
    public var attempts: Int
    /// While queued or running: the newest known.
    public var progress: WorkProgress?
    /// When failed.
    public var error: FailureDetail?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: String, kind: String, subjectId: String, state: String, attempts: Int, progress: WorkProgress?,
        error: FailureDetail?, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.kind = kind
        self.subjectId = subjectId
        self.state = state
        self.attempts = attempts
        self.progress = progress
        self.error = error
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    public var isFinished: Bool { state == "done" || state == "failed" }
}
