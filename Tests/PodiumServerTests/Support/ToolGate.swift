import Foundation
import PodiumMedia
import Synchronization

/// The real tools, except that runs of one tool (`pdftoppm`, say) wait until the test opens the
/// gate: an ingest can be caught mid-way, with its progress reported so far. A held run ends with
/// `CancellationError` when its task is cancelled, as a real run is killed.
final class ToolGate: ToolRunner {
    private struct State {
        var open = false
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextId = 0
    }

    let heldTool: String
    /// One element each time a run of the held tool starts waiting.
    let arrivals: AsyncStream<Void>
    private let arrived: AsyncStream<Void>.Continuation
    private let state = Mutex(State())
    private let base = SystemToolRunner()

    init(holding tool: String) {
        heldTool = tool
        (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
    }

    /// Lets every held run go on, and every later one through.
    func open() {
        let held = state.withLock { state in
            state.open = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in held { continuation.resume() }
    }

    /// Waits until a run of the held tool is held (call it once per gate).
    func arrival() async {
        var iterator = arrivals.makeAsyncIterator()
        _ = await iterator.next()
    }

    func run(_ tool: String, _ arguments: [String], limits: ToolLimits) async throws -> ToolResult {
        if tool == heldTool { try await hold() }
        return try await base.run(tool, arguments, limits: limits)
    }

    private func hold() async throws {
        let id = state.withLock { state in
            state.nextId += 1
            return state.nextId
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let goOn = state.withLock { state in
                    if state.open || Task.isCancelled { return true }
                    state.waiting[id] = continuation
                    return false
                }
                if goOn { continuation.resume() } else { arrived.yield() }
            }
        } onCancel: {
            state.withLock { $0.waiting.removeValue(forKey: id) }?.resume()
        }
        try Task.checkCancellation()
    }
}
