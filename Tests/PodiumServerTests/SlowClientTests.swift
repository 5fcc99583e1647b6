import Foundation
import Testing

@testable import PodiumServer

#if canImport(Glibc)
    import Glibc
#endif

/// A viewer whose device stops reading (a phone in a pocket on a weak network) must not hold up
/// anyone else, and must be cut off rather than buffered forever.
@Suite("Slow clients", .timeLimit(.minutes(3)))
struct SlowClientTests {
    /// A WebSocket client on a plain TCP socket with a tiny receive buffer, which says hello
    /// and then never reads again.
    /// Its calls block: use them through ``blocking(_:)``.
    final class StalledViewer: Sendable {
        let fd: Int32

        init(port: Int, code: String) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var small: Int32 = 2048
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            // A blocked read(2) cannot be cancelled by the suite's time limit: one that waits this
            // long fails the test (as the server never closing would) instead of hanging the run.
            var patience = timeval(tv_sec: 60, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &patience, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
            try send(
                "GET /api/v1/sessions/\(code)/live HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            // Read the upgrade answer byte by byte up to the blank line, and nothing more.
            var answer = [UInt8]()
            var byte: UInt8 = 0
            while !answer.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)), read(fd, &byte, 1) == 1 { answer.append(byte) }
            guard String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 101") else { throw POSIXError(.EPROTO) }
            try sendFrame(#"{"type":"hello","role":"viewer"}"#)
        }

        func send(_ text: String) throws {
            let bytes = Array(text.utf8)
            guard write(fd, bytes, bytes.count) == bytes.count else { throw POSIXError(.EIO) }
        }

        /// A masked text frame, as clients must send.
        func sendFrame(_ text: String) throws {
            let payload = Array(text.utf8)
            let mask: [UInt8] = [1, 2, 3, 4]
            let frame =
                [0x81, 0x80 | UInt8(payload.count)] + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
            guard write(fd, frame, frame.count) == frame.count else { throw POSIXError(.EIO) }
        }

        /// Reads everything the server sent until it closes the connection, keeping the bytes.
        func readUntilClosed() -> (bytes: [UInt8], closed: Bool) {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count == 0 { return (bytes, true) }
                if count < 0 { return (bytes, errno == ECONNRESET) }
                bytes += buffer[0..<count]
            }
        }

        /// Reads everything the server sent until it closes the connection; true if it did.
        func drainUntilClosed() -> Bool {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count == 0 { return true }
                if count < 0 { return errno == ECONNRESET }
            }
        }

        deinit { close(fd) }
    }

    @Test func aStalledViewerIsCutOffAndTheOthersGetEverything() async throws {
        let server = TestServer {
            $0.socketMessageRate = 100_000
            // Small buffers, so that a few hundred events fill the stalled viewer's share: the
            // kernel's send buffer of its connection (megabytes on loopback by default) and the
            // outbox's bound (1,024 frames by default). NIO's 256 KiB stay as they are.
            $0.connectionSendBuffer = 4096
            $0.outboxLimit = 16
        }
        defer { server.removeData() }
        try await server.run { client in
            let (_, code, presenter) = try await client.presentSession()
            let honest = try await client.socket(code: code)
            _ = try await honest.hello(["role": "viewer"])
            let stalled = try await blocking { try StalledViewer(port: client.port, code: code) }
            var viewers = 0
            while viewers != 2 { viewers = try await presenter.next(ofType: "presence")?["viewers"] as? Int ?? -1 }

            // Enough events to fill the stalled socket's buffers (a few KiB in the kernel, 256 KiB
            // in NIO, then the outbox's 16 frames: some 450 events) twice over, and more than a
            // welcome replays, so that the viewer cut off is far enough behind to be sent the
            // snapshot: polls with long questions, about 600 bytes each. Sent in batches that the
            // honest viewer reads before the next, so only the stalled one falls behind, whatever
            // the machine.
            let events = LiveSession.maxReplay + 100
            let batch = 100
            let question = String(repeating: "Which of these is right? ", count: 19)
            var last = 0
            for start in stride(from: 1, through: events, by: batch) {
                let end = min(start + batch - 1, events)
                for n in start...end {
                    try await presenter.send(
                        #"{"type":"openPoll","id":"p\#(n)","poll":{"kind":"open","question":"\#(question)\#(n)"}}"#)
                }
                while last < end {
                    guard let event = try await honest.nextDurable() else {
                        Issue.record("the honest viewer's socket closed after seq \(last): \(await honest.closeDescription())")
                        return
                    }
                    let seq = try #require(event["seq"] as? Int)
                    #expect(seq == last + 1)  // in order, none missing, none twice
                    last = seq
                }
            }
            // The server gave up on the stalled viewer: its connection is closed, the count drops.
            #expect(try await blocking { stalled.drainUntilClosed() })
            while viewers != 1 { viewers = try await presenter.next(ofType: "presence")?["viewers"] as? Int ?? -1 }

            // It comes back and catches up: thousands of events behind, it gets the snapshot; a
            // few behind, exactly the events it missed.
            let farBehind = try await client.socket(code: code, maxSize: 1 << 26)
            let fresh = try await farBehind.hello(["role": "viewer", "lastSeq": 1])
            #expect(fresh["seq"] as? Int == events && fresh["events"] == nil)
            #expect(((fresh["snapshot"] as? [String: Any])?["polls"] as? [Any])?.count == events)
            let nearlyThere = try await client.socket(code: code, maxSize: 1 << 26)
            let missed = try await nearlyThere.hello(["role": "viewer", "lastSeq": events - 3])
            #expect((missed["events"] as? [[String: Any]])?.map { $0["seq"] as? Int } == [events - 2, events - 1, events])
        }
    }
}
