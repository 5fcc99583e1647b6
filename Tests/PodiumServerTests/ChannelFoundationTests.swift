import Foundation
import HTTPTypes
import PodiumStore
import Testing

@testable import PodiumServer

/// The channel's shared ground: who asks, membership, the API's versions and validators, and
/// the signed stream URLs.
@Suite struct ChannelFoundationTests {
    static let key = [UInt8](repeating: 7, count: 32)

    @Test func aStreamTokenNamesItsResourceAndPersonUntilItExpires() throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let issuer = StreamTokens(keyBytes: Self.key, lifetime: 600, now: { start })
        let (token, expiresAt) = issuer.issue(resource: "video:v_abc", viewerKey: "v_someone")
        #expect(expiresAt == start + 600)
        let claims = try issuer.verify(token)
        #expect(claims == StreamClaims(resource: "video:v_abc", viewerKey: "v_someone", expiresAt: start + 600))
        #expect(claims.kind == "video" && claims.id == "v_abc")

        let later = StreamTokens(keyBytes: Self.key, lifetime: 600, now: { start + 600 })
        #expect(throws: StreamTokenError.expired) { try later.verify(token) }
        let otherKey = StreamTokens(keyBytes: [UInt8](repeating: 8, count: 32), lifetime: 600, now: { start })
        #expect(throws: StreamTokenError.forged) { try otherKey.verify(token) }
    }

    @Test func aTokenChangedInAnyWayIsForged() throws {
        let issuer = StreamTokens(keyBytes: Self.key, lifetime: 600, now: { Date() })
        let (token, _) = issuer.issue(resource: "radio:r_1", viewerKey: "u_1")
        let parts = token.split(separator: ".").map(String.init)
        // Another person's or resource's payload under this MAC; a longer expiry; garbage.
        let otherPayload = StreamTokens.base64URL(Data("radio:r_2|u_1|9999999999".utf8))
        for forged in [
            otherPayload + "." + parts[1], parts[0] + "." + String(parts[1].reversed()), parts[0], "", "..", "a.b",
            parts[0] + "." + parts[1] + "x", "%%%.%%%",
        ] {
            #expect(throws: StreamTokenError.forged, "\(forged)") { try issuer.verify(forged) }
        }
    }

    /// A token's parts are read as base64url without padding, byte for byte what `base64URL` wrote;
    /// a character outside that alphabet, padding, or a length no encoding has is no token.
    @Test func aTokenPartIsBase64URLWithoutPadding() {
        var generator = SystemRandomNumberGenerator()
        for count in 0..<70 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = StreamTokens.base64URL(Data(bytes))
            #expect(StreamTokens.bytes(base64URL: Substring(text)) == bytes, "\(text)")
        }
        #expect(StreamTokens.bytes(base64URL: "-_8") == [0xFB, 0xFF])
        for text in ["+/8", "AA==", "AAAAA", "A", "é", "AA AA"] {
            #expect(StreamTokens.bytes(base64URL: Substring(text)) == nil, "\(text)")
        }
    }

    @Test func theStoredKeyIsMadeOnceAndReadByEveryNode() async throws {
        try await TestStores.with(.sqlite) { store in
            let first = try await store.channelSetting(StreamTokens.settingName, orInsert: StreamTokens.newKeyText())
            let second = try await store.channelSetting(StreamTokens.settingName, orInsert: StreamTokens.newKeyText())
            #expect(first == second)
            #expect(StreamTokens.key(fromText: first)?.count == 32)
            #expect(StreamTokens.key(fromText: "zz") == nil)
        }
    }

    @Test func anAnonymousBrowserIsNamedOnceAndKeepsItsName() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let first = try await client.request(.get, "/api/v1/channel/me")
            #expect(first.status == .ok)
            let cookie = try #require(first.headers[.setCookie])
            #expect(cookie.hasPrefix("podium_viewer=v_") && cookie.contains("HttpOnly"))
            let me = try first.object()
            let key = try #require(me["key"] as? String)
            #expect(me["signedIn"] as? Bool == false && me["member"] as? Bool == false)
            #expect(me["name"] is NSNull)
            let channel = try #require(me["channel"] as? [String: Any])
            #expect(channel["membershipURL"] is NSNull && channel["name"] as? String == "Podium Channel")
            #expect(first.headers[.cacheControl] == "private, no-store")

            let value = String(cookie.split(separator: ";")[0])
            let again = try await client.request(.get, "/api/v1/channel/me", headers: [.cookie: value])
            #expect(try again.object()["key"] as? String == key)
            #expect(again.headers[.setCookie] == nil)
        }
    }

    @Test func anAdminGrantsAndRevokesMembership() async throws {
        try await AuthorizationMatrixTests.withAccounts { client, _, tokens in
            let owner = try await client.request(.get, "/api/v1/channel/me", token: tokens.owner).object()
            #expect(owner["member"] as? Bool == false && owner["key"] as? String == "u_owner")
            #expect(try await client.request(.get, "/api/v1/channel/me", token: tokens.admin).object()["member"] as? Bool == true)

            let grant = #"{"member":true}"#
            #expect(
                try await client.request(.patch, "/api/v1/users/u_owner", token: tokens.other, json: grant).status == .forbidden)
            #expect(
                try await client.request(.patch, "/api/v1/users/u_nobody", token: tokens.admin, json: grant).status == .notFound)
            #expect(
                try await client.request(.patch, "/api/v1/users/u_owner", token: tokens.admin, json: "{}").status == .badRequest)
            let granted = try await client.request(.patch, "/api/v1/users/u_owner", token: tokens.admin, json: grant).object()
            #expect(granted["member"] as? Bool == true)
            #expect(try await client.request(.get, "/api/v1/channel/me", token: tokens.owner).object()["member"] as? Bool == true)

            let found = try await client.request(.get, "/api/v1/users?search=OWNER", token: tokens.admin).array()
            #expect(found.map { $0["id"] as? String } == ["u_owner"] && found[0]["member"] as? Bool == true)

            _ = try await client.request(.patch, "/api/v1/users/u_owner", token: tokens.admin, json: #"{"member":false}"#)
            #expect(
                try await client.request(.get, "/api/v1/channel/me", token: tokens.owner).object()["member"] as? Bool == false)
        }
    }

    @Test func theAPIAnswersTheVersionAskedForAndRefusesOnesItDoesNotHave() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let v1 = try await client.request(.get, "/api/v1/channel/me", headers: [.accept: "application/vnd.podium.v1+json"])
            #expect(v1.status == .ok && v1.headers[.contentType] == "application/vnd.podium.v1+json")
            #expect(v1.headers[.vary] == "Accept")
            let plain = try await client.request(.get, "/api/v1/channel/me", headers: [.accept: "application/json"])
            #expect(plain.headers[.contentType] == "application/json; charset=utf-8")
            let browser = try await client.request(
                .get, "/api/v1/channel/me", headers: [.accept: "text/html,application/xhtml+xml,*/*;q=0.8"])
            #expect(browser.status == .ok)
            let newest = try await client.request(
                .get, "/api/v1/channel/me",
                headers: [.accept: "application/vnd.podium.v9+json, application/vnd.podium.v1+json;q=0.5"])
            #expect(newest.headers[.contentType] == "application/vnd.podium.v1+json")

            let refused = try await client.request(
                .get, "/api/v1/channel/me", headers: [.accept: "application/vnd.podium.v9+json"])
            #expect(refused.status == .notAcceptable && refused.errorCode == "unsupported_version")
            #expect(try refused.errorMessage().contains("application/vnd.podium.v1+json"))
            let text = try await client.request(.get, "/api/v1/channel/me", headers: [.accept: "text/plain"])
            #expect(text.status == .notAcceptable)
        }
    }

    @Test func aValidatorThatMatchesGets304() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let first = try await client.request(.get, "/api/v1/channel/me")
            let cookie = String(try #require(first.headers[.setCookie]).split(separator: ";")[0])
            let again = try await client.request(.get, "/api/v1/channel/me", headers: [.cookie: cookie])
            let tag = try #require(again.headers[.eTag])
            let same = try await client.request(.get, "/api/v1/channel/me", headers: [.cookie: cookie, .ifNoneMatch: tag])
            #expect(same.status == .notModified)
            #expect(same.body.readableBytes == 0 && same.headers[.eTag] == tag)
            let other = try await client.request(
                .get, "/api/v1/channel/me", headers: [.cookie: cookie, .ifNoneMatch: "\"v1-other\""])
            #expect(other.status == .ok)
        }
    }

    @Test func aStreamURLWithABadTokenIsRefusedAndAnExpiredOneIsGone() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let store = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
        try await server.run(store: store) { client in
            let forged = try await client.request(.get, "/stream/abc.def/live.m3u8")
            #expect(forged.status == .forbidden && forged.errorCode == "stream_forbidden")
            let keyText = try await store.channelSetting(StreamTokens.settingName, orInsert: "unused")
            let key = try #require(StreamTokens.key(fromText: keyText))
            let old = StreamTokens(keyBytes: key, lifetime: 60, now: { Date() - 3600 })
            let expired = try await client.request(
                .get, "/stream/\(old.issue(resource: "radio:r_1", viewerKey: "v_x").token)/live.m3u8")
            #expect(expired.status == .gone && expired.errorCode == "stream_expired")
            // A valid token for a kind no source serves is refused too.
            let fresh = StreamTokens(keyBytes: key, lifetime: 60, now: { Date() })
            let unknown = try await client.request(
                .get, "/stream/\(fresh.issue(resource: "nothing:x", viewerKey: "v_x").token)/live.m3u8")
            #expect(unknown.status == .forbidden)
        }
        try await store.close()
    }

    @Test func aMembershipErrorSaysWhichLimitWhyAndHowToJoin() throws {
        var configuration = ChannelConfiguration()
        configuration.membershipInfo = "Donate to join."
        let body = ChannelLimitError.Body(
            error: .init(
                code: "membership_required", limit: "radio_daily", message: "m", join: configuration.membershipInfo,
                joinUrl: configuration.membershipURL))
        let json = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(body)) as? [String: [String: Any]])
        #expect(json["error"]?["code"] as? String == "membership_required")
        #expect(json["error"]?["joinUrl"] is NSNull && json["error"]?["join"] as? String == "Donate to join.")
    }
}
