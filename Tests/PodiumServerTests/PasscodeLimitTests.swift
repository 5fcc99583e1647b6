import Foundation
import HTTPTypes
import Synchronization
import Testing

@testable import PodiumServer

/// Wrong passcodes slow the one who types them (by viewer identity, so a lecture hall behind one
/// address is many people), and a session under a guessing attack slows every hello down without
/// ever refusing a right passcode.
@Suite("Passcode limits", .timeLimit(.minutes(3)))
struct PasscodeLimitTests {
    /// A viewer identity cookie, as the HTML pages hand out (`v_` and 24 characters).
    static func identity(_ name: String) -> HTTPFields {
        let id = "v_" + String((name + String(repeating: "x", count: 24)).prefix(24))
        return [.cookie: "podium_viewer=\(id)"]
    }

    /// A server with the demo deck and a session whose passcode is `right`.
    static func withPasscodeSession(
        _ configure: @escaping (inout ServerConfiguration) -> Void, now: @escaping @Sendable () -> Date = { Date() },
        _ body: @escaping @Sendable (Client, String) async throws -> Void
    ) async throws {
        let server = TestServer(configure: configure)
        defer { server.removeData() }
        try await server.run(now: now) { client in
            let token = try await client.login()
            let deckId = try await client.readyDeck(token: token)
            let session = try await client.startSession(deckId: deckId, token: token, passcode: "right")
            try await body(client, try #require(session["code"] as? String))
        }
    }

    @Test func theWaitDoublesFromTheFirstDelayUpToTheCapAndIsForgotten() {
        let policy = Backoff.Policy(freeFailures: 3, firstDelay: 2, maxDelay: 10, memory: 60)
        #expect((1...7).map(policy.delay(after:)) == [0, 0, 2, 4, 8, 10, 10])

        let backoff = Backoff(policy)
        let start = Date(timeIntervalSince1970: 1_000)
        #expect(backoff.recordFailure("a", now: start) == 0)
        #expect(backoff.recordFailure("a", now: start) == 0)
        #expect(backoff.recordFailure("a", now: start) == 2)
        #expect(backoff.wait("a", now: start.addingTimeInterval(0.5)) == 1.5)
        #expect(backoff.wait("a", now: start.addingTimeInterval(2)) == 0)
        #expect(backoff.wait("b", now: start) == 0, "another key is not affected")
        #expect(backoff.recordFailure("a", now: start.addingTimeInterval(3)) == 4)
        // A minute of quiet: forgotten, the next wrong guess is free again.
        #expect(backoff.wait("a", now: start.addingTimeInterval(63)) == 0)
        #expect(backoff.recordFailure("a", now: start.addingTimeInterval(64)) == 0)
        backoff.reset("a")
        #expect(backoff.wait("a", now: start.addingTimeInterval(64)) == 0)
    }

    /// A student who keeps mistyping waits; the rest of the hall, behind the same address, joins.
    @Test func oneIdentitysWrongGuessesDoNotStopAnotherIdentitysRightPasscode() async throws {
        try await Self.withPasscodeSession({
            $0.passcodeAttempts = 3
            $0.passcodeDelay = 30
            $0.passcodeSessionAttempts = 1000
        }) { client, code in
            let typist = Self.identity("typist")
            for attempt in 1...2 {
                let wrong = try await client.socket(code: code, headers: typist).hello([
                    "role": "viewer", "passcode": "w\(attempt)",
                ])
                #expect(wrong["code"] as? String == "passcode_wrong")
                #expect(wrong["retryAfter"] == nil, "the first wrong passcodes cost nothing")
            }
            let third = try await client.socket(code: code, headers: typist).hello(["role": "viewer", "passcode": "w3"])
            #expect(third["code"] as? String == "passcode_wrong")
            #expect(third["retryAfter"] as? Int == 30)
            // While the wait runs, even the right passcode is not checked for this identity.
            let waiting = try await client.socket(code: code, headers: typist).hello(["role": "viewer", "passcode": "right"])
            #expect(waiting["code"] as? String == "rate_limited")
            #expect((waiting["retryAfter"] as? Int ?? 0) > 0)

            // Someone else in the hall (same address, another identity) gets in at once, and so does
            // a client without an identity (it counts by its address, apart from the identities).
            let neighbour = try await client.socket(code: code, headers: Self.identity("neighbour"))
            #expect(try await neighbour.hello(["role": "viewer", "passcode": "right"])["type"] as? String == "welcome")
            let anonymous = try await client.socket(code: code)
            #expect(try await anonymous.hello(["role": "viewer", "passcode": "right"])["type"] as? String == "welcome")
        }
    }

    @Test func whenTheWaitIsOverTheRightPasscodeGetsIn() async throws {
        // The server's clock, moved on by the test instead of waited for.
        let ahead = Mutex<TimeInterval>(0)
        try await Self.withPasscodeSession(
            {
                $0.passcodeAttempts = 1
                $0.passcodeDelay = 0.3
                $0.passcodeMaxDelay = 0.3
            }, now: { Date().addingTimeInterval(ahead.withLock { $0 }) }
        ) { client, code in
            let typist = Self.identity("typist")
            let wrong = try await client.socket(code: code, headers: typist).hello(["role": "viewer", "passcode": "nope"])
            #expect(wrong["code"] as? String == "passcode_wrong")
            #expect(wrong["retryAfter"] as? Int == 1, "whole seconds, rounded up")
            // During the wait even the right passcode is not checked; once it is over, it gets in.
            let early = try await client.socket(code: code, headers: typist).hello(["role": "viewer", "passcode": "right"])
            #expect(early["code"] as? String == "rate_limited")
            ahead.withLock { $0 += 1 }
            let later = try await client.socket(code: code, headers: typist).hello(["role": "viewer", "passcode": "right"])
            #expect(later["type"] as? String == "welcome")
        }
    }

    /// A guesser who clears their cookies is a new identity each time: the session's own limit
    /// slows every hello down (the wait grows), and a right passcode still gets in.
    @Test func theSessionWideLimitDelaysHellosButTheRightPasscodeGetsIn() async throws {
        try await Self.withPasscodeSession({
            $0.passcodeAttempts = 100
            $0.passcodeSessionAttempts = 3
            $0.passcodeSessionDelay = 0.4
            $0.passcodeSessionMaxDelay = 0.4
        }) { client, code in
            for guess in 1...3 {
                let socket = try await client.socket(code: code, headers: Self.identity("guesser\(guess)"))
                let answer = try await socket.hello(["role": "viewer", "passcode": "guess\(guess)"])
                #expect(answer["code"] as? String == "passcode_wrong")
                #expect(answer["retryAfter"] == nil, "each identity's own guesses are still free")
            }
            // How long the session's hellos wait is Backoff's arithmetic, tested above with a given
            // clock; here, over the socket: the right passcode is delayed, never refused.
            let student = try await client.socket(code: code, headers: Self.identity("student"))
            #expect(try await student.hello(["role": "viewer", "passcode": "right"])["type"] as? String == "welcome")
        }
    }
}
