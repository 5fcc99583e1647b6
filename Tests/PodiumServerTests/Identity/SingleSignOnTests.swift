import Crypto
import Foundation
import HTTPTypes
import NIOCore
import PodiumStore
import Testing
import _CryptoExtras

@testable import PodiumServer

/// Single sign-on against a real OpenID provider (Tests/OIDC/provider.py: authlib's server), the
/// browser's part played by the test: Podium's start redirect, the provider's page answered, the
/// callback with the sign-in cookie, then who Podium says is signed in.
@Suite("Single sign-on with OpenID Connect")
struct SingleSignOnTests {
    /// One sign-in as a browser makes it; `tamper` changes the authorization request on its way
    /// to the provider (what an attacker in the middle could try).
    struct SignIn {
        let start: TestResponse
        let cookie: String
        let callback: TestResponse

        var location: String? { callback.headers[.location] }
        var authToken: String? { SingleSignOnTests.cookie("podium_auth", in: callback) }
    }

    static func cookie(_ name: String, in response: TestResponse) -> String? {
        for header in response.headers[values: .setCookie] {
            let pair = header.split(separator: ";", maxSplits: 1)[0].split(
                separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if pair.count == 2, pair[0] == name { return String(pair[1]) }
        }
        return nil
    }

    static func signIn(
        _ client: Client, _ provider: OIDCTestProvider, subject: String, action: String = "allow",
        language: String? = nil, tamper: (inout [URLQueryItem]) -> Void = { _ in }
    ) async throws -> SignIn {
        let start = try await client.request(
            .get, "/api/v1/auth/oidc/start?next=/library%3Ftab%3Ddecks" + (language.map { "&lang=\($0)" } ?? ""))
        #expect(start.status == .found)
        let cookie = try #require(Self.cookie("podium_oidc", in: start))
        let location = try #require(start.headers[.location])
        var url = try #require(URLComponents(string: location))
        var items = url.queryItems ?? []
        tamper(&items)
        url.queryItems = items
        let back = try await provider.answer(try #require(url.string), subject: subject, action: action)
        let callback = try #require(URLComponents(string: back))
        #expect(callback.path == "/api/v1/auth/oidc/callback")
        let response = try await client.request(
            .get, callback.path + "?" + (callback.percentEncodedQuery ?? ""), headers: [.cookie: "podium_oidc=\(cookie)"])
        #expect(response.status == .found)
        return SignIn(start: start, cookie: cookie, callback: response)
    }

    static func me(_ client: Client, _ token: String) async throws -> [String: Any] {
        let response = try await client.request(.get, "/api/v1/me", headers: [.cookie: "podium_auth=\(token)"])
        #expect(response.status == .ok)
        return try response.object()
    }

    static func withProvider(
        configure: @escaping @Sendable (inout OIDCSettings) -> Void = { _ in },
        server configureServer: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (Client, OIDCTestProvider) async throws -> Void
    ) async throws {
        let provider = try OIDCTestProvider()
        let issuer = provider.issuer
        let server = TestServer {
            var settings = OIDCSettings(issuer: issuer, clientId: "podium", clientSecret: "s3cret")
            settings.name = "School account"
            configure(&settings)
            $0.oidc = settings
            configureServer(&$0)
        }
        defer { server.removeData() }
        do {
            try await server.run { client in try await body(client, provider) }
        } catch {
            await provider.stop()
            throw error
        }
        await provider.stop()
    }

    /// The school's groups: admins, teachers (presenters), channel members.
    static let groups: @Sendable (inout OIDCSettings) -> Void = {
        $0.adminGroups = ["podium-admins"]
        $0.presenterGroups = ["teachers"]
        $0.memberGroups = ["channel-members"]
    }

    @Test func aTeacherSignsInAsPresenterAndGroupsChangeTheRoleAtEverySignIn() async throws {
        try await Self.withProvider(configure: Self.groups) { client, provider in
            let options = try await client.request(.get, "/api/v1/auth/options").object()
            #expect((options["singleSignOn"] as? [String: Any])?["name"] as? String == "School account")

            try await provider.setUser(
                "t-1001",
                [
                    "email": "ada@school.example", "email_verified": true, "name": "Ada Lovelace",
                    "groups": ["teachers", "channel-members"],
                ])
            let first = try await Self.signIn(client, provider, subject: "t-1001")
            #expect(first.location == "/library?tab=decks")
            let token = try #require(first.authToken)
            let me = try await Self.me(client, token)
            #expect(me["role"] as? String == "presenter")
            #expect(me["member"] as? Bool == true)
            #expect(me["name"] as? String == "Ada Lovelace")
            #expect(me["email"] as? String == "ada@school.example")
            // The sign-in cookie is spent.
            #expect(Self.cookie("podium_oidc", in: first.callback) == "")

            // Made an admin at the provider, out of the channel's members: both at the next sign-in.
            try await provider.setUser(
                "t-1001", ["email": "ada@school.example", "email_verified": true, "groups": ["teachers", "podium-admins"]])
            let second = try await Self.signIn(client, provider, subject: "t-1001")
            let admin = try await Self.me(client, try #require(second.authToken))
            #expect(admin["id"] as? String == me["id"] as? String)
            #expect(admin["role"] as? String == "admin")
            #expect(admin["member"] as? Bool == false)

            // The admin group revoked: a presenter again.
            try await provider.setUser("t-1001", ["email": "ada@school.example", "email_verified": true, "groups": ["teachers"]])
            let third = try await Self.signIn(client, provider, subject: "t-1001")
            let thirdToken = try #require(third.authToken)
            #expect(try await Self.me(client, thirdToken)["role"] as? String == "presenter")
            // Back among the channel's members.
            try await provider.setUser(
                "t-1001", ["email": "ada@school.example", "email_verified": true, "groups": ["teachers", "channel-members"]])
            let fourth = try await Self.signIn(client, provider, subject: "t-1001")
            let fourthToken = try #require(fourth.authToken)
            #expect(try await Self.me(client, fourthToken)["member"] as? Bool == true)

            // In no allowed group any more (she left the school): refused, with the sign-in page
            // saying why; out of the members, and her sign-ins still open end at once.
            try await provider.setUser("t-1001", ["email": "ada@school.example", "email_verified": true, "groups": ["alumni"]])
            let refused = try await Self.signIn(client, provider, subject: "t-1001")
            #expect(refused.location == "/login?sso_error=not_allowed")
            #expect(refused.authToken == nil)
            let page = try await client.request(.get, "/login?sso_error=not_allowed")
            #expect(page.status == .ok)
            #expect(try await client.request(.get, "/api/v1/me", token: fourthToken).status == .unauthorized)
            #expect(try await client.request(.get, "/api/v1/me", token: thirdToken).status == .unauthorized)
            let adminToken = try await client.login()
            let ada = try await client.request(.get, "/api/v1/users", token: adminToken).array()
                .first { $0["email"] as? String == "ada@school.example" }
            #expect(ada?["member"] as? Bool == false)

            // What the provider's groups did is in the audit log, done by the server.
            let entries = try #require(
                try await client.request(.get, "/api/v1/audit", token: adminToken).object()["entries"] as? [[String: Any]])
            let actions = entries.compactMap { entry in
                (entry["target"] as? String) == "ada@school.example" ? entry["action"] as? String : nil
            }
            #expect(
                actions == [
                    "sso.membership_changed", "sso.membership_changed", "sso.role_changed", "sso.membership_changed",
                    "sso.role_changed", "sso.account_created",
                ], "\(actions)")
            let bySignOn = entries.filter { ($0["action"] as? String)?.hasPrefix("sso.") == true }
            #expect(bySignOn.allSatisfy { $0["actorId"] == nil || $0["actorId"] is NSNull }, "by no admin")
        }
    }

    /// An admin who only ever signs in with the school's account gets the notices in the
    /// language of the sign-in page they came from (`lang=` on the start), as a password sign-in.
    @Test func anAdminsNoticesAreInTheLanguageOfTheSignInPage() async throws {
        let sink = try await SMTPSink()
        defer { sink.stop() }
        try await Self.withProvider(
            configure: Self.groups,
            server: {
                $0.smtpRelay = sink.relay
                $0.allowSignUp = true
            }
        ) { client, provider in
            try await provider.setUser(
                "a-1", ["email": "reditel@school.example", "email_verified": true, "groups": ["podium-admins"]])
            let signedIn = try await Self.signIn(client, provider, subject: "a-1", language: "cs")
            #expect(signedIn.authToken != nil)
            _ = try await client.request(
                .post, "/api/v1/auth/sign-up",
                json: #"{"email":"new@school.example","name":"Nová Učitelka","password":"a long secret","language":"en"}"#)
            let (_, token) = try #require(SMTPSink.link(in: try await sink.waitForMessage(to: "new@school.example")))
            _ = try await client.request(.post, "/api/v1/auth/sign-up/verify", json: #"{"token":"\#(token)"}"#)
            let notice = try await sink.waitForMessage(to: "reditel@school.example")
            #expect(AccountMailLanguageTests.header("Subject", in: notice) == "Účet v Podiu čeká na vaše schválení")
        }
    }

    @Test func someoneInNoAllowedGroupGetsNoAccount() async throws {
        try await Self.withProvider(configure: Self.groups) { client, provider in
            try await provider.setUser("s-77", ["email": "pupil@school.example", "email_verified": true, "groups": ["pupils"]])
            let refused = try await Self.signIn(client, provider, subject: "s-77")
            #expect(refused.location == "/login?sso_error=not_allowed")
            let admin = try await client.login()
            let users = try await client.request(.get, "/api/v1/users", token: admin).array()
            #expect(!users.contains { $0["email"] as? String == "pupil@school.example" })
        }
    }

    @Test func aRefusalAtTheProviderShowsTheErrorOnTheSignInPage() async throws {
        try await Self.withProvider { client, provider in
            let denied = try await Self.signIn(client, provider, subject: "t-2", action: "deny")
            #expect(denied.location == "/login?sso_error=denied")
            #expect(denied.authToken == nil)
        }
    }

    @Test func theAuthorizationRequestCarriesPKCEStateAndNonce() async throws {
        try await Self.withProvider { client, _ in
            let start = try await client.request(.get, "/api/v1/auth/oidc/start")
            let items = URLComponents(string: try #require(start.headers[.location]))?.queryItems ?? []
            func item(_ name: String) -> String? { items.first { $0.name == name }?.value }
            let cookie = try #require(Self.cookie("podium_oidc", in: start))
            let sealed = try #require(cookie.split(separator: ".").first)
            let body = try #require(Base64URL.decode(sealed))
            let pending = try JSONDecoder().decode(OIDCController.Pending.self, from: body)
            #expect(item("code_challenge_method") == "S256")
            #expect(item("code_challenge") == Base64URL.encode(Data(SHA256.hash(data: Data(pending.verifier.utf8)))))
            #expect(item("state") == pending.state)
            #expect(item("nonce") == pending.nonce)
            #expect(item("redirect_uri") == "http://127.0.0.1:\(client.port)/api/v1/auth/oidc/callback")
            #expect(pending.verifier.count >= 43)
        }
    }

    @Test func aWrongVerifierOrNonceOrStateIsRefused() async throws {
        try await Self.withProvider { client, provider in
            try await provider.setUser("t-3", ["email": "t3@school.example", "email_verified": true])
            // The code was asked for with another challenge: the provider refuses our verifier.
            let otherChallenge = Base64URL.encode(Data(SHA256.hash(data: Data(String(repeating: "v", count: 64).utf8))))
            let pkce = try await Self.signIn(client, provider, subject: "t-3") { items in
                items = items.map { $0.name == "code_challenge" ? URLQueryItem(name: $0.name, value: otherChallenge) : $0 }
            }
            #expect(pkce.location == "/login?sso_error=failed")
            #expect(pkce.authToken == nil)

            // The ID token carries another nonce than this sign-in's.
            let nonce = try await Self.signIn(client, provider, subject: "t-3") { items in
                items = items.map { $0.name == "nonce" ? URLQueryItem(name: $0.name, value: "someone-elses-nonce") : $0 }
            }
            #expect(nonce.location == "/login?sso_error=failed")
            #expect(nonce.authToken == nil)

            // Another sign-in's state (a forged or crossed callback).
            let state = try await Self.signIn(client, provider, subject: "t-3") { items in
                items = items.map { $0.name == "state" ? URLQueryItem(name: $0.name, value: "forged") : $0 }
            }
            #expect(state.location == "/login?sso_error=state")

            // The same person, untouched, signs in.
            let good = try await Self.signIn(client, provider, subject: "t-3")
            #expect(good.authToken != nil)
            let back = try #require(good.callback.headers[.location])
            #expect(back == "/library?tab=decks")
        }
    }

    @Test func aReplayedCallbackIsRefused() async throws {
        try await Self.withProvider { client, provider in
            try await provider.setUser("t-4", ["email": "t4@school.example", "email_verified": true])
            let start = try await client.request(.get, "/api/v1/auth/oidc/start")
            let cookie = try #require(Self.cookie("podium_oidc", in: start))
            let location = try #require(start.headers[.location])
            let answered = try await provider.answer(location, subject: "t-4")
            let back = try #require(URLComponents(string: answered))
            let path = back.path + "?" + (back.percentEncodedQuery ?? "")
            let first = try await client.request(.get, path, headers: [.cookie: "podium_oidc=\(cookie)"])
            #expect(Self.cookie("podium_auth", in: first) != nil)
            let again = try await client.request(.get, path, headers: [.cookie: "podium_oidc=\(cookie)"])
            #expect(again.headers[.location] == "/login?sso_error=failed")
            let noCookie = try await client.request(.get, path)
            #expect(noCookie.headers[.location] == "/login?sso_error=state")
        }
    }

    @Test func aFirstSignInTakesOverTheLocalAccountOnlyWithAVerifiedAddress() async throws {
        try await Self.withProvider { client, provider in
            let admin = try await client.login()
            let made = try await client.request(
                .post, "/api/v1/users", token: admin,
                json: #"{"email":"grace@school.example","name":"Grace","password":"long enough secret"}"#)
            #expect(made.status == .created)
            let graceId = try made.object()["id"] as? String
            try await client.request(
                .post, "/api/v1/users", token: admin,
                json: #"{"email":"linus@school.example","name":"Linus","password":"long enough secret"}"#)

            try await provider.setUser("g-1", ["email": "Grace@school.example", "email_verified": true])
            let grace = try await Self.signIn(client, provider, subject: "g-1")
            #expect(try await Self.me(client, try #require(grace.authToken))["id"] as? String == graceId)

            try await provider.setUser("l-1", ["email": "linus@school.example", "email_verified": false])
            let linus = try await Self.signIn(client, provider, subject: "l-1")
            #expect(linus.location == "/login?sso_error=email_taken")
            // The local password still works beside single sign-on.
            _ = try await client.login(email: "linus@school.example", password: "long enough secret")
        }
    }

    @Test func withoutAnIssuerThereIsNoSingleSignOn() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let options = try await client.request(.get, "/api/v1/auth/options").object()
            #expect(options["password"] as? Bool == true)
            #expect(options["singleSignOn"] == nil)
            #expect(try await client.request(.get, "/api/v1/auth/oidc/start").status == .notFound)
        }
    }
}

/// The ID token's checks, without a provider.
@Suite("Single sign-on's ID token checks")
struct OIDCIDTokenTests {
    static let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let issuer = "https://idp.school.example"

    static func claims(_ changes: [String: Any] = [:]) -> Data {
        var claims: [String: Any] = [
            "iss": issuer, "aud": "podium", "sub": "t-1", "nonce": "n-1", "exp": Date().timeIntervalSince1970 + 300,
        ]
        for (name, value) in changes { claims[name] = value }
        return try! JSONSerialization.data(withJSONObject: claims)
    }

    @Test func issuerAudienceAuthorizedPartyAndNonceAreChecked() throws {
        _ = try OIDCProvider.check(Self.claims(), issuer: Self.issuer, clientId: "podium", nonce: "n-1")
        _ = try OIDCProvider.check(
            Self.claims(["aud": ["podium", "other"], "azp": "podium"]), issuer: Self.issuer, clientId: "podium", nonce: "n-1")
        let refused: [Data] = [
            Self.claims(["iss": "https://evil.example"]), Self.claims(["aud": "another-app"]),
            Self.claims(["aud": ["podium", "other"], "azp": "other"]), Self.claims(["nonce": "n-2"]),
            Self.claims(["sub": ""]),
        ]
        for payload in refused {
            #expect(throws: OIDCFailure.self) {
                try OIDCProvider.check(payload, issuer: Self.issuer, clientId: "podium", nonce: "n-1")
            }
        }
        var noNonce = try JSONSerialization.jsonObject(with: Self.claims()) as! [String: Any]
        noNonce["nonce"] = nil
        #expect(throws: OIDCFailure.self) {
            try OIDCProvider.check(
                try JSONSerialization.data(withJSONObject: noNonce), issuer: Self.issuer, clientId: "podium", nonce: "n-1")
        }
    }

    /// A provider whose key set has `published`; the tokens are signed by `Self.key`.
    static func provider(publishing published: _RSA.Signing.PublicKey) -> OIDCProvider {
        let jwks = JSONWebKeySet.publicJSON(keys: [("k1", published)])
        return OIDCProvider(
            settings: OIDCSettings(issuer: issuer, clientId: "podium", clientSecret: "s"),
            http: { _ in (jwks, 200) }, now: { Date() })
    }

    @Test func aTamperedOrForeignIDTokenIsRefused() async throws {
        let token = try JSONWebToken.signRS256(payload: Self.claims(), key: Self.key, keyID: "k1")
        let provider = Self.provider(publishing: Self.key.publicKey)
        let jwks = Self.issuer + "/jwks"
        let identity = try await provider.verify(token, issuer: Self.issuer, jwksURI: jwks, nonce: "n-1")
        #expect(identity.subject == "t-1")

        let parts = token.split(separator: ".").map(String.init)
        let tampered = [parts[0], Base64URL.encode(Self.claims(["sub": "admin"])), parts[2]].joined(separator: ".")
        await #expect(throws: OIDCFailure.self) {
            try await provider.verify(tampered, issuer: Self.issuer, jwksURI: jwks, nonce: "n-1")
        }
        let foreign = Self.provider(publishing: try _RSA.Signing.PrivateKey(keySize: .bits2048).publicKey)
        await #expect(throws: OIDCFailure.self) {
            try await foreign.verify(token, issuer: Self.issuer, jwksURI: jwks, nonce: "n-1")
        }
    }

    @Test func groupsMapToRolesAndMembership() {
        var settings = OIDCSettings(issuer: Self.issuer, clientId: "podium", clientSecret: "s")
        func grant(_ groups: Set<String>, _ current: (UserRecord.Role, Bool)?) -> String {
            settings.grant(groups: groups, current: current.map { (role: $0.0, isMember: $0.1) })
                .map { "\($0.role.rawValue) \($0.isMember)" } ?? "refused"
        }
        // No groups configured: everyone is a presenter, an admin made by hand stays one.
        #expect(grant([], nil) == "presenter false")
        #expect(grant([], (.admin, true)) == "admin true")
        settings.adminGroups = ["a"]
        settings.presenterGroups = ["p"]
        settings.memberGroups = ["m"]
        #expect(grant(["a"], nil) == "admin false")
        #expect(grant(["p", "m"], (.admin, false)) == "presenter true")
        #expect(grant(["m"], nil) == "presenter true")
        #expect(grant(["x"], (.presenter, true)) == "refused")
        #expect(OIDCSettings.groups(from: ["a", 1, "b"]) == ["a", "b"])
        #expect(OIDCSettings.groups(from: "a b,c") == ["a", "b", "c"])
    }
}

/// The identities' table on SQLite and PostgreSQL.
@Suite("External identities in the store")
struct ExternalIdentityStoreTests {
    @Test(arguments: TestStores.kinds) func aPersonIsLinkedOnceAndTheirRoleAndMembershipSetTogether(_ kind: StoreKind)
        async throws
    {
        try await TestStores.with(kind) { store in
            let at = Date(timeIntervalSince1970: 1_800_000_000)
            let user = UserRecord(
                id: "u_sso1", email: "ada@school.example", name: "Ada", role: .presenter, passwordHash: "x", createdAt: at)
            try await store.insertUser(user)
            let identity = ExternalIdentityRecord(
                issuer: "https://idp.example", subject: "t-1", userId: user.id, email: user.email, createdAt: at, lastSignInAt: at
            )
            #expect(try await store.insertExternalIdentity(identity))
            var other = identity
            other.userId = "u_other"
            #expect(try await !store.insertExternalIdentity(other))
            #expect(try await store.externalIdentity(issuer: "https://idp.example", subject: "t-1") == identity)
            #expect(try await store.externalIdentity(issuer: "https://other.example", subject: "t-1") == nil)

            try await store.touchExternalIdentity(
                issuer: identity.issuer, subject: identity.subject, email: "new@school.example", at: at + 60)
            let touched = try await store.externalIdentities(userId: user.id)
            #expect(touched.count == 1)
            #expect(touched.first?.email == "new@school.example")
            #expect(touched.first?.lastSignInAt == at + 60)

            try await store.setRoleAndMembership(userId: user.id, role: .admin, isMember: true)
            let changed = try #require(try await store.user(id: user.id))
            #expect(changed.role == .admin)
            #expect(changed.isMember)
        }
    }
}
