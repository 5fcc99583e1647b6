import Foundation
import Testing

@testable import PodiumStore

/// LTI 1.3's records on both databases: platforms one per issuer and client id, a login
/// initiation taken once and only in time, the platform users' accounts, deep links in time, and a
/// platform's removal taking its rows with it.
@Suite("LTI store on SQLite and PostgreSQL", .timeLimit(.minutes(2)))
struct LTIStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000.25)

    static func platform(_ id: String, clientId: String = "client-1") -> LTIPlatformRecord {
        LTIPlatformRecord(
            id: id, name: "Moodle", issuer: "https://moodle.example.edu", clientId: clientId, deploymentIds: ["1", "dep-2"],
            authLoginURL: "https://moodle.example.edu/mod/lti/auth.php", tokenURL: "https://moodle.example.edu/mod/lti/token.php",
            jwksURL: "https://moodle.example.edu/mod/lti/certs.php", createdAt: t0)
    }

    static func insertTeachers(_ ids: [String], into store: SQLStore) async throws {
        for id in ids {
            try await store.insertUser(
                UserRecord(id: id, email: "\(id)@example.edu", name: id, role: .presenter, passwordHash: "x", createdAt: t0))
        }
    }

    @Test(arguments: TestStores.kinds) func platformsAreOnePerIssuerAndClient(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await store.insertLTIPlatform(Self.platform("p1"))
            try await store.insertLTIPlatform(Self.platform("p2", clientId: "client-2"))
            await #expect(throws: (any Error).self) { try await store.insertLTIPlatform(Self.platform("p3")) }
            #expect(try await store.ltiPlatform(id: "p1") == Self.platform("p1"))
            #expect(try await store.ltiPlatform(id: "p9") == nil)
            #expect(try await store.ltiPlatforms().map(\.id) == ["p1", "p2"])
            #expect(
                try await store.ltiPlatforms(issuer: "https://moodle.example.edu").map(\.clientId) == ["client-1", "client-2"])
            #expect(try await store.ltiPlatforms(issuer: "https://canvas.example.edu").isEmpty)
        }
    }

    @Test(arguments: TestStores.kinds) func aLoginIsTakenOnceAndOnlyInTime(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await store.insertLTIPlatform(Self.platform("p1"))
            let login = LTILoginRecord(
                state: "s1", nonce: "n1", platformId: "p1", targetLinkURI: "https://podium/s/ABC", expiresAt: Self.t0 + 600)
            try await store.insertLTILogin(login, now: Self.t0)
            try await store.insertLTILogin(
                LTILoginRecord(state: "s2", nonce: "n2", platformId: "p1", targetLinkURI: "x", expiresAt: Self.t0 + 600),
                now: Self.t0)
            #expect(try await store.takeLTILogin(state: "s1", now: Self.t0 + 10) == login)
            // A replay finds nothing.
            #expect(try await store.takeLTILogin(state: "s1", now: Self.t0 + 10) == nil)
            // Too late.
            #expect(try await store.takeLTILogin(state: "s2", now: Self.t0 + 601) == nil)
            // Expired ones are swept by the next login.
            try await store.insertLTILogin(
                LTILoginRecord(state: "s3", nonce: "n3", platformId: "p1", targetLinkURI: "x", expiresAt: Self.t0 + 600),
                now: Self.t0)
            try await store.insertLTILogin(
                LTILoginRecord(state: "s4", nonce: "n4", platformId: "p1", targetLinkURI: "x", expiresAt: Self.t0 + 2000),
                now: Self.t0 + 700)
            #expect(try await store.takeLTILogin(state: "s3", now: Self.t0) == nil)
            #expect(try await store.takeLTILogin(state: "s4", now: Self.t0 + 700)?.nonce == "n4")
        }
    }

    @Test(arguments: TestStores.kinds) func usersAndDeepLinksGoWithTheirPlatform(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await store.insertUser(
                UserRecord(id: "u1", email: "t@example.edu", name: "T", role: .presenter, passwordHash: "x", createdAt: Self.t0))
            try await store.insertLTIPlatform(Self.platform("p1"))
            #expect(try await store.ltiUserId(platformId: "p1", subject: "sub-1") == nil)
            try await store.linkLTIUser(platformId: "p1", subject: "sub-1", userId: "u1")
            try await store.linkLTIUser(platformId: "p1", subject: "sub-1", userId: "u1")
            #expect(try await store.ltiUserId(platformId: "p1", subject: "sub-1") == "u1")
            #expect(try await store.ltiUserId(platformId: "p1", subject: "sub-2") == nil)

            let link = LTIDeepLinkRecord(
                id: "dl1", platformId: "p1", deploymentId: "1", userId: "u1", returnURL: "https://moodle/return", data: "opaque",
                acceptMultiple: true, expiresAt: Self.t0 + 3600)
            try await store.insertLTIDeepLink(link, now: Self.t0)
            #expect(try await store.ltiDeepLink(id: "dl1", now: Self.t0) == link)
            #expect(try await store.ltiDeepLink(id: "dl1", now: Self.t0 + 3601) == nil)
            #expect(try await store.deleteLTIDeepLink(id: "dl1"))
            #expect(try await !store.deleteLTIDeepLink(id: "dl1"))
            var second = link
            second.id = "dl2"
            second.data = nil
            try await store.insertLTIDeepLink(second, now: Self.t0)
            #expect(try await store.ltiDeepLink(id: "dl2", now: Self.t0) == second)

            #expect(try await store.deleteLTIPlatform(id: "p1"))
            #expect(try await !store.deleteLTIPlatform(id: "p1"))
            #expect(try await store.ltiUserId(platformId: "p1", subject: "sub-1") == nil)
            #expect(try await store.ltiDeepLink(id: "dl2", now: Self.t0) == nil)
            #expect(try await store.user(id: "u1") != nil)
        }
    }

    /// Where a course's links point (kept once, per course) and a session's co-hosts (granted
    /// once, listed, taken back once, gone with the session's people); a deep link keeps its course.
    @Test(arguments: TestStores.kinds) func placementsAndCoHostsAreKeptOnce(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await Self.insertTeachers(["u1", "u2", "u3"], into: store)
            try await store.insertLTIPlatform(Self.platform("p1"))
            try await store.insertSession(
                SessionRecord(
                    id: "s1", code: "K7Q2MX", deckId: nil, presenterId: "u1", passcodeHash: nil, allowDownload: false,
                    createdAt: Self.t0))

            #expect(try await !store.isLTIContentPlaced(platformId: "p1", contextId: "c1", kind: "session", target: "s1"))
            for _ in 0..<2 {
                try await store.placeLTIContent(
                    platformId: "p1", contextId: "c1", kind: "session", target: "s1", placedBy: "u1", at: Self.t0)
            }
            #expect(try await store.isLTIContentPlaced(platformId: "p1", contextId: "c1", kind: "session", target: "s1"))
            #expect(try await !store.isLTIContentPlaced(platformId: "p1", contextId: "c2", kind: "session", target: "s1"))
            #expect(try await !store.isLTIContentPlaced(platformId: "p1", contextId: "c1", kind: "deck", target: "s1"))

            let grant = SessionHostRecord(sessionId: "s1", userId: "u2", grantedBy: nil, reason: "lti-course", createdAt: Self.t0)
            #expect(try await store.addSessionHost(grant))
            #expect(try await !store.addSessionHost(grant), "a second grant of the same person is not new")
            #expect(
                try await store.addSessionHost(
                    SessionHostRecord(sessionId: "s1", userId: "u3", grantedBy: "u1", reason: "x", createdAt: Self.t0 + 1)))
            #expect(try await store.isSessionHost(sessionId: "s1", userId: "u2"))
            #expect(try await !store.isSessionHost(sessionId: "s1", userId: "u1"), "the presenter is no co-host")
            #expect(try await store.sessionHosts(sessionId: "s1").map(\.userId) == ["u2", "u3"])
            #expect(try await store.sessionHosts(sessionId: "s1").first == grant)

            let link = LTIDeepLinkRecord(
                id: "dl1", platformId: "p1", deploymentId: "1", userId: "u1", returnURL: "https://moodle/return", data: nil,
                acceptMultiple: false, expiresAt: Self.t0 + 3600, contextId: "c1")
            try await store.insertLTIDeepLink(link, now: Self.t0)
            #expect(try await store.ltiDeepLink(id: "dl1", now: Self.t0)?.contextId == "c1")

            #expect(try await store.deleteLTIPlatform(id: "p1"))
            #expect(try await !store.isLTIContentPlaced(platformId: "p1", contextId: "c1", kind: "session", target: "s1"))
            // A grant is the session's, not the platform's: it stays.
            #expect(try await store.isSessionHost(sessionId: "s1", userId: "u2"))

            // Taken back once: the other grant stays.
            #expect(try await store.removeSessionHost(sessionId: "s1", userId: "u3"))
            #expect(try await !store.removeSessionHost(sessionId: "s1", userId: "u3"), "nothing left to take back")
            #expect(try await !store.isSessionHost(sessionId: "s1", userId: "u3"))
            #expect(try await store.sessionHosts(sessionId: "s1").map(\.userId) == ["u2"])
        }
    }

    /// A deck's co-hosts while a session of it is live: asked in one read; an ended session's
    /// co-host, a co-host of another deck's session and the presenter themself are none.
    @Test(arguments: TestStores.kinds) func aLiveSessionsCoHostIsFoundByItsDeck(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await Self.insertTeachers(["u1", "u2", "u3"], into: store)
            for deck in ["d1", "d2"] {
                try await store.insertDeck(
                    DeckRecord(
                        id: deck, ownerId: "u1", folderId: nil, title: deck, status: .ready, sourceHash: deck, sourceBytes: 1,
                        createdAt: Self.t0))
            }
            for (id, deck) in [("live", "d1"), ("ended", "d1"), ("other", "d2")] {
                try await store.insertSession(
                    SessionRecord(
                        id: id, code: "CODE\(id.count)\(deck.suffix(1))", deckId: deck, presenterId: "u1", passcodeHash: nil,
                        allowDownload: false, createdAt: Self.t0))
            }
            try await store.markSessionEnded(id: "ended", at: Self.t0 + 60)
            for (session, user) in [("live", "u2"), ("ended", "u3"), ("other", "u3")] {
                _ = try await store.addSessionHost(
                    SessionHostRecord(sessionId: session, userId: user, grantedBy: nil, reason: "lti-course", createdAt: Self.t0))
            }

            #expect(try await store.isHostOfLiveSession(deckId: "d1", userId: "u2"))
            #expect(try await !store.isHostOfLiveSession(deckId: "d1", userId: "u3"), "its session ended; u3 hosts d2's")
            #expect(try await store.isHostOfLiveSession(deckId: "d2", userId: "u3"))
            #expect(try await !store.isHostOfLiveSession(deckId: "d1", userId: "u1"), "the presenter is no co-host")
            try await store.markSessionEnded(id: "live", at: Self.t0 + 120)
            #expect(try await !store.isHostOfLiveSession(deckId: "d1", userId: "u2"))
        }
    }
}
