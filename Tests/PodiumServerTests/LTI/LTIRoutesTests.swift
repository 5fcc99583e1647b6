import Crypto
import Foundation
import HTTPTypes
import NIOCore
import Synchronization
import Testing
import _CryptoExtras

@testable import PodiumServer
@testable import PodiumStore

/// LTI 1.3's admin routes and key set, and what a launch's claims must say. The whole flow
/// against a real platform is Tests/Browser/test_lti.py.
@Suite("LTI routes and claims", .timeLimit(.minutes(3)))
struct LTIRoutesTests {
    static let registration = #"""
        {"issuer":"https://moodle.example.edu","clientId":"abc","deploymentIds":["1"," 2 ",""],
         "authLoginURL":"https://moodle.example.edu/mod/lti/auth.php","tokenURL":"https://moodle.example.edu/mod/lti/token.php",
         "jwksURL":"https://moodle.example.edu/mod/lti/certs.php"}
        """#

    @Test func onlyAdminsRegisterPlatformsAndTheKeySetIsOneKeyKeptInTheStore() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let keySet = Mutex("")
        try await server.run { client in
            let admin = try await client.login()
            let created = try await client.request(
                .post, "/api/v1/users", token: admin,
                json: #"{"email":"p@example.edu","password":"password1","name":"P"}"#)
            #expect(created.status == .created)
            let presenter = try await client.login(email: "p@example.edu", password: "password1")

            #expect(
                try await client.request(.post, "/api/v1/lti/platforms", token: presenter, json: Self.registration).status
                    == .forbidden)
            #expect(try await client.request(.get, "/api/v1/lti/platforms", token: presenter).status == .forbidden)
            #expect(try await client.request(.get, "/api/v1/lti/tool").status == .unauthorized)

            let registered = try await client.request(.post, "/api/v1/lti/platforms", token: admin, json: Self.registration)
            #expect(registered.status == .created)
            let platform = try registered.object()
            #expect(platform["name"] as? String == "moodle.example.edu")
            #expect(platform["deploymentIds"] as? [String] == ["1", "2"])
            let again = try await client.request(.post, "/api/v1/lti/platforms", token: admin, json: Self.registration)
            #expect(again.status == .conflict)
            #expect(again.errorCode == "platform_taken")
            let notHTTP = Self.registration.replacingOccurrences(
                of: "https://moodle.example.edu/mod/lti/certs.php", with: "file:///etc/passwd")
            #expect(try await client.request(.post, "/api/v1/lti/platforms", token: admin, json: notHTTP).status == .badRequest)
            let noDeployment = Self.registration.replacingOccurrences(of: #"["1"," 2 ",""]"#, with: "[]")
            #expect(
                try await client.request(.post, "/api/v1/lti/platforms", token: admin, json: noDeployment).status == .badRequest)
            #expect(try await client.request(.get, "/api/v1/lti/platforms", token: admin).array().count == 1)

            let tool = try await client.request(.get, "/api/v1/lti/tool", token: admin).object()
            let base = "http://127.0.0.1:\(client.port)"
            #expect(tool["loginURL"] as? String == base + "/api/v1/lti/login")
            #expect(tool["launchURL"] as? String == base + "/api/v1/lti/launch")
            #expect(tool["jwksURL"] as? String == base + "/api/v1/lti/jwks")

            let jwks = try await client.request(.get, "/api/v1/lti/jwks")
            #expect(jwks.status == .ok)
            let served = String(buffer: jwks.body)
            keySet.withLock { $0 = served }
            let keys = try #require(try JSONSerialization.jsonObject(with: Data(served.utf8)) as? [String: [[String: String]]])
            #expect(keys["keys"]?.count == 1)
            #expect(keys["keys"]?.first?["alg"] == "RS256")
            #expect(String(buffer: try await client.request(.get, "/api/v1/lti/jwks").body) == served)

            let id = try #require(platform["id"] as? String)
            #expect(try await client.request(.delete, "/api/v1/lti/platforms/\(id)", token: admin).status == .noContent)
            #expect(try await client.request(.delete, "/api/v1/lti/platforms/\(id)", token: admin).status == .notFound)
            // Both in the audit log, by the admin, with the platform's issuer.
            let entries = try #require(
                try await client.request(.get, "/api/v1/audit", token: admin).object()["entries"] as? [[String: Any]])
            let platformEntries = entries.filter { ($0["action"] as? String)?.hasPrefix("lti.") == true }
            #expect(
                platformEntries.compactMap { $0["action"] as? String } == ["lti.platform_removed", "lti.platform_registered"])
            #expect(
                platformEntries.allSatisfy { $0["target"] as? String == "https://moodle.example.edu" && $0["actorId"] is String })
        }
        // Another start on the same data: the same key.
        try await server.run { client in
            let served = String(buffer: try await client.request(.get, "/api/v1/lti/jwks").body)
            #expect(served == keySet.withLock { $0 })
        }
    }

    @Test func aDeepLinkingAnswerIsSignedWithTheToolsKey() async throws {
        let store = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
        let toolKey = LTIToolKey(store: store)
        let (key, keyID) = try await toolKey.key()
        let token = try JSONWebToken.signRS256(payload: Data(#"{"exp":4000000000}"#.utf8), key: key, keyID: keyID)
        let keys = try JSONWebKeySet(json: try await toolKey.publicKeySet())
        #expect(try JSONWebToken.verify(token, keys: keys, now: Date()) == Data(#"{"exp":4000000000}"#.utf8))
        // The same key once stored, for every node.
        #expect(try await LTIToolKey(store: store).key().keyID == keyID)
        try await store.close()
    }

    static let platform = LTIPlatformRecord(
        id: "p1", name: "Moodle", issuer: "https://moodle.example.edu", clientId: "abc", deploymentIds: ["1"],
        authLoginURL: "https://moodle.example.edu/auth", tokenURL: "https://moodle.example.edu/token",
        jwksURL: "https://moodle.example.edu/jwks", createdAt: Date(timeIntervalSince1970: 0))

    static func claims(_ change: (inout [String: Any]) -> Void = { _ in }) throws -> Data {
        let claim = LTILaunch.claim
        var claims: [String: Any] = [
            "iss": "https://moodle.example.edu", "aud": "abc", "sub": "42", "nonce": "n1", "exp": 4_000_000_000,
            "given_name": "Ada", "family_name": "Lovelace", "email": "Ada@Example.edu",
            claim + "deployment_id": "1", claim + "version": "1.3.0", claim + "message_type": "LtiResourceLinkRequest",
            claim + "resource_link": ["id": "r1"], claim + "roles": ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"],
            claim + "custom": ["podium_session": "K7Q2MX", "count": 3],
        ]
        change(&claims)
        return try JSONSerialization.data(withJSONObject: claims)
    }

    @Test func aLaunchsClaimsMustMatchTheRegistrationAndTheNonce() throws {
        let launch = try LTILaunch.read(payload: try Self.claims(), platform: Self.platform, nonce: "n1")
        #expect(launch.kind == .resourceLink)
        #expect(launch.name == "Ada Lovelace")
        #expect(launch.email == "ada@example.edu")
        #expect(launch.custom == ["podium_session": "K7Q2MX", "count": "3"])
        #expect(!launch.isInstructor)

        let claim = LTILaunch.claim
        let refusals: [(LTIRefusal, (inout [String: Any]) -> Void)] = [
            (.wrongClaims, { $0["iss"] = "https://other.example.edu" }),
            (.wrongClaims, { $0["aud"] = "xyz" }),
            (.wrongClaims, { $0["aud"] = ["abc", "xyz"] }),  // several audiences and no azp
            (.wrongClaims, { $0["azp"] = "xyz" }),
            (.wrongClaims, { $0["nonce"] = "n2" }),
            (.wrongClaims, { $0.removeValue(forKey: "nonce") }),
            (.unknownDeployment, { $0[claim + "deployment_id"] = "2" }),
            (.unsupportedMessage, { $0[claim + "version"] = "1.1" }),
            (.unsupportedMessage, { $0[claim + "message_type"] = "LtiSubmissionReviewRequest" }),
            (.unsupportedMessage, { $0.removeValue(forKey: claim + "resource_link") }),
            (.unsupportedMessage, { $0[claim + "message_type"] = "LtiDeepLinkingRequest" }),  // without its settings
        ]
        for (expected, change) in refusals {
            #expect(throws: expected) {
                try LTILaunch.read(payload: try Self.claims(change), platform: Self.platform, nonce: "n1")
            }
        }
        let several = try LTILaunch.read(
            payload: try Self.claims {
                $0["aud"] = ["abc", "xyz"]; $0["azp"] = "abc"
            }, platform: Self.platform, nonce: "n1")
        #expect(several.subject == "42")

        let teacher = try LTILaunch.read(
            payload: try Self.claims {
                $0[claim + "roles"] = ["http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator"]
                $0[claim + "message_type"] = "LtiDeepLinkingRequest"
                $0[LTILaunch.deepLinkingClaim + "deep_linking_settings"] = [
                    "deep_link_return_url": "https://moodle.example.edu/return", "data": "d", "accept_multiple": false,
                ]
            }, platform: Self.platform, nonce: "n1")
        #expect(teacher.isInstructor)
        #expect(teacher.kind == .deepLinking(returnURL: "https://moodle.example.edu/return", data: "d", acceptMultiple: false))
        #expect(LTIController.teacherPath(["podium_deck": "d_1"]) == "/library?golive=d_1")
        #expect(LTIController.teacherPath(["podium_session": "K7Q2MX"]) == "/present/K7Q2MX")
        #expect(LTIController.teacherPath(["podium_report": "K7Q2MX"]) == "/report.html?code=K7Q2MX")
        #expect(LTIController.teacherPath([:]) == "/library")
        #expect(LTIController.origin("https://moodle.example.edu:8443/return?x=1") == "https://moodle.example.edu:8443")
        #expect(LTIController.origin("javascript:alert(1)") == nil)
    }
}
