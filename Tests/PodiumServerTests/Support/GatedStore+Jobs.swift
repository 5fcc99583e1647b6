import Foundation
import PodiumStore

// The job queue goes straight to the real store.
extension GatedStore {
    func insertJob(_ job: JobRecord) async throws {
        try await base.insertJob(job)
    }

    func job(id: String) async throws -> JobRecord? {
        try await base.job(id: id)
    }

    func unfinishedJobs() async throws -> [JobRecord] {
        try await base.unfinishedJobs()
    }

    func claimJob(kind: String, at: Date, leaseUntil: Date) async throws -> JobRecord? {
        try await base.claimJob(kind: kind, at: at, leaseUntil: leaseUntil)
    }

    func renewJobLease(id: String, attempt: Int, until: Date) async throws -> Bool {
        try await base.renewJobLease(id: id, attempt: attempt, until: until)
    }

    func saveJobProgress(id: String, attempt: Int, _ progress: JobProgress, at: Date) async throws {
        try await base.saveJobProgress(id: id, attempt: attempt, progress, at: at)
    }

    func finishJob(id: String, attempt: Int, failure: JobFailure?, at: Date) async throws -> Bool {
        try await base.finishJob(id: id, attempt: attempt, failure: failure, at: at)
    }

    func releaseJob(id: String, attempt: Int, progress: JobProgress, at: Date) async throws -> Bool {
        try await base.releaseJob(id: id, attempt: attempt, progress: progress, at: at)
    }

    func requeueExpiredJobs(at: Date) async throws -> Int {
        try await base.requeueExpiredJobs(at: at)
    }
}
