import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A viewer whose socket cannot keep up gets the pointer where it is now, not every place it
/// has been: moves that arrive before the socket's next write replace each other in its outbox.
/// (Here the viewer reads nothing until the presenter is done, and the event loop is busy reading
/// the presenter's flood: a handful of writes carry thousands of moves.)
@Suite("Pointer coalescing", .timeLimit(.minutes(3)))
struct CoalescingTests {
    @Test func aViewerThatFellBehindGetsTheLatestPointerNotEveryMove() async throws {
        let server = TestServer { $0.socketMessageRate = 1_000_000 }
        defer { server.removeData() }
        try await server.run { client in
            let (_, code, presenter) = try await client.presentSession()
            let port = client.port
            let slow = try await blocking { try SlowClientTests.StalledViewer(port: port, code: code) }
            var viewers = 0
            while viewers != 1 { viewers = try await presenter.next(ofType: "presence")?["viewers"] as? Int ?? -1 }

            // A burst of pointer moves while the viewer reads nothing (a small burst: this runs beside
            // every other test, and coalescing needs only a busy loop, not full buffers).
            let moves = 5_000
            for n in 1...moves {
                try await presenter.send(#"{"type":"pointer","x":\#(Double(n) / Double(moves + 1)),"y":0.5}"#)
            }
            try await presenter.barrier()  // every move has been handled by the session

            // Now it reads: the moves arrive in order, far fewer than were sent, ending with the last.
            @Sendable func pointerX(_ text: String) -> Double? {
                guard text.contains("\"type\":\"pointer\""),
                    let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                else { return nil }
                return object["x"] as? Double
            }
            let last = Double(moves) / Double(moves + 1)
            let frames = try await blocking {
                slow.textFrames(until: { pointerX($0).map { abs($0 - last) < 1e-9 } ?? false })
            }
            let xs = frames.compactMap(pointerX)
            #expect(abs((xs.last ?? 0) - last) < 1e-9)
            #expect(xs.count < moves, "all \(moves) moves were queued for a viewer that could not take them")
            #expect(xs == xs.sorted())  // never an older position after a newer one
        }
    }
}

extension SlowClientTests.StalledViewer {
    /// Reads server frames (unmasked) and returns their texts, up to and including the first for
    /// which `done` is true.
    func textFrames(until done: (String) -> Bool) -> [String] {
        var texts: [String] = []
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            // Whole frames in what has arrived so far.
            while pending.count >= 2 {
                var length = Int(pending[1] & 0x7F)
                var header = 2
                if length == 126 {
                    guard pending.count >= 4 else { break }
                    length = Int(pending[2]) << 8 | Int(pending[3])
                    header = 4
                } else if length == 127 {
                    guard pending.count >= 10 else { break }
                    length = pending[2..<10].reduce(0) { $0 << 8 | Int($1) }
                    header = 10
                }
                guard pending.count >= header + length else { break }
                if pending[0] & 0x0F == 0x1 {
                    let text = String(decoding: pending[header..<(header + length)], as: UTF8.self)
                    texts.append(text)
                    if done(text) { return texts }
                }
                pending.removeFirst(header + length)
            }
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { return texts }
            pending += buffer[0..<count]
        }
    }
}
