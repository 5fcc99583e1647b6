import Foundation
import Testing

@testable import PodiumServer

/// Broadcast groups grow as people join and are rebuilt only after many have left
/// (``OutboxGroups``, ``LoopBatch``): whoever joins or stays gets every event after their welcome,
/// once and in order, whatever was in flight when they joined.
@Suite("Broadcast groups", .timeLimit(.minutes(3)))
struct BroadcastGroupTests {
    /// Reads durable events until `last`, and checks they are exactly `after + 1 ... last`.
    static func expectEvents(_ socket: TestSocket, after: Int, through last: Int, _ who: String) async throws {
        var seq = after
        while seq < last {
            guard let event = try await socket.nextDurable() else {
                Issue.record("\(who): the socket closed after seq \(seq)")
                return
            }
            guard let next = event["seq"] as? Int else { continue }  // an ack, a pong
            #expect(next == seq + 1, "\(who): seq \(next) after \(seq)")
            seq = next
        }
    }

    static func goto(_ n: Int) -> String {
        #"{"type":"goto","id":"g\#(n)","page":\#(n % 2 == 0 ? 2 : 3)}"#
    }

    @Test func newcomersDuringABurstGetEveryEventAfterTheirWelcomeOnce() async throws {
        let server = TestServer { $0.socketMessageRate = 100_000 }
        defer { server.removeData() }
        try await server.run { client in
            let (_, code, presenter) = try await client.presentSession()
            let first = try await client.socket(code: code)
            let base = try #require(try await first.hello(["role": "viewer"])["seq"] as? Int)
            // The presenter's commands go out in bursts that the server is still working through
            // while each newcomer says hello.
            let total = 240
            var newcomers: [(socket: TestSocket, seq: Int)] = []
            for n in 1...total {
                try await presenter.send(Self.goto(n))
                if n % 10 == 0 {
                    let socket = try await client.socket(code: code)
                    let seq = try #require(try await socket.hello(["role": "viewer"])["seq"] as? Int)
                    newcomers.append((socket, seq))
                }
            }
            try await Self.expectEvents(first, after: base, through: base + total, "the first viewer")
            for (index, newcomer) in newcomers.enumerated() {
                try await Self.expectEvents(newcomer.socket, after: newcomer.seq, through: base + total, "newcomer \(index)")
            }
        }
    }

    @Test func afterManyLeaveTheGroupsAreRebuiltAndEveryoneLeftIsReached() async throws {
        try await TestServer.withLiveSession { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            var viewers: [TestSocket] = []
            var base = 0
            for _ in 0..<(SessionFanOut.departuresBeforeRebuild + 10) {
                let viewer = try await client.socket(code: code)
                base = try #require(try await viewer.hello(["role": "viewer"])["seq"] as? Int)
                viewers.append(viewer)
            }
            // More than the threshold leave; the server notices each (the presenter hears the count).
            let leaving = viewers.prefix(SessionFanOut.departuresBeforeRebuild + 5)
            for viewer in leaving { await viewer.close() }
            let staying = Array(viewers.suffix(from: leaving.count))
            var count = -1
            while count != staying.count { count = try await presenter.next(ofType: "presence")?["viewers"] as? Int ?? -1 }
            var newcomers: [TestSocket] = []
            for _ in 0..<3 {
                let viewer = try await client.socket(code: code)
                _ = try await viewer.hello(["role": "viewer"])
                newcomers.append(viewer)
            }
            try await presenter.send(Self.goto(1))
            try await presenter.send(Self.goto(2))
            for (index, viewer) in (staying + newcomers).enumerated() {
                try await Self.expectEvents(viewer, after: base, through: base + 2, "viewer \(index)")
            }
        }
    }
}
