import Foundation
import PodiumClient
import PodiumCore
import Synchronization
import Testing

extension Client {
    /// The SDK pointed at this test server.
    func sdk(token: String? = nil) -> PodiumClient {
        PodiumClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, token: token)
    }

    /// The SDK signed in as the admin.
    func adminSDK() async throws -> PodiumClient {
        let podium = sdk()
        try await podium.signIn(email: "admin", password: TestServer.adminPassword)
        return podium
    }
}

/// A reconnection delay the test decides: each `wait` returns once the test opens the gate.
actor Gate {
    private var permits = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private(set) var waits = 0

    func wait() async {
        waits += 1
        if permits > 0 {
            permits -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        if waiters.isEmpty { permits += 1 } else { waiters.removeFirst().resume() }
    }

    nonisolated var policy: ReconnectPolicy {
        ReconnectPolicy(jitter: false, sleep: { _ in await self.wait() })
    }
}

/// Reconnects at once (no time passes).
let immediately = ReconnectPolicy(initialDelay: .zero, jitter: false, sleep: { _ in })

/// Everything a live session handed its reader, collected as it comes.
final class Updates: Sendable {
    private final class Box: Sendable {
        let list = Mutex<[LiveUpdate]>([])
    }
    private let box: Box
    private let task: Task<Void, Never>

    init(_ session: PodiumLiveSession) {
        let box = Box()
        self.box = box
        task = Task {
            do {
                for try await update in session.updates { box.list.withLock { $0.append(update) } }
            } catch {}
        }
    }

    var all: [LiveUpdate] { box.list.withLock { $0 } }

    var events: [SessionEvent] {
        all.compactMap { if case .event(let event) = $0 { event } else { nil } }
    }

    var pages: [Int] {
        events.compactMap { if case .page(let page) = $0.change { page } else { nil } }
    }

    func waitFor(_ what: String, _ condition: @escaping ([LiveUpdate]) -> Bool) async throws {
        try await waitUntil(what) { condition(self.all) }
    }

    deinit { task.cancel() }
}
