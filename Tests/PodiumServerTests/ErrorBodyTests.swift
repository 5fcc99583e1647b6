import Foundation
import HTTPTypes
import Testing

/// Every refusal has the same body, `{"error": {"code", "message"}}`, including those the HTTP
/// framework makes itself.
@Suite("Error bodies", .timeLimit(.minutes(3)))
struct ErrorBodyTests {
    @Test func frameworkRefusalsCarryACode() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let notJSON = try await client.request(.post, "/api/v1/auth/login", json: "{")
            #expect(notJSON.status == .badRequest)
            #expect(notJSON.errorCode == "bad_request")
            let wrongType = try await client.request(.post, "/api/v1/auth/login", json: #"{"email":1}"#)
            #expect(wrongType.errorCode == "bad_request")
            let huge = String(repeating: "x", count: 2 << 20)
            let tooBig = try await client.request(.post, "/api/v1/folders", token: token, json: #"{"name":"\#(huge)"}"#)
            #expect(tooBig.status == .contentTooLarge)
            #expect(tooBig.errorCode == "too_large", "\(String(buffer: tooBig.body)) \(tooBig.headers)")
            let nowhere = try await client.request(.get, "/api/v1/no-such-thing", token: token)
            #expect(nowhere.status == .notFound)
            #expect(nowhere.errorCode == "not_found")
            // Refusals and API answers carry the same security headers as pages.
            let me = try await client.request(.get, "/api/v1/me", token: token)
            for response in [notJSON, tooBig, nowhere, me] {
                #expect(response.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
                #expect(response.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            }
        }
    }
}
