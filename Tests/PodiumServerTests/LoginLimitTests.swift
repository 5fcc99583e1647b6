import Foundation
import HTTPTypes
import Testing

/// Password guessing at the sign-in form is slowed per address and per account.
@Suite("Sign-in limits", .timeLimit(.minutes(3)))
struct LoginLimitTests {
    @Test func wrongPasswordsFromOneAddressAreLimitedThenEvenTheRightOneWaits() async throws {
        let server = TestServer { $0.loginAttempts = 3 }
        defer { server.removeData() }
        try await server.run { client in
            for attempt in 1...3 {
                let wrong = try await client.request(
                    .post, "/api/v1/auth/login", json: #"{"email":"admin","password":"guess\#(attempt)"}"#)
                #expect(wrong.errorCode == "bad_credentials")
            }
            let blocked = try await client.request(
                .post, "/api/v1/auth/login", json: #"{"email":"admin","password":"\#(TestServer.adminPassword)"}"#)
            #expect(blocked.status == .tooManyRequests)
            #expect(blocked.errorCode == "too_many_attempts")
            // Another address behind the trusted proxy is not blocked by this one's guesses.
            let other = try await client.request(
                .post, "/api/v1/auth/login", headers: [HTTPField.Name("X-Forwarded-For")!: "10.0.0.9"],
                json: #"{"email":"admin","password":"\#(TestServer.adminPassword)"}"#)
            #expect(other.status == .ok)
        }
    }

    @Test func oneAccountIsProtectedAgainstGuessesFromManyAddresses() async throws {
        let server = TestServer { $0.loginAttempts = 2 }
        defer { server.removeData() }
        try await server.run { client in
            // Four times the per-address limit against one account, each from its own address.
            for attempt in 1...8 {
                let wrong = try await client.request(
                    .post, "/api/v1/auth/login", headers: [HTTPField.Name("X-Forwarded-For")!: "198.51.100.\(attempt)"],
                    json: #"{"email":"admin","password":"guess\#(attempt)"}"#)
                #expect(wrong.errorCode == "bad_credentials")
            }
            let blocked = try await client.request(
                .post, "/api/v1/auth/login", headers: [HTTPField.Name("X-Forwarded-For")!: "198.51.100.99"],
                json: #"{"email":"admin","password":"\#(TestServer.adminPassword)"}"#)
            #expect(blocked.errorCode == "too_many_attempts")
        }
    }

    static func device(_ response: TestResponse) -> String? {
        response.headers[values: .setCookie].first { $0.hasPrefix("podium_device=") }
            .map { String($0.dropFirst("podium_device=".count).prefix { $0 != ";" }) }
    }

    static func from(_ address: String, device: String? = nil) -> HTTPFields {
        var fields: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: address]
        if let device { fields[.cookie] = "podium_device=\(device)" }
        return fields
    }

    /// OWASP's device cookies: guesses from many addresses slow the account down (429 with
    /// Retry-After), but the browser its owner signed in with before still signs in at once;
    /// the slow-down ends with the window (an injected clock), and the lock-out is audited.
    @Test func othersGuessesNeverLockTheOwnerOutOfABrowserTheySignedInWith() async throws {
        let clock = SteppedClock()
        let server = TestServer { $0.loginAttempts = 2 }
        defer { server.removeData() }
        try await server.run(now: { clock.now }) { client in
            let right = #"{"email":"admin","password":"\#(TestServer.adminPassword)"}"#
            let first = try await client.request(.post, "/api/v1/auth/login", headers: Self.from("10.1.1.1"), json: right)
            #expect(first.status == .ok)
            let device = try #require(Self.device(first))
            let admin = try #require(try first.object()["token"] as? String)

            for attempt in 1...8 {
                let wrong = try await client.request(
                    .post, "/api/v1/auth/login", headers: Self.from("198.51.100.\(attempt)"),
                    json: #"{"email":"admin","password":"guess\#(attempt)"}"#)
                #expect(wrong.errorCode == "bad_credentials")
            }
            let slowed = try await client.request(.post, "/api/v1/auth/login", headers: Self.from("10.1.1.2"), json: right)
            #expect(slowed.status == .tooManyRequests)
            #expect(slowed.errorCode == "too_many_attempts")
            let retryAfter = try #require(((try slowed.object()["error"] as? [String: Any])?["retryAfter"] as? Int))
            #expect(retryAfter > 0 && retryAfter <= 60)
            #expect(slowed.headers[.retryAfter] == String(retryAfter))

            // The owner's browser, from the hall's address or any other, is not held up.
            let owner = try await client.request(
                .post, "/api/v1/auth/login", headers: Self.from("10.1.1.2", device: device), json: right)
            #expect(owner.status == .ok)
            // A cookie made for another account, or forged, does not count.
            let forged = try await client.request(
                .post, "/api/v1/auth/login",
                headers: Self.from("10.1.1.3", device: String(device.dropLast()) + (device.hasSuffix("0") ? "1" : "0")),
                json: right)
            #expect(forged.status == .tooManyRequests)

            clock.advance(Double(retryAfter))
            let later = try await client.request(.post, "/api/v1/auth/login", headers: Self.from("10.1.1.4"), json: right)
            #expect(later.status == .ok)
            let entries = try await client.request(.get, "/api/v1/audit", token: admin).object()["entries"] as? [[String: Any]]
            #expect(entries?.contains { $0["action"] as? String == "sign_in.locked_out" } == true)
        }
    }

    /// The lecture hall: a class behind the school's one address guesses at a teacher's account
    /// until the address is blocked and the account slowed; the teacher, in the browser they
    /// made the account with (an invitation's page, never a sign-in with the form), still signs
    /// in from that same address.
    @Test func aClassGuessingFromTheSchoolsAddressNeverLocksOutTheTeachersOwnBrowser() async throws {
        let server = TestServer { $0.loginAttempts = 2 }
        defer { server.removeData() }
        try await server.run { client in
            let admin = try await client.login()
            let invitation = try await client.request(
                .post, "/api/v1/invitations", token: admin, json: #"{"email":"teacher@school.test"}"#
            ).object()
            let link = try #require(invitation["link"] as? String)
            let token = String(link.suffix(64))
            let accepted = try await client.request(
                .post, "/api/v1/auth/invitation", headers: Self.from("203.0.113.7"),
                json: #"{"token":"\#(token)","name":"Teacher","password":"the teacher's secret"}"#)
            #expect(accepted.status == .ok)
            let device = try #require(Self.device(accepted), "the invitation's page gives the browser its device cookie")

            let right = #"{"email":"teacher@school.test","password":"the teacher's secret"}"#
            for attempt in 1...8 {
                let wrong = try await client.request(
                    .post, "/api/v1/auth/login", headers: Self.from("203.0.113.7"),
                    json: #"{"email":"teacher@school.test","password":"guess\#(attempt)"}"#)
                #expect(wrong.status == (attempt <= 2 ? .unauthorized : .tooManyRequests))
            }
            // Without the cookie, from the hall: blocked; with it, from the same address: in.
            let blocked = try await client.request(.post, "/api/v1/auth/login", headers: Self.from("203.0.113.7"), json: right)
            #expect(blocked.errorCode == "too_many_attempts")
            let teacher = try await client.request(
                .post, "/api/v1/auth/login", headers: Self.from("203.0.113.7", device: device), json: right)
            #expect(teacher.status == .ok)
        }
    }

    @Test func anAddressIsBlockedForTheRestOfTheWindowOnly() async throws {
        let clock = SteppedClock()
        let server = TestServer { $0.loginAttempts = 3 }
        defer { server.removeData() }
        try await server.run(now: { clock.now }) { client in
            for attempt in 1...3 {
                _ = try await client.request(
                    .post, "/api/v1/auth/login", headers: Self.from("203.0.113.7"),
                    json: #"{"email":"someone@school.test","password":"guess\#(attempt)"}"#)
                clock.advance(10)
            }
            let right = #"{"email":"admin","password":"\#(TestServer.adminPassword)"}"#
            let blocked = try await client.request(.post, "/api/v1/auth/login", headers: Self.from("203.0.113.7"), json: right)
            #expect(blocked.errorCode == "too_many_attempts")
            // The first failure leaves the 60 s window 30 s after the last one.
            #expect(blocked.headers[.retryAfter] == "30")
            clock.advance(30)
            #expect(
                try await client.request(.post, "/api/v1/auth/login", headers: Self.from("203.0.113.7"), json: right).status
                    == .ok)
        }
    }
}
