import Foundation

/// One piece of long work (a PDF to ingest; a video to package and a storyboard to export next),
/// kept in the store so that a restart resumes it instead of losing it.
public struct JobRecord: Sendable, Equatable {
    public enum State: String, Sendable, Codable {
        /// Waiting for a worker of its kind.
        case queued
        /// Claimed by a worker, whose node holds a lease on it; queued again when the lease
        /// expires (the node died).
        case running
        case done
        case failed
    }

    public var id: String
    /// Which worker runs it: `pdf` today.
    public var kind: String
    /// What it works on, e.g. the deck being ingested.
    public var subjectId: String
    /// The user it is done for: they (and admins) may read it.
    public var ownerId: String?
    /// The kind's own parameters, as JSON text.
    public var payload: String
    public var state: State
    /// How many times a worker started it.
    public var attempts: Int
    /// The last progress saved (while running it is newer in memory).
    public var progress: JobProgress
    public var error: JobFailure?
    public var createdAt: Date
    public var updatedAt: Date
    /// While running: until when the node running it holds it (it renews this while it runs);
    /// past it, the node is taken for dead and the job queued again. Nil otherwise.
    public var leaseUntil: Date?

    public init(
        id: String, kind: String, subjectId: String, ownerId: String?, payload: String, state: State = .queued,
        attempts: Int = 0, progress: JobProgress = .queued, error: JobFailure? = nil, createdAt: Date, updatedAt: Date,
        leaseUntil: Date? = nil
    ) {
        self.id = id
        self.kind = kind
        self.subjectId = subjectId
        self.ownerId = ownerId
        self.payload = payload
        self.state = state
        self.attempts = attempts
        self.progress = progress
        self.error = error
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.leaseUntil = leaseUntil
    }

    public var isFinished: Bool { state == .done || state == .failed }
}

/// How far a job has come: `done` of `total` units in `stage` (each kind names its stages).
public struct JobProgress: Sendable, Equatable, Codable {
    public var stage: String
    public var done: Int
    public var total: Int

    public init(stage: String, done: Int, total: Int) {
        self.stage = stage
        self.done = done
        self.total = total
    }

    /// A job no worker has taken yet.
    public static let queued = JobProgress(stage: "queued", done: 0, total: 0)
}

/// Why a job failed, in the API's error shape: a stable `code` and a message for people.
/// Workers throw it; any other error a worker throws is recorded as `internal`.
public struct JobFailure: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
