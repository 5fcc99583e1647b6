import Foundation
import Testing

@testable import PodiumServer

/// The socket's own framing (``SocketHandler``): what RFC 6455 forbids fails the connection with
/// the right close code, a burst larger than the socket's backlog is read as the server catches
/// up, and a client's close is answered.
@Suite("Socket framing", .timeLimit(.minutes(3)))
struct SocketFramingTests {
    typealias Opcode = RawWebSocket.Opcode

    /// A raw socket, welcomed as a viewer.
    static func viewer(_ client: Client, code: String) async throws -> RawWebSocket {
        let socket = try await RawWebSocket.connect(port: client.port, path: "/api/v1/sessions/\(code)/live")
        try await socket.send(#"{"type":"hello","role":"viewer"}"#)
        var welcome = await socket.nextText()
        while let text = welcome, !text.contains(#""type":"welcome""#) { welcome = await socket.nextText() }
        #expect(welcome != nil)
        return socket
    }

    /// The code of the server's close frame, skipping whatever came before it.
    static func closeCode(_ socket: RawWebSocket) async -> UInt16? {
        while let message = await socket.next() {
            if case .close(let code) = message { return code }
        }
        return nil
    }

    @Test func aPlainRequestToASocketAddressIsToldToUpgrade() async throws {
        try await TestServer.withLiveSession { client, _, code in
            for path in ["/api/v1/sessions/\(code)/live", "/api/v1/lobby"] {
                let response = try await client.request(.get, path)
                #expect(response.status.code == 426, "\(path)")
                #expect(response.errorCode == "upgrade_required", "\(path)")
            }
        }
    }

    @Test func framesTheProtocolForbidsCloseTheSocketWithTheirCode() async throws {
        try await TestServer.withLiveSession { client, _, code in
            let ping = Array(#"{"type":"ping"}"#.utf8)
            let cases: [(String, [UInt8], UInt16)] = [
                ("unmasked", RawWebSocket.frame(Opcode.text, payload: ping, masked: false), 1002),
                ("reserved bits", RawWebSocket.frame(Opcode.text, payload: ping, rsv: 4), 1002),
                ("unknown opcode", RawWebSocket.frame(0x3, payload: ping), 1002),
                ("stray continuation", RawWebSocket.frame(Opcode.continuation, payload: ping), 1002),
                (
                    "new message inside a fragmented one",
                    RawWebSocket.frame(Opcode.text, payload: [0x7B], fin: false) + RawWebSocket.frame(Opcode.text, payload: ping),
                    1002
                ),
                ("invalid UTF-8", RawWebSocket.frame(Opcode.text, payload: [0x22, 0xC3, 0x28, 0x22]), 1007),
                (
                    "fragments adding up to more than 64 KiB",
                    (0..<3).flatMap { index in
                        RawWebSocket.frame(
                            index == 0 ? Opcode.text : Opcode.continuation, payload: Array(repeating: 0x20, count: 30_000),
                            fin: index == 2)
                    }, 1009
                ),
                // Refused by NIO's frame decoder before the frame is read whole.
                ("one frame over 64 KiB", RawWebSocket.frame(Opcode.text, payload: Array(repeating: 0x20, count: 70_000)), 1009),
                (
                    "fragmented control frame", RawWebSocket.frame(Opcode.ping, payload: [1], fin: false), 1002
                ),
            ]
            for (name, bytes, expected) in cases {
                let socket = try await Self.viewer(client, code: code)
                try await socket.write(bytes)
                #expect(await Self.closeCode(socket) == expected, "\(name)")
                // Every close says why, in the close frame.
                #expect(socket.closeReason?.isEmpty == false, "\(name): no reason")
            }
            // The session serves on.
            let fine = try await client.socket(code: code)
            #expect(try await fine.hello(["role": "viewer"])["type"] as? String == "welcome")
        }
    }

    @Test func aBurstFarBeyondTheBacklogIsAllAnsweredInOrder() async throws {
        let server = TestServer { $0.socketMessageRate = 100_000 }
        defer { server.removeData() }
        try await server.run { client in
            let (_, code, _) = try await client.presentSession()
            let socket = try await Self.viewer(client, code: code)
            // One write: the server reads far more messages at once than it queues, stops reading
            // until its task catches up, then reads on.
            let count = SocketInbox.backlog * 40
            var burst: [UInt8] = []
            for index in 0..<count {
                burst += RawWebSocket.frame(Opcode.text, payload: Array(#"{"type":"ask","id":"q\#(index)","text":"?"}"#.utf8))
            }
            try await socket.write(burst)
            var answered = 0
            while answered < count, let text = await socket.nextText() {
                guard text.contains(#""type":"ack""#) || text.contains(#""type":"error""#) else { continue }
                #expect(text.contains(#""id":"q\#(answered)""#), "\(text)")
                answered += 1
            }
            #expect(answered == count)
        }
    }

    @Test func aClientsCloseIsAnsweredAndItLeavesTheSession() async throws {
        try await TestServer.withLiveSession { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let socket = try await Self.viewer(client, code: code)
            var viewers = 0
            while viewers != 1 { viewers = try await presenter.next(ofType: "presence")?["viewers"] as? Int ?? -1 }
            try await socket.write(RawWebSocket.frame(Opcode.close, payload: [0x03, 0xE8]))
            #expect(await Self.closeCode(socket) == 1000)
            while viewers != 0 { viewers = try await presenter.next(ofType: "presence")?["viewers"] as? Int ?? -1 }
        }
    }
}
