import Foundation
import SQLKit

/// The job queue on SQL. Every statement is plain SQL that SQLite and PostgreSQL both run
/// (`RETURNING` included); only the placeholders differ, and the dialect writes those, and
/// PostgreSQL's claim skips locked rows. A running job's `lease_until` is when it is given up
/// for dead unless its node renews it.
extension SQLStore: JobStore {
    /// A row of `jobs` as stored.
    private struct Row: Codable {
        var id: String
        var kind: String
        var subjectId: String
        var payload: String
        var state: String
        var attempts: Int
        var progressStage: String
        var progressDone: Int
        var progressTotal: Int
        var errorCode: String?
        var errorMessage: String?
        var ownerId: String?
        var createdAt: Date
        var updatedAt: Date
        var leaseUntil: Date?

        init(_ job: JobRecord) {
            id = job.id
            kind = job.kind
            subjectId = job.subjectId
            payload = job.payload
            state = job.state.rawValue
            attempts = job.attempts
            progressStage = job.progress.stage
            progressDone = job.progress.done
            progressTotal = job.progress.total
            errorCode = job.error?.code
            errorMessage = job.error?.message
            ownerId = job.ownerId
            createdAt = job.createdAt
            updatedAt = job.updatedAt
            leaseUntil = job.leaseUntil
        }

        var record: JobRecord {
            JobRecord(
                id: id, kind: kind, subjectId: subjectId, ownerId: ownerId, payload: payload,
                // A state this version does not know is shown as failed rather than run.
                state: JobRecord.State(rawValue: state) ?? .failed, attempts: attempts,
                progress: JobProgress(stage: progressStage, done: progressDone, total: progressTotal),
                error: errorCode.map { JobFailure(code: $0, message: errorMessage ?? "") }, createdAt: createdAt,
                updatedAt: updatedAt, leaseUntil: leaseUntil)
        }
    }

    public func insertJob(_ job: JobRecord) async throws {
        try await serial { db in
            try await db.insert(into: "jobs").model(
                Row(job), keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil
            )
            .run()
        }
    }

    public func job(id: String) async throws -> JobRecord? {
        try await serial { db in
            try await db.select().column("*").from("jobs").where("id", .equal, id)
                .first(decoding: Row.self, with: Self.decoding)?.record
        }
    }

    public func unfinishedJobs() async throws -> [JobRecord] {
        try await serial { db in
            try await db.raw("SELECT * FROM jobs WHERE state IN ('queued', 'running') ORDER BY created_at, id")
                .all(decoding: Row.self, with: Self.decoding).map(\.record)
        }
    }

    public func claimJob(kind: String, at now: Date, leaseUntil: Date) async throws -> JobRecord? {
        // One statement: the outer `state = 'queued'` guard makes it atomic for any number of
        // workers. On PostgreSQL (several nodes) the inner select skips rows another claimer has
        // locked, so it takes the next job instead of waiting; were it to read a row just
        // claimed, the guard, checked again after the other commits, leaves it with no row.
        let skipLocked = dialect == .postgres ? "FOR UPDATE SKIP LOCKED" : ""
        return try await serial { db in
            try await db.raw(
                """
                UPDATE jobs SET state = 'running', attempts = attempts + 1, updated_at = \(bind: now),
                  lease_until = \(bind: leaseUntil)
                WHERE id = (SELECT id FROM jobs WHERE kind = \(bind: kind) AND state = 'queued'
                            ORDER BY created_at, id LIMIT 1 \(unsafeRaw: skipLocked))
                  AND state = 'queued'
                RETURNING *
                """
            ).first(decoding: Row.self, with: Self.decoding)?.record
        }
    }

    public func renewJobLease(id: String, attempt: Int, until: Date) async throws -> Bool {
        struct Renewed: Decodable { let id: String }
        // A lease only grows: a renewal computed earlier and written late never shortens it.
        return try await serial { db in
            try await db.raw(
                """
                UPDATE jobs SET lease_until = CASE WHEN lease_until IS NULL OR lease_until < \(bind: until)
                                                   THEN \(bind: until) ELSE lease_until END
                WHERE id = \(bind: id) AND state = 'running' AND attempts = \(bind: attempt)
                RETURNING id
                """
            ).all(decoding: Renewed.self).isEmpty == false
        }
    }

    public func saveJobProgress(id: String, attempt: Int, _ progress: JobProgress, at now: Date) async throws {
        try await serial { db in
            try await db.update("jobs")
                .set("progress_stage", to: progress.stage).set("progress_done", to: progress.done)
                .set("progress_total", to: progress.total).set("updated_at", to: now)
                .where("id", .equal, id).where("state", .equal, JobRecord.State.running.rawValue)
                .where("attempts", .equal, attempt)
                .run()
        }
    }

    @discardableResult
    public func finishJob(id: String, attempt: Int, failure: JobFailure?, at now: Date) async throws -> Bool {
        struct Finished: Decodable { let id: String }
        let state = (failure == nil ? JobRecord.State.done : .failed).rawValue
        let (code, message): (any SQLExpression, any SQLExpression) =
            failure.map { (SQLBind($0.code), SQLBind($0.message)) } ?? (SQLLiteral.null, SQLLiteral.null)
        return try await serial { db in
            try await db.raw(
                """
                UPDATE jobs SET state = \(bind: state), error_code = \(code),
                  error_message = \(message), updated_at = \(bind: now)
                WHERE id = \(bind: id) AND attempts = \(bind: attempt) AND state IN ('queued', 'running')
                RETURNING id
                """
            ).all(decoding: Finished.self).isEmpty == false
        }
    }

    @discardableResult
    public func releaseJob(id: String, attempt: Int, progress: JobProgress, at now: Date) async throws -> Bool {
        struct Released: Decodable { let id: String }
        return try await serial { db in
            try await db.raw(
                """
                UPDATE jobs SET state = 'queued', attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END,
                  progress_stage = \(bind: progress.stage), progress_done = \(bind: progress.done),
                  progress_total = \(bind: progress.total), updated_at = \(bind: now), lease_until = NULL
                WHERE id = \(bind: id) AND state = 'running' AND attempts = \(bind: attempt)
                RETURNING id
                """
            ).all(decoding: Released.self).isEmpty == false
        }
    }

    public func requeueExpiredJobs(at now: Date) async throws -> Int {
        struct Requeued: Decodable { let id: String }
        return try await serial { db in
            try await db.raw(
                """
                UPDATE jobs SET state = 'queued', updated_at = \(bind: now), lease_until = NULL
                WHERE state = 'running' AND (lease_until IS NULL OR lease_until < \(bind: now))
                RETURNING id
                """
            ).all(decoding: Requeued.self).count
        }
    }
}
