import Foundation

/// Runs blocking I/O (a raw socket's `read(2)`, say) on a thread of its own.
///
/// Swift Testing runs tests on the cooperative thread pool, which is only as wide as the machine
/// has cores, and the server under test runs its own tasks there too. A test that blocks a pool
/// thread waiting for the server can starve the very server it waits for: on a 2-core CI machine
/// two such tests at once deadlock.
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
