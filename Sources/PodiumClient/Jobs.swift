import Foundation
import PodiumWire

extension Endpoint {
    public static let job = Endpoint("GET", "/api/v1/jobs/{id}")
}

extension PodiumClient {
    public func job(id: String) async throws -> Job {
        try await call(.job, ["id": id])
    }

    /// Follows a job until it is `done` or `failed`, telling `onProgress` each change it sees.
    public func waitForJob(
        id: String, pollEvery interval: Duration = .milliseconds(250), onProgress: (@Sendable (Job) -> Void)? = nil
    ) async throws -> Job {
        var last: Job?
        while true {
            let job = try await job(id: id)
            if job != last { onProgress?(job) }
            last = job
            if job.isFinished { return job }
            try await Task.sleep(for: interval)
        }
    }
}
