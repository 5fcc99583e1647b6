import Foundation
import Logging
import PodiumStore
import ServiceLifecycle
import Synchronization

/// Runs the long work kept in the store (see ``JobStore``): each kind of job by its own
/// ``JobWorker``, so many at once as the kind allows, with progress per job.
///
/// - Progress lives in memory, where the API reads it, and is saved at most once per
///   `progressSaveInterval`, so a restart shows the last known.
/// - A running job is leased to the node running it, which renews the lease every
///   `heartbeatInterval`; at start and at every poll, jobs whose lease expired (their node died:
///   no renewal for `leaseDuration`) are queued again, and any node takes them. A live node's jobs
///   are never taken from it. A run that was cut short counts as an attempt, unless the stop was
///   graceful (the job is released at once); past `maxAttempts` the job fails with
///   `interrupted`, so a file that brings the server down each time is not tried for ever.
/// - A shutdown does not wait for a job (a large one takes minutes): its worker is cancelled and
///   the job goes back to the queue for the next start.
/// - A job whose kind no worker takes fails with `unknown_kind`.
final class JobQueue: Service, Sendable {
    struct Settings: Sendable {
        /// Jobs of one kind run at once; 1 unless named.
        var concurrency: [String: Int] = [:]
        /// Runs started for one job before it is given up.
        var maxAttempts = 3
        var progressSaveInterval = Duration.seconds(1)
        /// How often the store is asked for jobs nobody announced (another node's; a claim that
        /// failed on a store error).
        var pollInterval = Duration.seconds(5)
        /// How often a node renews the lease of each job it runs.
        var heartbeatInterval = Duration.seconds(5)
        /// How long a job's lease lasts without renewal: past it, the job's node is taken for
        /// dead and the job is queued again. Three heartbeats, so a slow write or two is no death.
        var leaseDuration: Duration { heartbeatInterval * 3 }
    }

    /// A job this server knows is unfinished, and its newest progress.
    private struct Tracked {
        var kind: String
        var subjectId: String
        var progress: JobProgress
        var running = false
        /// Which run this node is (the job's `attempts` when claimed), for its lease.
        var attempt = 0
        /// Progress reported since it was last saved.
        var unsaved = false
        /// When its progress entered the current stage (reported here), and how much was done
        /// then: the stage's rate, for an estimate of the time it has left.
        var stageSince: (at: Date, done: Int)?
    }

    private struct Board {
        var jobs: [String: Tracked] = [:]
        var jobBySubject: [String: String] = [:]
        /// The last job of each kind that ended well here: its subject, and how long its run took.
        var lastRun: [String: (subjectId: String, seconds: TimeInterval)] = [:]
    }

    private let store: any JobStore
    private let workers: [String: any JobWorker]
    private let settings: Settings
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let board = Mutex(Board())
    /// One wake-up stream per kind: a job was queued or finished, or the poll is due.
    private let wakeups: [String: (stream: AsyncStream<Void>, continuation: AsyncStream<Void>.Continuation)]

    init(
        store: any JobStore, workers: [any JobWorker], settings: Settings, logger: Logger,
        now: @escaping @Sendable () -> Date
    ) {
        let byKind = Dictionary(workers.map { ($0.kind, $0) }, uniquingKeysWith: { first, _ in first })
        self.store = store
        self.workers = byKind
        self.settings = settings
        self.logger = logger
        self.now = now
        wakeups = byKind.mapValues { _ in AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1)) }
    }

    // MARK: Queueing and reading

    /// Queues a job of `kind` about `subjectId` with its payload.
    func enqueue(kind: String, subjectId: String, ownerId: String?, payload: some Encodable) async throws -> JobRecord {
        let json = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
        let at = now()
        let job = JobRecord(
            id: IDs.make("j"), kind: kind, subjectId: subjectId, ownerId: ownerId, payload: json, createdAt: at, updatedAt: at)
        guard workers[kind] != nil else {
            try await store.insertJob(job)
            await failUnknownKind(kind)
            return job
        }
        // Known before it is stored: a worker may take it as soon as it is.
        track(job)
        do {
            try await store.insertJob(job)
        } catch {
            untrack(job)
            throw error
        }
        wakeups[kind]?.continuation.yield()
        return job
    }

    /// The newest progress of the unfinished job about `subjectId`.
    func progress(subjectId: String) -> JobProgress? {
        board.withLock { board in board.jobBySubject[subjectId].flatMap { board.jobs[$0]?.progress } }
    }

    /// About how many seconds the current stage of the unfinished job about `subjectId` has left,
    /// from its rate since it entered that stage here (at least a second and some progress
    /// ago); nil when unknown.
    func secondsLeft(subjectId: String) -> Double? {
        let moment = now()
        return board.withLock { board -> Double? in
            guard let id = board.jobBySubject[subjectId], let tracked = board.jobs[id], let since = tracked.stageSince
            else { return nil }
            let elapsed = moment.timeIntervalSince(since.at)
            let done = tracked.progress.done - since.done
            guard elapsed >= 1, done > 0, tracked.progress.total >= tracked.progress.done else { return nil }
            return Double(tracked.progress.total - tracked.progress.done) * elapsed / Double(done)
        }
    }

    /// The last job of `kind` that ended well on this server, and how long its run took (its
    /// wall time): what a kind's estimates of the time queued work will take start from.
    func lastRun(kind: String) -> (subjectId: String, seconds: TimeInterval)? {
        board.withLock { $0.lastRun[kind] }
    }

    /// The jobs of `kind` queued or running in the store (every node's), the oldest first.
    func unfinished(kind: String) async throws -> [JobRecord] {
        try await store.unfinishedJobs().filter { $0.kind == kind }
    }

    /// The newest progress of an unfinished job, nil when this server does not know it as unfinished.
    func progress(jobId: String) -> JobProgress? {
        board.withLock { $0.jobs[jobId]?.progress }
    }

    // MARK: Running

    func run() async throws {
        await requeueExpired(at: now())
        guard
            let unfinished = await cancelWhenGracefulShutdown({
                await retryingUntilItAnswers("read the unfinished jobs", logger: self.logger) {
                    try await self.store.unfinishedJobs()
                }
            })
        else { return }
        for job in unfinished where workers[job.kind] != nil { track(job) }
        for kind in Set(unfinished.map(\.kind)) where workers[kind] == nil { await failUnknownKind(kind) }

        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                for kind in self.workers.keys { group.addTask { await self.dispatch(kind: kind) } }
                group.addTask { await self.poll() }
                group.addTask { await self.heartbeat() }
            }
        }
    }

    /// Claims jobs of one kind while it has a free slot, and waits for a wake-up when it has none
    /// or the queue is empty.
    private func dispatch(kind: String) async {
        guard let wakeup = wakeups[kind] else { return }
        let slots = max(1, settings.concurrency[kind] ?? 1)
        var signals = wakeup.stream.makeAsyncIterator()
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                while runningCount(kind: kind) < slots, let job = await claim(kind: kind) {
                    markRunning(job)
                    group.addTask {
                        await self.execute(job)
                        self.wakeups[kind]?.continuation.yield()
                    }
                }
                guard await signals.next() != nil else { return }
            }
        }
    }

    private func poll() async {
        while (try? await Task.sleep(for: settings.pollInterval)) != nil {
            // Its own leases first, to the same instant: a node that was paused (or whose clock
            // jumped) past its leases must not give up the jobs it still runs.
            let at = now()
            await renewLeases(at: at)
            await requeueExpired(at: at)
            for wakeup in wakeups.values { wakeup.continuation.yield() }
        }
    }

    /// Queues again the jobs of nodes that died (this one, before a crash, included).
    private func requeueExpired(at: Date) async {
        do {
            let requeued = try await store.requeueExpiredJobs(at: at)
            if requeued > 0 { logger.notice("\(requeued) job(s) whose server stopped renewing them are queued again") }
        } catch {
            if !Task.isCancelled { logger.error("could not look for jobs of stopped servers: \(error)") }
        }
    }

    private var leaseUntil: Date { leaseUntil(from: now()) }

    private func leaseUntil(from at: Date) -> Date { at.addingTimeInterval(Self.seconds(settings.leaseDuration)) }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    private func claim(kind: String) async -> JobRecord? {
        do {
            return try await store.claimJob(kind: kind, at: now(), leaseUntil: leaseUntil)
        } catch {
            if !Task.isCancelled { logger.error("could not take the next \(kind) job: \(error)") }
            return nil
        }
    }

    /// Runs one claimed job to its end: done, failed, or back in the queue if the server stops.
    private func execute(_ job: JobRecord) async {
        defer { untrack(job) }
        guard let worker = workers[job.kind] else { return }
        guard job.attempts <= settings.maxAttempts else {
            let failure = JobFailure(
                code: "interrupted",
                message: "The server stopped \(job.attempts - 1) times while working on this, so it is not tried again.")
            logger.error("job \(job.id) (\(job.kind) of \(job.subjectId)) given up: \(failure.message)")
            await finish(job, failure: failure, worker: worker)
            return
        }
        logger.info("job \(job.id): \(job.kind) of \(job.subjectId), attempt \(job.attempts)")
        let started = now()
        do {
            // The worker's end decides; the saver only stops with it (or first, when cancelled:
            // then the worker's error is still to come, and must not be dropped).
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await worker.run(job) { progress in self.report(jobId: job.id, progress) }
                    return true
                }
                group.addTask {
                    await self.saveProgressPeriodically(jobId: job.id, attempt: job.attempts)
                    return false
                }
                defer { group.cancelAll() }
                while let workerEnded = try await group.next() {
                    if workerEnded { return }
                }
            }
            let seconds = now().timeIntervalSince(started)
            board.withLock { $0.lastRun[job.kind] = (job.subjectId, seconds) }
            await finish(job, failure: nil, worker: worker)
        } catch  where Task.isCancelled {
            // The server is stopping: the job goes back to the queue. This task is cancelled, so
            // the write runs in a task of its own.
            let lastProgress = progress(jobId: job.id) ?? job.progress
            let store = self.store
            let at = now()
            do {
                let released = try await Task {
                    try await store.releaseJob(id: job.id, attempt: job.attempts, progress: lastProgress, at: at)
                }.value
                if released {
                    logger.notice("job \(job.id) (\(job.kind) of \(job.subjectId)) left for the next start")
                }
            } catch {
                logger.error("job \(job.id) could not be put back in the queue (it is counted as interrupted): \(error)")
            }
        } catch {
            let failure: JobFailure
            if let known = error as? JobFailure {
                failure = known
                logger.notice("job \(job.id) (\(job.kind) of \(job.subjectId)) failed: \(known)")
            } else {
                failure = JobFailure(code: "internal", message: "The server could not finish this work.")
                logger.error("job \(job.id) (\(job.kind) of \(job.subjectId)) failed unexpectedly: \(error)")
            }
            await finish(job, failure: failure, worker: worker)
        }
    }

    /// Records the end of a job, then lets its worker record a failure on its subject.
    private func finish(_ job: JobRecord, failure: JobFailure?, worker: any JobWorker) async {
        do {
            if try await !store.finishJob(id: job.id, attempt: job.attempts, failure: failure, at: now()) {
                // Its lease ran out while it ran (this server stalled or was cut off), and
                // another run has started since: that run's end is the job's.
                logger.warning("job \(job.id) ended here after another server had taken it over; its end is left to that run")
                return
            }
        } catch {
            logger.error("could not record the end of job \(job.id) (it runs again at the next start): \(error)")
        }
        if let failure { await worker.failed(job, because: failure) }
    }

    /// Fails every queued job of a kind no worker takes.
    private func failUnknownKind(_ kind: String) async {
        let failure = JobFailure(code: "unknown_kind", message: "This server has no worker for jobs of kind \(kind).")
        do {
            while let job = try await store.claimJob(kind: kind, at: now(), leaseUntil: leaseUntil) {
                logger.error("job \(job.id) failed: \(failure.message)")
                try await store.finishJob(id: job.id, attempt: job.attempts, failure: failure, at: now())
            }
        } catch {
            logger.error("could not fail the jobs of unknown kind \(kind): \(error)")
        }
    }

    // MARK: Progress

    private func report(jobId: String, _ progress: JobProgress) {
        board.withLock { board in
            guard let tracked = board.jobs[jobId] else { return }
            if tracked.stageSince == nil || tracked.progress.stage != progress.stage || progress.done < tracked.progress.done {
                board.jobs[jobId]?.stageSince = (now(), progress.done)
            }
            board.jobs[jobId]?.progress = progress
            board.jobs[jobId]?.unsaved = true
        }
    }

    /// Saves the job's newest progress now and then, until cancelled.
    private func saveProgressPeriodically(jobId: String, attempt: Int) async {
        while (try? await Task.sleep(for: settings.progressSaveInterval)) != nil {
            let unsaved = board.withLock { board -> JobProgress? in
                guard let tracked = board.jobs[jobId], tracked.unsaved else { return nil }
                board.jobs[jobId]?.unsaved = false
                return tracked.progress
            }
            guard let unsaved else { continue }
            do {
                try await store.saveJobProgress(id: jobId, attempt: attempt, unsaved, at: now())
            } catch {
                if !Task.isCancelled { logger.warning("could not save the progress of job \(jobId): \(error)") }
            }
        }
    }

    /// Renews the leases of the jobs this node runs every heartbeat, until cancelled. A failed
    /// renewal is retried at the next; a lease lasts several, so only a node that stays cut off
    /// loses its jobs.
    private func heartbeat() async {
        while (try? await Task.sleep(for: settings.heartbeatInterval)) != nil {
            await renewLeases(at: now())
        }
    }

    private func renewLeases(at: Date) async {
        let running = board.withLock { board in
            board.jobs.compactMap { id, tracked in tracked.running ? (id: id, attempt: tracked.attempt) : nil }
        }
        for job in running {
            do {
                if try await !store.renewJobLease(id: job.id, attempt: job.attempt, until: leaseUntil(from: at)),
                    board.withLock({ $0.jobs[job.id]?.running == true })
                {
                    logger.warning("job \(job.id) was taken for abandoned while this server ran it; it may run twice")
                }
            } catch {
                if !Task.isCancelled { logger.warning("could not renew the lease of job \(job.id): \(error)") }
            }
        }
    }

    // MARK: The board of unfinished jobs

    private func track(_ job: JobRecord) {
        board.withLock { board in
            board.jobs[job.id] = Tracked(kind: job.kind, subjectId: job.subjectId, progress: job.progress)
            board.jobBySubject[job.subjectId] = job.id
        }
    }

    private func markRunning(_ job: JobRecord) {
        board.withLock { board in
            board.jobs[job.id, default: Tracked(kind: job.kind, subjectId: job.subjectId, progress: job.progress)].running = true
            board.jobs[job.id]?.attempt = job.attempts
            board.jobBySubject[job.subjectId] = job.id
        }
    }

    private func untrack(_ job: JobRecord) {
        board.withLock { board in
            board.jobs[job.id] = nil
            if board.jobBySubject[job.subjectId] == job.id { board.jobBySubject[job.subjectId] = nil }
        }
    }

    private func runningCount(kind: String) -> Int {
        board.withLock { $0.jobs.values.count { $0.running && $0.kind == kind } }
    }
}
