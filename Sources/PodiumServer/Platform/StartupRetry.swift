import Logging

/// Runs a service's start-up read of the store until it answers, waiting longer each time (0.5 s
/// doubling up to 10 s), or until the task is cancelled (wrapped in `cancelWhenGracefulShutdown`:
/// the server shuts down); nil then.
///
/// A service's `run()` that throws ends the whole service group, the HTTP server with it: a node
/// that already answered `/readyz` stopped listening because its job queue first read the store
/// just after the database went away. A node serves, says it is not ready, and catches up when
/// the database is back instead.
func retryingUntilItAnswers<T: Sendable>(
    _ what: String, logger: Logger, _ read: @Sendable () async throws -> T
) async -> T? {
    var delay = Duration.milliseconds(500)
    while !Task.isCancelled {
        do {
            return try await read()
        } catch {
            if Task.isCancelled { return nil }
            logger.error("could not \(what), trying again in \(delay): \(error)")
        }
        do { try await Task.sleep(for: delay) } catch { return nil }
        delay = min(delay * 2, .seconds(10))
    }
    return nil
}
