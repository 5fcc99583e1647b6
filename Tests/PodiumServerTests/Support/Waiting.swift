import PodiumStore
import Testing

/// Checks `condition` until it holds; after `seconds` records what did not happen and throws,
/// so the test stops there.
func waitUntil(_ what: String, seconds: Double = 20, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("still not true after \(seconds) s: \(what)")
            throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// Runs `body`, then closes the store and runs `cleanUp` (drops its database) whatever happened:
/// a store dropped open stops a debug build (SQLiteNIO asserts), which would take every other
/// test down with a failing one.
func closing(_ store: SQLStore, then cleanUp: () async -> Void = {}, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        try? await store.close()
        await cleanUp()
        throw error
    }
    try await store.close()
    await cleanUp()
}
