import Foundation
import Hummingbird
import PodiumStore
import PodiumWire

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

/// A job as the API shows it (PodiumWire's `Job`, which the SDK decodes; see `Public/openapi.yaml`).
typealias JobResponse = Job

extension Job: ResponseEncodable {
    init(_ job: JobRecord, newestProgress: JobProgress?) {
        let progress = job.isFinished ? nil : (newestProgress ?? job.progress)
        let error = job.state == .failed ? job.error : nil
        self.init(
            id: job.id, kind: job.kind, subjectId: job.subjectId, state: job.state.rawValue, attempts: job.attempts,
            progress: progress.map { WorkProgress(stage: $0.stage, done: $0.done, total: $0.total) },
            error: error.map { FailureDetail(code: $0.code, message: $0.message) }, createdAt: job.createdAt,
            updatedAt: job.updatedAt)
    }
}
