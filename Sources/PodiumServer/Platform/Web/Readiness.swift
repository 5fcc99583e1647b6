import Hummingbird
import PodiumStore

/// `GET /readyz`: whether this node can serve, i.e. its store answers a trivial query in time.
/// A load balancer takes a node whose database is gone out of rotation; `/healthz` only says
/// that the process answers.
struct Readiness {
    let store: any StoreHealth
    let timeout: Duration

    struct Ready: ResponseEncodable {
        let status = "ready"
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/readyz") { _, _ -> Ready in
            guard await check() else {
                throw APIError(
                    .serviceUnavailable, code: "store_unavailable", message: "The database does not answer.")
            }
            return Ready()
        }
    }

    /// True when the store answered within `timeout`. The answer does not wait for a ping that
    /// hangs (a connection that cannot be made): it is left behind, cancelled.
    func check() async -> Bool {
        let (answers, answer) = AsyncStream.makeStream(of: Bool.self)
        let ping = Task { answer.yield((try? await store.ping()) != nil) }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            answer.yield(false)
        }
        var iterator = answers.makeAsyncIterator()
        let ready = await iterator.next() ?? false
        answer.finish()
        ping.cancel()
        timer.cancel()
        return ready
    }
}
