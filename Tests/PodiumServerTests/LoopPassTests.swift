import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import PodiumServer

/// A loop's pass takes up what is queued while it runs (``LoopBatch``): a broadcast queued halfway
/// through a pass reaches the sockets the pass has not written yet in that pass, and the others in
/// the next; every socket still gets every frame once, in the order they were queued.
@Suite("Loop passes")
struct LoopPassTests {
    /// Sockets on one loop, each with NIO's frame encoder (past which the outbox writes).
    final class Sockets {
        let loop = EmbeddedEventLoop()
        var channels: [EmbeddedChannel] = []
        var outboxes: [Outbox] = []
        /// What each socket has been sent so far, as the payloads of its text frames.
        var received: [[String]] = []

        init(_ count: Int) throws {
            for _ in 0..<count { try add() }
            loop.run()  // the outboxes attach
        }

        @discardableResult
        func add() throws -> Outbox {
            let channel = EmbeddedChannel(handler: WebSocketFrameEncoder(), loop: loop)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
            channels.append(channel)
            let outbox = Outbox(limit: 64, channel: channel)
            outboxes.append(outbox)
            received.append([])
            return outbox
        }

        /// Reads what each socket was written since the last call (small unmasked text frames).
        func read() throws -> [[String]] {
            for (index, channel) in channels.enumerated() {
                while var bytes = try channel.readOutbound(as: ByteBuffer.self) {
                    while let header = bytes.readInteger(as: UInt8.self), let length = bytes.readInteger(as: UInt8.self) {
                        #expect(header == 0x81 && length < 126, "a small text frame")
                        received[index].append(bytes.readString(length: Int(length)) ?? "?")
                    }
                }
            }
            return received
        }

        /// The pass's next turn (a moment after the last).
        func nextTurn() {
            loop.advanceTime(by: LoopBatch.readBreak)
        }

        /// Every turn left.
        func finish() {
            for _ in 0..<1000 { nextTurn() }
        }
    }

    static func frame(_ text: String) -> Outbox.Frame { Outbox.Frame(ByteBuffer(string: text)) }

    /// Two turns and a bit: the first turn writes `socketsPerTurn` sockets.
    static let count = LoopBatch.socketsPerTurn * 2 + 50

    @Test func aBroadcastQueuedHalfwayReachesTheRestInTheSamePassAndTheFirstHalfInTheNext() throws {
        let sockets = try Sockets(Self.count)
        let groups = OutboxGroups(sockets.outboxes)
        let turn = LoopBatch.socketsPerTurn
        groups.send(.push(Self.frame("a")))
        sockets.loop.run()  // the pass's first turn
        var got = try sockets.read()
        #expect(got[0] == ["a"] && got[turn] == [], "one turn written")
        groups.send(.push(Self.frame("b")))
        // A frame for one socket after it: it must not overtake b on either socket.
        sockets.outboxes[0].push(Self.frame("one"))
        sockets.outboxes[turn + 10].push(Self.frame("one"))
        sockets.nextTurn()
        got = try sockets.read()
        #expect(got[turn + 1] == ["a", "b"], "b in the pass that was running, beside a")
        #expect(got[0] == ["a"], "the sockets written before b get it in the next pass")
        sockets.finish()
        got = try sockets.read()
        for index in 0..<Self.count {
            let expected = index == 0 || index == turn + 10 ? ["a", "b", "one"] : ["a", "b"]
            #expect(got[index] == expected, "socket \(index)")
        }
    }

    @Test func aNewcomersWelcomeQueuedDuringAPassStaysAheadOfTheBroadcastsAfterIt() throws {
        let sockets = try Sockets(Self.count)
        var groups = OutboxGroups(sockets.outboxes)
        groups.send(.push(Self.frame("a")))
        sockets.loop.run()
        // Someone joins halfway: their welcome is queued, then they are in the group.
        let newcomer = try sockets.add()
        sockets.loop.run()  // it attaches
        newcomer.push(Self.frame("welcome"))
        groups.append(newcomer)
        groups.send(.push(Self.frame("b")))
        sockets.finish()
        let got = try sockets.read()
        #expect(got[Self.count] == ["welcome", "b"])
        for index in 0..<Self.count { #expect(got[index] == ["a", "b"], "socket \(index)") }
    }

    @Test func manyBroadcastsQueuedDuringAPassKeepTheirOrderEverywhere() throws {
        let sockets = try Sockets(Self.count)
        let groups = OutboxGroups(sockets.outboxes)
        groups.send(.push(Self.frame("e0")))
        sockets.loop.run()
        var sent = ["e0"]
        // Queued over several turns, with pointer moves and frames for one socket between them.
        for turn in 0..<3 {
            for n in 0..<10 {
                let name = "e\(turn)-\(n)"
                groups.send(.push(Self.frame(name)))
                sent.append(name)
                groups.send(.replace(.pointer, Self.frame("p")))
                for index in [0, LoopBatch.socketsPerTurn + 1, Self.count - 1] { sockets.outboxes[index].push(Self.frame(name)) }
            }
            sockets.nextTurn()
        }
        sockets.finish()
        let got = try sockets.read()
        for index in 0..<Self.count {
            let twice = [0, LoopBatch.socketsPerTurn + 1, Self.count - 1].contains(index)
            let expected = twice ? sent.flatMap { $0 == "e0" ? [$0] : [$0, $0] } : sent
            #expect(got[index].filter { $0 != "p" } == expected, "socket \(index)")
            #expect(!got[index].isEmpty && got[index].filter { $0 == "p" }.count >= 1, "socket \(index) saw the pointer")
        }
    }
}
