import Foundation
import HTTPTypes
import Testing

@testable import PodiumServer
@testable import PodiumStore

/// A course's second teacher starts a deck another teacher placed in the course before anyone
/// started it (issue #43, ``CourseTeachers``): their launch from the course (Instructor or
/// Administrator) opens the library's Go live dialog for it; the session they start is the deck
/// owner's, and they its co-host. A teacher of another course, an assistant, a stale launch and a
/// deck nobody placed get nothing, over the launch and over the plain REST API. In a browser,
/// against a real platform: Tests/Browser/test_lti.py.
@Suite("LTI: a course's teacher starts a placed deck", .timeLimit(.minutes(3)))
struct LTICourseDeckStartTests {
    static let t0 = LTICourseTeachersTests.t0
    static let membership = "http://purl.imsglobal.org/vocab/lis/v2/membership#"

    static func launch(_ subject: String, course: String, role: String = "Instructor", deck: String) -> LTILaunch {
        LTILaunch(
            kind: .resourceLink, deploymentId: "1", subject: subject, name: "Teacher \(subject)",
            email: "\(subject)@school.example", roles: [membership + role], custom: ["podium_deck": deck],
            targetLinkURI: nil, contextId: course, contextTitle: "Course \(course)", locale: nil)
    }

    @Test(arguments: TestStores.kinds) func aTeacherOfTheCourseMayStartAPlacedDeckThatIsNotLive(_ kind: StoreKind)
        async throws
    {
        try await TestStores.with(kind) { store in
            let lti = LTICourseTeachersTests.controller(store)
            let platform = LTIRoutesTests.platform
            try await store.insertLTIPlatform(platform)
            let people = ["owner": "physics", "colleague": "physics", "assistant": "physics", "stranger": "chemistry"]
            var users: [String: UserRecord] = [:]
            for (subject, course) in people {
                users[subject] = try await lti.teacher(Self.launch(subject, course: course, deck: "d1"), platform: platform)
            }
            let (owner, colleague, assistant, stranger) = (
                users["owner"]!, users["colleague"]!, users["assistant"]!, users["stranger"]!
            )
            for id in ["d1", "d2"] {
                try await store.insertDeck(
                    DeckRecord(
                        id: id, ownerId: owner.id, folderId: nil, title: "Optics", status: .ready, sourceHash: "h",
                        sourceBytes: 1, pageCount: 1, createdAt: Self.t0))
            }
            let deck = try #require(try await store.deck(id: "d1"))
            let courses = lti.courses
            let hosts = SessionHosts(store: store, courses: courses)
            let path = { (subject: String, role: String) in
                try await lti.teacherPath(
                    Self.launch(subject, course: people[subject]!, role: role, deck: "d1"), platform: platform,
                    user: users[subject]!)
            }

            // Nobody placed it in the course yet: the colleague lands in their own library.
            #expect(try await path("colleague", "Instructor") == "/library")
            #expect(try await courses.course(startingDeck: deck, user: colleague) == nil)
            #expect(try await !hosts.mayPresent(deck, user: colleague))

            // The owner's launch places it; the colleague's launch then opens its Go live dialog
            // and vouches for them in that course, as does an Administrator's.
            #expect(try await path("owner", "Instructor") == "/library?golive=d1")
            #expect(try await path("colleague", "Instructor") == "/library?golive=d1")
            #expect(
                try await courses.course(startingDeck: deck, user: colleague) == LTICourse(platformId: "p1", contextId: "physics")
            )
            #expect(try await hosts.mayPresent(deck, user: colleague))
            // The owner needs no course; a deck not placed in it stays the owner's.
            #expect(try await courses.course(startingDeck: deck, user: owner) == nil)
            let other = try #require(try await store.deck(id: "d2"))
            #expect(try await courses.course(startingDeck: other, user: colleague) == nil)

            // An assistant runs a live session (a co-host) but does not start one; a teacher of
            // another course gets nothing.
            #expect(try await path("assistant", "TeachingAssistant") == "/library")
            #expect(try await courses.course(startingDeck: deck, user: assistant) == nil)
            #expect(try await path("stranger", "Instructor") == "/library")
            #expect(try await courses.course(startingDeck: deck, user: stranger) == nil)
            #expect(try await !hosts.mayPresent(deck, user: stranger))
            #expect(try await path("assistant", "Administrator") == "/library?golive=d1")
            #expect(try await courses.course(startingDeck: deck, user: assistant) != nil)

            // The launch vouches for a while, not for ever (the platform knows who still teaches).
            let later = CourseTeachers(
                store: store, sessions: store, audit: nil, now: { Self.t0 + CourseTeachers.launchLifetime + 1 })
            #expect(try await later.course(startingDeck: deck, user: colleague) == nil)
            // A later launch renews it.
            let renewed = LTICourseTeachersTests.controller(store, now: Self.t0 + CourseTeachers.launchLifetime)
            _ = try await renewed.teacherPath(
                Self.launch("colleague", course: "physics", deck: "d1"), platform: platform, user: colleague)
            #expect(try await later.course(startingDeck: deck, user: colleague) != nil)

            // Live: the colleague lands in its console, a co-host, as before.
            let lecture = SessionRecord(
                id: "s1", code: "M3P9TW", deckId: "d1", presenterId: owner.id, passcodeHash: nil, allowDownload: false,
                createdAt: Self.t0 + 10)
            try await store.insertSession(lecture)
            #expect(try await path("colleague", "Instructor") == "/present/M3P9TW")
            #expect(try await hosts.isHost(colleague, of: lecture))
        }
    }

    /// `POST /api/v1/sessions` for a deck that is not the caller's: refused (404, as for a deck
    /// that does not exist) unless a recent launch from a course the deck is placed in vouches
    /// for them; then the session is the owner's, the starter its co-host, audited once.
    @Test func startingAnotherTeachersDeckOverRESTNeedsTheirCourse() async throws {
        try await AuthorizationMatrixTests.withAccounts { client, store, tokens in
            let uploaded = try await client.upload(TestServer.demoDeck, token: tokens.owner).object()
            let deckId = try #require(uploaded["id"] as? String)
            #expect(try await client.waitForDeck(deckId, token: tokens.owner)["status"] as? String == "ready")
            let body = #"{"deckId":"\#(deckId)","passcode":"owl"}"#
            func start() async throws -> TestResponse {
                try await client.request(.post, "/api/v1/sessions", token: tokens.other, json: body)
            }
            func read() async throws -> HTTPResponse.Status {
                try await client.request(.get, "/api/v1/decks/\(deckId)", token: tokens.other).status
            }
            #expect(try await start().status == .notFound)
            #expect(try await read() == .notFound)

            try await store.insertLTIPlatform(LTIRoutesTests.platform)
            try await store.placeLTIContent(
                platformId: "p1", contextId: "physics", kind: "deck", target: deckId, placedBy: "u_owner", at: Date())
            // Placed, but no launch of theirs vouches for them; then a launch from another
            // course; then one from the course, but too long ago.
            #expect(try await start().status == .notFound)
            try await store.recordLTICourseTeacher(platformId: "p1", contextId: "chemistry", userId: "u_other", at: Date())
            #expect(try await start().status == .notFound)
            try await store.recordLTICourseTeacher(
                platformId: "p1", contextId: "physics", userId: "u_other", at: Date() - CourseTeachers.launchLifetime - 60)
            #expect(try await start().status == .notFound)
            #expect(try await read() == .notFound)

            try await store.recordLTICourseTeacher(platformId: "p1", contextId: "physics", userId: "u_other", at: Date())
            #expect(try await read() == .ok)
            let started = try await start()
            #expect(started.status == .created)
            let session = try started.object()
            // Presented by the deck's owner; the starter, a host, sees the passcode.
            #expect(session["presenter"] as? String == "owner@example.org")
            #expect(session["passcode"] as? String == "owl")
            let code = try #require(session["code"] as? String)
            let record = try #require(try await store.session(code: code))
            #expect(record.presenterId == "u_owner")
            #expect(try await store.sessionHosts(sessionId: record.id).map(\.userId) == ["u_other"])
            let socket = try await client.socket(code: code)
            #expect(try await socket.hello(["role": "presenter", "token": tokens.other])["type"] as? String == "welcome")
            let grants = try await store.auditEntries(before: nil, limit: 50).filter { $0.action == "lti.cohost_granted" }
            #expect(grants.map(\.target) == ["other@example.org"])
            #expect(grants.first?.detail == "session \(code), course physics on Moodle")
            // The owner hosts it as its presenter.
            #expect(try await client.request(.post, "/api/v1/sessions/\(code)/end", token: tokens.owner).status == .ok)
        }
    }
}
