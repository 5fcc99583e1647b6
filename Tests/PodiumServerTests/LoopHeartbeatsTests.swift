import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import PodiumServer

/// One timer per event loop keeps every socket on it alive (``LoopHeartbeats``): each socket is
/// visited once an interval, however many there are and however many leave on the way.
@Suite("Loop heartbeats")
struct LoopHeartbeatsTests {
    static let heartbeat = Outbox.Heartbeat(interval: .seconds(10), silenceLimit: .seconds(25))
    /// More than one turn's worth, so a visit is taken in slices.
    static let count = LoopHeartbeats.socketsPerTurn * 2 + 50

    /// Sockets on one loop, each with NIO's frame encoder (past which the outbox writes).
    final class Sockets {
        let loop = EmbeddedEventLoop()
        var channels: [EmbeddedChannel] = []
        var outboxes: [Outbox] = []

        init(_ count: Int) throws {
            for _ in 0..<count {
                let channel = EmbeddedChannel(handler: WebSocketFrameEncoder(), loop: loop)
                try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
                channels.append(channel)
                outboxes.append(Outbox(limit: 8, channel: channel, heartbeat: LoopHeartbeatsTests.heartbeat))
            }
            loop.run()  // the outboxes attach
        }

        /// Pings each socket got since the last call (an empty ping is `0x89 0x00`).
        func pings() throws -> [Int] {
            try channels.map { channel in
                var pings = 0
                while let bytes = try channel.readOutbound(as: ByteBuffer.self) {
                    if bytes.readableBytesView.elementsEqual([0x89, 0x00]) { pings += 1 }
                }
                return pings
            }
        }

        /// Lets `time` pass on the loop, a millisecond at a time past each interval, so a visit's
        /// later slices (a moment after its first) run too.
        func advance(_ time: TimeAmount) {
            loop.advanceTime(by: time)
            for _ in 0..<10 { loop.advanceTime(by: .milliseconds(1)) }
        }
    }

    @Test func everyQuietSocketIsPingedOnceAnInterval() throws {
        let sockets = try Sockets(Self.count)
        sockets.advance(.seconds(5))
        #expect(try sockets.pings().allSatisfy { $0 == 0 }, "nobody is pinged before an interval")
        sockets.advance(.seconds(5))
        #expect(try sockets.pings() == Array(repeating: 1, count: Self.count))
        sockets.advance(.seconds(10))
        #expect(try sockets.pings() == Array(repeating: 1, count: Self.count))
    }

    @Test func aClientThatSpeaksIsNotPingedAndASilentOneIsClosed() throws {
        let sockets = try Sockets(Self.count)
        let speaking = Set(stride(from: 0, to: Self.count, by: 3))
        for interval in 1...3 {
            sockets.advance(.seconds(5))
            for index in speaking { sockets.outboxes[index].readObserved() }
            sockets.advance(.seconds(5))
            let pings = try sockets.pings()
            for index in 0..<Self.count {
                // The silent ones: pinged at 10 and 20 s, closed at 30 (silent past 25).
                let expected = speaking.contains(index) || interval == 3 ? 0 : 1
                #expect(pings[index] == expected, "socket \(index) after \(interval) intervals")
            }
        }
        // The silent ones were closed in the middle of a visit, each departure moving the last
        // socket into its place.
        for (index, channel) in sockets.channels.enumerated() {
            #expect(channel.isActive == speaking.contains(index), "socket \(index)")
        }
    }

    @Test func socketsThatLeaveBetweenTheTurnsOfAVisitMakeItMissNoneThatStay() throws {
        let sockets = try Sockets(Self.count)
        // The visit's first turn, and no more (the next is due a moment later).
        sockets.loop.advanceTime(by: .seconds(10))
        let firstTurn = try sockets.pings()
        #expect(firstTurn.reduce(0, +) == LoopHeartbeats.socketsPerTurn)
        // Sockets leave on both sides of the cursor, the first and the last ones among them.
        let leaving = Set([0, 1, 7, 100, 255, 256, 300, Self.count - 2, Self.count - 1])
        for index in leaving.sorted() { try sockets.channels[index].close().wait() }
        sockets.loop.run()
        sockets.advance(.zero)
        let rest = try sockets.pings()
        for index in 0..<Self.count where !leaving.contains(index) {
            #expect(firstTurn[index] + rest[index] == 1, "socket \(index)")
        }
    }

    @Test func socketsThatLeaveAreLetGoAndTheOthersStillVisited() throws {
        let sockets = try Sockets(Self.count)
        // Every other socket leaves: each departure moves the loop's last socket into its place.
        let leaving = stride(from: 0, to: Self.count, by: 2)
        for index in leaving { try sockets.channels[index].close().wait() }
        sockets.advance(.seconds(10))
        let pings = try sockets.pings()
        for index in 0..<Self.count { #expect(pings[index] == (index % 2 == 0 ? 0 : 1), "socket \(index)") }
        // The rest leave: the loop's timer stops with its last socket, and a newcomer starts it again.
        for index in stride(from: 1, to: Self.count, by: 2) { try sockets.channels[index].close().wait() }
        sockets.advance(.seconds(10))
        #expect(try sockets.pings().allSatisfy { $0 == 0 })
        let channel = EmbeddedChannel(handler: WebSocketFrameEncoder(), loop: sockets.loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        _ = Outbox(limit: 8, channel: channel, heartbeat: Self.heartbeat)
        sockets.loop.run()
        sockets.advance(.seconds(10))
        var bytes = ByteBuffer()
        while var part = try channel.readOutbound(as: ByteBuffer.self) { bytes.writeBuffer(&part) }
        #expect(bytes.readableBytesView.elementsEqual([0x89, 0x00]))
    }
}
