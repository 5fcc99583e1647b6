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
            #expect(blocked.errorCode == "rate_limited")
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
            #expect(blocked.errorCode == "rate_limited")
        }
    }
}
