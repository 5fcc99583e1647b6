import PodiumStore

/// Does the jobs of one kind (`pdf` today; video packaging and storyboard export next). A new
/// kind of long work is a new worker given to the ``JobQueue`` in `buildApplication`, with the
/// payload type of its own that its ``JobRecord/payload`` holds as JSON.
protocol JobWorker: Sendable {
    /// The ``JobRecord/kind`` this worker takes.
    var kind: String { get }

    /// Does the job to the end. Reports progress as it goes (cheap: kept in memory, saved now
    /// and then).
    ///
    /// A job may be run again after the server stopped in the middle of it, so the work must
    /// cope with being started over, and should check that its subject still wants it.
    /// - Throws: ``JobFailure`` for a failure people should read (any other error is recorded
    ///   as `internal`); `CancellationError` when the server stops, which puts the job back in
    ///   the queue for the next start.
    func run(_ job: JobRecord, progress: @escaping @Sendable (JobProgress) -> Void) async throws

    /// The job ended failed, whatever the reason (``run(_:progress:)`` threw, or the server
    /// stopped during every attempt): the worker records the failure on its subject.
    func failed(_ job: JobRecord, because failure: JobFailure) async
}
