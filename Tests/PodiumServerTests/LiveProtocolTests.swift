import Foundation
import HTTPTypes
import Testing

@testable import PodiumServer

/// The socket protocol against the real application: hello, commands, fan-out, late join,
/// reconnect, passcodes and refusals.
@Suite("Live socket protocol", .timeLimit(.minutes(3)))
struct LiveProtocolTests {
    /// A server with the demo deck ready and a live session; hands the test a token and the code.
    func withSession(
        passcode: String? = nil, _ body: @escaping @Sendable (Client, String, String) async throws -> Void
    ) async throws {
        try await TestServer.withLiveSession(passcode: passcode, body)
    }

    @Test func presenterPageChangesReachEveryViewerInOrder() async throws {
        try await withSession { client, token, code in
            let presenter = try await client.socket(code: code)
            let welcome = try await presenter.hello(["role": "presenter", "token": token])
            #expect(welcome["type"] as? String == "welcome")
            #expect(welcome["seq"] as? Int == 0)
            #expect((welcome["snapshot"] as? [String: Any])?["page"] as? Int == 1)
            #expect(((welcome["session"] as? [String: Any])?["pageCount"] as? Int ?? 0) >= 4)

            let viewerA = try await client.socket(code: code)
            let viewerB = try await client.socket(code: code)
            #expect(try await viewerA.hello(["role": "viewer", "name": "Ada"])["type"] as? String == "welcome")
            #expect(try await viewerB.hello(["role": "viewer"])["type"] as? String == "welcome")

            try await presenter.send(#"{"type":"goto","id":"c1","page":2}"#)
            try await presenter.send(#"{"type":"goto","id":"c2","page":3}"#)
            for viewer in [viewerA, viewerB] {
                let first = try #require(try await viewer.nextDurable())
                let second = try #require(try await viewer.nextDurable())
                #expect(first["type"] as? String == "page" && first["seq"] as? Int == 1 && first["page"] as? Int == 2)
                #expect(second["seq"] as? Int == 2 && second["page"] as? Int == 3)
            }
            #expect(try await presenter.nextDurable()?["type"] as? String == "page")
            let ack = try await presenter.nextDurable()
            #expect(ack?["type"] as? String == "ack" && ack?["id"] as? String == "c1" && ack?["seq"] as? Int == 1)
        }
    }

    /// Commands sent back to back are written in batches (one pass of the event loop takes all
    /// that queued up); each ack must still follow its own event, and nothing may be skipped.
    @Test func aBurstOfCommandsKeepsEveryAckBehindItsEvent() async throws {
        try await withSession { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let viewer = try await client.socket(code: code)
            _ = try await viewer.hello(["role": "viewer"])
            let count = 40
            for index in 1...count {
                try await presenter.send(#"{"type":"goto","id":"b\#(index)","page":\#(index % 3 + 1)}"#)
            }
            var eventsSeen = 0
            var acks = 0
            while acks < count {
                let message = try #require(try await presenter.nextDurable())
                let seq = message["seq"] as? Int ?? -1
                if message["type"] as? String == "ack" {
                    acks += 1
                    #expect(message["id"] as? String == "b\(seq)")
                    #expect(seq <= eventsSeen, "the ack of seq \(seq) came before its event")
                } else {
                    eventsSeen += 1
                    #expect(seq == eventsSeen)
                }
            }
            for expected in 1...count {
                #expect(try await viewer.nextDurable()?["seq"] as? Int == expected)
            }
        }
    }

    @Test func aViewerCannotChangeThePageWhileLockedAndNobodyNotices() async throws {
        try await withSession { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let viewer = try await client.socket(code: code)
            _ = try await viewer.hello(["role": "viewer"])
            let other = try await client.socket(code: code)
            _ = try await other.hello(["role": "viewer"])

            for command in [
                #"{"type":"goto","id":"v1","page":2}"#, #"{"type":"blank","id":"v2","mode":"black"}"#,
                #"{"type":"end","id":"v3"}"#, #"{"type":"lock","id":"v4","locked":false}"#,
                #"{"type":"zoom","id":"v5","viewport":{"x":0,"y":0,"w":0.5,"h":0.5}}"#,
            ] {
                try await viewer.send(command)
                let error = try await viewer.nextDurable()
                #expect(error?["type"] as? String == "error")
                #expect(error?["code"] as? String == "forbidden")
            }
            try await viewer.send(#"{"type":"pointer","x":0.5,"y":0.5}"#)
            #expect(try await viewer.nextDurable()?["code"] as? String == "forbidden")
            try await other.barrier()
            try await presenter.barrier()

            // Once unlocked, a viewer's goto is private: accepted, no event for anyone.
            try await presenter.send(#"{"type":"lock","id":"p1","locked":false}"#)
            #expect(try await other.nextDurable()?["type"] as? String == "lock")
            #expect(try await viewer.nextDurable()?["type"] as? String == "lock")
            try await viewer.send(#"{"type":"goto","id":"v6","page":4}"#)
            #expect(try await viewer.nextDurable()?["type"] as? String == "ack")
            try await other.barrier()
        }
    }

    @Test func aLateJoinerSeesTheCurrentPageZoomAndBlank() async throws {
        try await withSession { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            try await presenter.send(#"{"type":"goto","id":"a","page":4}"#)
            try await presenter.send(#"{"type":"zoom","id":"b","viewport":{"x":0.25,"y":0.25,"w":0.5,"h":0.5}}"#)
            try await presenter.send(#"{"type":"blank","id":"c","mode":"white"}"#)
            for _ in 0..<3 { _ = try await presenter.nextDurable() }  // three events
            for _ in 0..<3 { _ = try await presenter.nextDurable() }  // three acks

            let late = try await client.socket(code: code)
            let welcome = try await late.hello(["role": "viewer"])
            let snapshot = try #require(welcome["snapshot"] as? [String: Any])
            #expect(welcome["seq"] as? Int == 3)
            #expect(snapshot["page"] as? Int == 4)
            #expect(snapshot["blank"] as? String == "white")
            #expect(snapshot["locked"] as? Bool == true)
            #expect(snapshot["viewport"] as? [String: Double] == ["x": 0.25, "y": 0.25, "w": 0.5, "h": 0.5])
            #expect(welcome["events"] == nil)
        }
    }

    @Test func aReconnectingClientGetsExactlyWhatItMissed() async throws {
        try await withSession { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let viewer = try await client.socket(code: code)
            _ = try await viewer.hello(["role": "viewer"])
            try await presenter.send(#"{"type":"goto","id":"a","page":2}"#)
            #expect(try await viewer.nextDurable()?["seq"] as? Int == 1)
            await viewer.close()

            try await presenter.send(#"{"type":"goto","id":"b","page":3}"#)
            try await presenter.send(#"{"type":"blank","id":"c","mode":"black"}"#)
            // The presenter's own retry after a reconnect: same id, takes effect once.
            try await presenter.send(#"{"type":"goto","id":"b","page":3}"#)
            var acks: [Int] = []
            while acks.count < 4 {
                let message = try #require(try await presenter.nextDurable())
                if message["type"] as? String == "ack" { acks.append(message["seq"] as? Int ?? -1) }
            }
            #expect(acks == [1, 2, 3, 2])

            let back = try await client.socket(code: code)
            let welcome = try await back.hello(["role": "viewer", "lastSeq": 1])
            let events = try #require(welcome["events"] as? [[String: Any]])
            #expect(events.map { $0["seq"] as? Int } == [2, 3])
            #expect(events.map { $0["type"] as? String } == ["page", "blank"])
            #expect(welcome["seq"] as? Int == 3)

            let upToDate = try await client.socket(code: code)
            #expect((try await upToDate.hello(["role": "viewer", "lastSeq": 3])["events"] as? [Any])?.isEmpty == true)

            // A client that saw a gap asks for it again.
            try await upToDate.send(#"{"type":"resync","afterSeq":1}"#)
            #expect(try await upToDate.nextDurable()?["seq"] as? Int == 2)
            #expect(try await upToDate.nextDurable()?["seq"] as? Int == 3)
        }
    }

    @Test func pointerAndZoomAreReproducedInPageCoordinates() async throws {
        try await withSession { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let viewer = try await client.socket(code: code)
            _ = try await viewer.hello(["role": "viewer"])
            try await presenter.send(#"{"type":"pointer","x":0.25,"y":0.75}"#)
            var pointer = try await viewer.next()
            while pointer?["type"] as? String == "presence" { pointer = try await viewer.next() }
            #expect(pointer?["type"] as? String == "pointer")
            #expect(pointer?["x"] as? Double == 0.25 && pointer?["y"] as? Double == 0.75 && pointer?["visible"] as? Bool == true)
            #expect(pointer?["seq"] == nil)
            try await presenter.send(#"{"type":"pointer","visible":false}"#)
            #expect(try await viewer.next()?["visible"] as? Bool == false)

            try await presenter.send(#"{"type":"zoom","id":"z","viewport":{"x":0.5,"y":0.5,"w":0.5,"h":0.5}}"#)
            let zoom = try await viewer.nextDurable()
            #expect(zoom?["type"] as? String == "zoom")
            #expect(zoom?["viewport"] as? [String: Double] == ["x": 0.5, "y": 0.5, "w": 0.5, "h": 0.5])

            try await presenter.send(#"{"type":"zoom","id":"z2","viewport":{"x":0.8,"y":0,"w":0.5,"h":0.5}}"#)
            var refused = try await presenter.nextDurable()
            while refused?["type"] as? String != "error" { refused = try await presenter.nextDurable() }
            #expect(refused?["code"] as? String == "invalid_viewport")
            #expect(refused?["id"] as? String == "z2")
            try await presenter.send(#"{"type":"goto","id":"g","page":99}"#)
            #expect(try await presenter.nextDurable()?["code"] as? String == "invalid_page")
        }
    }

    @Test func eachWrongHelloGetsItsOwnErrorAndTheRightPasscodeGetsIn() async throws {
        try await withSession(passcode: "4711") { client, token, code in
            let unknown = try await client.socket(code: "ZZZZZZ")
            #expect(try await unknown.hello(["role": "viewer"])["code"] as? String == "not_found")
            try await unknown.waitForClose()

            let noPasscode = try await client.socket(code: code)
            #expect(try await noPasscode.hello(["role": "viewer"])["code"] as? String == "passcode_required")
            let wrong = try await client.socket(code: code)
            #expect(try await wrong.hello(["role": "viewer", "passcode": "1234"])["code"] as? String == "passcode_wrong")
            try await wrong.waitForClose()
            let right = try await client.socket(code: code.lowercased())
            #expect(try await right.hello(["role": "viewer", "passcode": "4711"])["type"] as? String == "welcome")

            let anonymousPresenter = try await client.socket(code: code)
            #expect(try await anonymousPresenter.hello(["role": "presenter"])["code"] as? String == "unauthorized")
            let badToken = try await client.socket(code: code)
            #expect(try await badToken.hello(["role": "presenter", "token": "nope"])["code"] as? String == "unauthorized")

            let commandFirst = try await client.socket(code: code)
            try await commandFirst.send(#"{"type":"goto","id":"x","page":2}"#)
            #expect(try await commandFirst.next()?["code"] as? String == "hello_required")
            try await commandFirst.waitForClose()

            let garbage = try await client.socket(code: code)
            try await garbage.send("{not json")
            #expect(try await garbage.next()?["code"] as? String == "bad_message")
            try await garbage.waitForClose()
        }
    }

    @Test func passcodeGuessingIsRateLimited() async throws {
        try await withSession(passcode: "secret") { client, _, code in
            for attempt in 1...5 {
                let socket = try await client.socket(code: code)
                #expect(
                    try await socket.hello(["role": "viewer", "passcode": "guess\(attempt)"])["code"] as? String
                        == "passcode_wrong")
            }
            let blocked = try await client.socket(code: code)
            #expect(try await blocked.hello(["role": "viewer", "passcode": "secret"])["code"] as? String == "rate_limited")
        }
    }

    /// Behind a reverse proxy every socket comes from the proxy's address: the address it
    /// forwards is the client's, or one guesser would lock the whole audience out.
    @Test func behindATrustedProxyTheLimitIsPerForwardedClient() async throws {
        try await withSession(passcode: "secret") { client, _, code in
            let guesser: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: "203.0.113.9, 10.0.0.7"]
            for attempt in 1...5 {
                let socket = try await client.socket(code: code, headers: guesser)
                #expect(
                    try await socket.hello(["role": "viewer", "passcode": "guess\(attempt)"])["code"] as? String
                        == "passcode_wrong")
            }
            let blocked = try await client.socket(code: code, headers: guesser)
            #expect(try await blocked.hello(["role": "viewer", "passcode": "secret"])["code"] as? String == "rate_limited")
            // Someone else behind the same proxy is not.
            let other = try await client.socket(code: code, headers: [HTTPField.Name("X-Forwarded-For")!: "10.0.0.8"])
            #expect(try await other.hello(["role": "viewer", "passcode": "secret"])["type"] as? String == "welcome")
        }
    }

    @Test func anUntrustedPeersForwardedAddressIsIgnored() async throws {
        let server = TestServer { $0.trustedProxies = [] }
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let deckId = try await client.readyDeck(token: token)
            let code = try #require(
                try await client.startSession(deckId: deckId, token: token, passcode: "right")["code"] as? String)
            for attempt in 1...5 {
                let socket = try await client.socket(
                    code: code, headers: [HTTPField.Name("X-Forwarded-For")!: "198.51.100.\(attempt)"])
                #expect(
                    try await socket.hello(["role": "viewer", "passcode": "wrong\(attempt)"])["code"] as? String
                        == "passcode_wrong")
            }
            let blocked = try await client.socket(code: code, headers: [HTTPField.Name("X-Forwarded-For")!: "198.51.100.99"])
            #expect(try await blocked.hello(["role": "viewer", "passcode": "right"])["code"] as? String == "rate_limited")
        }
    }

    // The session-wide limit delays hellos instead of refusing them: PasscodeLimitTests.

    @Test func malformedMessagesAfterHelloGetTypedErrorsAndTheSocketLivesOn() async throws {
        try await withSession { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            for bad in [
                "[]", #"{"type":"goto","page":2}"#, #"{"type":"goto","id":"a","page":"two"}"#, #"{"type":"warp","id":"a"}"#,
                #"{"type":"hello","role":"viewer"}"#,
            ] {
                try await presenter.send(bad)
                #expect(try await presenter.nextDurable()?["code"] as? String == "bad_message", "\(bad)")
            }
            try await presenter.send(#"{"type":"goto","id":"ok","page":2}"#)
            #expect(try await presenter.nextDurable()?["type"] as? String == "page")
        }
    }

    /// A client waits for its command's ack or error by id: a command the server cannot decode is
    /// refused with the id it could read, and with none when there is no string id to read.
    @Test func anUndecodableCommandsErrorCarriesTheIdThatCouldBeRead() async throws {
        try await withSession { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let cases: [(String, String?)] = [
                (#"{"type":"warp","id":"unknown-type"}"#, "unknown-type"),
                (#"{"type":"goto","id":"missing-page"}"#, "missing-page"),
                (#"{"type":"goto","id":"mistyped-page","page":"two"}"#, "mistyped-page"),
                (#"{"id":"no-type","page":2}"#, "no-type"),
                (#"{"type":"goto","id":7,"page":"two"}"#, nil),
                (#"{"type":"goto","id":"\#(String(repeating: "x", count: 65))","page":"two"}"#, nil),
                (#"{"type":"goto","id":"","page":"two"}"#, nil),
                ("{not json", nil),
                (#"["id"]"#, nil),
            ]
            for (bad, id) in cases {
                try await presenter.send(bad)
                let error = try #require(try await presenter.nextDurable(), "\(bad)")
                #expect(error["type"] as? String == "error", "\(bad)")
                #expect(error["code"] as? String == "bad_message", "\(bad)")
                #expect(error["id"] as? String == id, "\(bad): \(error)")
            }
            try await presenter.send(#"{"type":"goto","id":"ok","page":2}"#)
            #expect(try await presenter.nextDurable()?["type"] as? String == "page")
        }
    }

    @Test func endingTellsEveryViewerAndTakesTheSessionOffTheLobby() async throws {
        try await withSession { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let viewer = try await client.socket(code: code)
            _ = try await viewer.hello(["role": "viewer"])
            #expect(try await presenter.next()?["type"] as? String == "presence")

            let listed = try await client.request(.get, "/api/v1/sessions?live=true").array()
            #expect(listed.contains { $0["code"] as? String == code })

            try await presenter.send(#"{"type":"end","id":"end"}"#)
            let ended = try await viewer.nextDurable()
            #expect(ended?["type"] as? String == "ended")
            #expect(try await client.request(.get, "/api/v1/sessions?live=true").array().isEmpty)
            let info = try await client.request(.get, "/api/v1/sessions/\(code)").object()
            #expect(info["live"] as? Bool == false)

            // Viewers may still open an ended session and read it on their own.
            let late = try await client.socket(code: code)
            let welcome = try await late.hello(["role": "viewer"])
            let snapshot = welcome["snapshot"] as? [String: Any]
            #expect(snapshot?["ended"] as? Bool == true)
            #expect(snapshot?["locked"] as? Bool == false)
            try await presenter.send(#"{"type":"goto","id":"g","page":2}"#)
            var reply = try await presenter.nextDurable()
            while reply != nil, reply?["type"] as? String != "error" { reply = try await presenter.nextDurable() }
            #expect(reply?["code"] as? String == "ended")
        }
    }
}

@Suite("Live socket limits", .timeLimit(.minutes(3)))
struct LiveLimitTests {
    /// The server's clock stands still, so the socket's budget never refills while the 400 pings
    /// are read: exactly its burst gets through, however slowly a busy machine reads them (with a
    /// running clock, a slow reader let every ping through and the test failed).
    @Test func aFloodingClientIsRateLimitedAndOthersAreNot() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let frozen = Date()
        try await server.run(now: { frozen }) { client in
            let token = try await client.login()
            let session = try await client.startSession(deckId: try await client.readyDeck(token: token), token: token)
            let code = try #require(session["code"] as? String)
            let flooder = try await client.socket(code: code)
            _ = try await flooder.hello(["role": "viewer"])
            let calm = try await client.socket(code: code)
            _ = try await calm.hello(["role": "viewer"])
            for _ in 0..<400 { try await flooder.send(#"{"type":"ping"}"#) }
            var limited = 0
            var pongs = 0
            while limited + pongs < 400 {
                let message = try #require(try await flooder.next())
                if message["code"] as? String == "rate_limited" { limited += 1 }
                if message["type"] as? String == "pong" { pongs += 1 }
            }
            // The burst is twice the rate (100 messages a second by default).
            #expect(limited == 200)
            #expect(pongs == 200)
            try await calm.barrier()
        }
    }

    @Test func oversizedFramesCloseTheSocketButNotTheSession() async throws {
        try await TestServer.withLiveSession { client, token, code in
            let big = try await client.socket(code: code)
            _ = try await big.hello(["role": "viewer"])
            try await big.send(#"{"type":"ping","pad":""# + String(repeating: "x", count: 100_000) + #""}"#)
            try await big.waitForClose()
            let fine = try await client.socket(code: code)
            #expect(try await fine.hello(["role": "viewer"])["type"] as? String == "welcome")
        }
    }
}
