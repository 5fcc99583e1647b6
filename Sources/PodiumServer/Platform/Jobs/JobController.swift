import Foundation
import Hummingbird
import PodiumStore

/// `GET /api/v1/jobs/{id}`: where a job stands. Only its owner and admins see it; to anyone
/// else it does not exist.
struct JobController {
    let store: any JobStore
    let queue: JobQueue

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("jobs/:id", use: show)
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> JobResponse {
        let user = try context.requireUser()
        guard let job = try await store.job(id: try context.parameters.require("id")),
            job.ownerId == user.id || user.role == .admin
        else { throw APIError.notFound("job") }
        return JobResponse(job, newestProgress: queue.progress(jobId: job.id))
    }
}

/// A job as the API shows it (see `Public/openapi.yaml`).
struct JobResponse: ResponseEncodable, Codable {
    let id: String
    let kind: String
    /// What it works on: a deck's id for `pdf`.
    let subjectId: String
    /// `queued`, `running`, `done` or `failed`.
    let state: String
    /// Runs started (a run cut short by a graceful shutdown is not counted).
    let attempts: Int
    /// While queued or running: the newest known.
    let progress: JobProgress?
    /// When failed.
    let error: JobFailure?
    let createdAt: Date
    let updatedAt: Date

    init(_ job: JobRecord, newestProgress: JobProgress?) {
        id = job.id
        kind = job.kind
        subjectId = job.subjectId
        state = job.state.rawValue
        attempts = job.attempts
        progress = job.isFinished ? nil : (newestProgress ?? job.progress)
        error = job.state == .failed ? job.error : nil
        createdAt = job.createdAt
        updatedAt = job.updatedAt
    }
}
