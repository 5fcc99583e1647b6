import Foundation
import HTTPTypes
import Testing

@testable import PodiumServer
@testable import PodiumStore

/// A course's teachers (issue #43): a session or deck its owner placed in a course (deep linking,
/// or their own launch of the link) is shared with the course's other teachers, who become its
/// co-hosts (in the audit log, once); a teacher of another course, and a link nobody placed, share
/// nothing. A launch's language is kept as the teacher's mail language and goes on to the landing
/// page. The whole flow against a real platform, in a browser: Tests/Browser/test_lti.py.
@Suite("LTI: a course's teachers share its sessions", .timeLimit(.minutes(3)))
struct LTICourseTeachersTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    static let instructor = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"]

    static func controller(_ store: SQLStore, now: Date = t0) -> LTIController {
        LTIController(
            store: store, users: store, sessions: store, decks: store,
            accounts: Accounts(store: store, cost: 4, tokenLifetime: 3600, now: { t0 }), toolKey: LTIToolKey(store: store),
            keySets: JSONWebKeySetCache(fetch: { _ in Data() }), publicURL: "https://podium.example.edu",
            webRoot: TestServer.repositoryRoot.appendingPathComponent("Public"), tokenLifetime: 3600, now: { now },
            audit: AuditLog(store: store, now: { now }), languages: store)
    }

    static func launch(_ subject: String, course: String?, custom: [String: String], locale: String? = nil) -> LTILaunch {
        LTILaunch(
            kind: .resourceLink, deploymentId: "1", subject: subject, name: "Teacher \(subject)",
            email: "\(subject)@school.example", roles: instructor, custom: custom, targetLinkURI: nil, contextId: course,
            contextTitle: course.map { "Course \($0)" }, locale: locale)
    }

    @Test(arguments: TestStores.kinds) func aCoursesOtherTeachersBecomeCoHostsOfWhatIsPlacedInIt(_ kind: StoreKind)
        async throws
    {
        try await TestStores.with(kind) { store in
            let lti = Self.controller(store)
            let platform = LTIRoutesTests.platform
            try await store.insertLTIPlatform(platform)
            let hosts = SessionHosts(store: store)
            // Each teacher's first launch makes their account.
            let owner = try await lti.teacher(Self.launch("owner", course: "physics", custom: [:]), platform: platform)
            let colleague = try await lti.teacher(Self.launch("colleague", course: "physics", custom: [:]), platform: platform)
            let stranger = try await lti.teacher(Self.launch("stranger", course: "chemistry", custom: [:]), platform: platform)
            let session = SessionRecord(
                id: "s1", code: "K7Q2MX", deckId: nil, presenterId: owner.id, passcodeHash: nil, allowDownload: false,
                createdAt: Self.t0)
            try await store.insertSession(session)
            let link = ["podium_session": "K7Q2MX"]

            // Nobody placed it in the course yet: the colleague's launch shares nothing.
            let early = Self.launch("colleague", course: "physics", custom: link)
            #expect(try await lti.teacherPath(early, platform: platform, user: colleague) == "/present/K7Q2MX")
            #expect(try await !hosts.isHost(colleague, of: session))

            // The owner's launch of the link places it in the physics course; then the colleague's
            // launch makes them a co-host, once; a teacher of chemistry with the same link gets nothing.
            _ = try await lti.teacherPath(Self.launch("owner", course: "physics", custom: link), platform: platform, user: owner)
            #expect(try await !hosts.isHost(colleague, of: session))
            for _ in 0..<2 {
                #expect(try await lti.teacherPath(early, platform: platform, user: colleague) == "/present/K7Q2MX")
            }
            #expect(try await hosts.isHost(colleague, of: session))
            let chemistry = Self.launch("stranger", course: "chemistry", custom: link)
            #expect(try await lti.teacherPath(chemistry, platform: platform, user: stranger) == "/present/K7Q2MX")
            #expect(try await !hosts.isHost(stranger, of: session))
            // A launch with no course shares nothing either.
            let nowhere = Self.launch("stranger", course: nil, custom: link)
            _ = try await lti.teacherPath(nowhere, platform: platform, user: stranger)
            #expect(try await !hosts.isHost(stranger, of: session))

            let grants = try await store.auditEntries(before: nil, limit: 50).filter { $0.action == "lti.cohost_granted" }
            #expect(grants.count == 1)
            #expect(grants.first?.target == "colleague@school.example")
            #expect(grants.first?.detail == "session K7Q2MX, course Course physics on Moodle")

            // A deck placed in the course (its owner's launch of it): the colleague lands in the
            // console of its live session, as a co-host; the chemistry teacher in their library.
            try await store.insertDeck(
                DeckRecord(
                    id: "d1", ownerId: owner.id, folderId: nil, title: "Optics", status: .ready, sourceHash: "h",
                    sourceBytes: 1, pageCount: 1, createdAt: Self.t0))
            let deckLink = ["podium_deck": "d1"]
            #expect(
                try await lti.teacherPath(
                    Self.launch("owner", course: "physics", custom: deckLink), platform: platform, user: owner)
                    == "/library?golive=d1")
            let lecture = SessionRecord(
                id: "s2", code: "M3P9TW", deckId: "d1", presenterId: owner.id, passcodeHash: nil, allowDownload: false,
                createdAt: Self.t0 + 10)
            try await store.insertSession(lecture)
            let colleagueDeck = Self.launch("colleague", course: "physics", custom: deckLink)
            #expect(try await lti.teacherPath(colleagueDeck, platform: platform, user: colleague) == "/present/M3P9TW")
            #expect(try await hosts.isHost(colleague, of: lecture))
            let strangerDeck = Self.launch("stranger", course: "chemistry", custom: deckLink)
            #expect(try await lti.teacherPath(strangerDeck, platform: platform, user: stranger) == "/library")
            #expect(try await !hosts.isHost(stranger, of: lecture))
        }
    }

    @Test(arguments: TestStores.kinds) func aTeachersLaunchKeepsItsLanguageForTheirMail(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let lti = Self.controller(store)
            let platform = LTIRoutesTests.platform
            try await store.insertLTIPlatform(platform)
            let made = try await lti.teacher(Self.launch("t1", course: "c", custom: [:], locale: "de-DE"), platform: platform)
            #expect(try await store.userLanguage(userId: made.id) == "de-DE")
            // The mail catalogue reads it as its German.
            #expect(MailCatalog.match("de-DE", in: ["en", "de", "zh-Hans"]) == "de")
            // A later launch in another language: the account's language follows, as a sign-in's does.
            _ = try await lti.teacher(Self.launch("t1", course: "c", custom: [:], locale: "fr"), platform: platform)
            #expect(try await store.userLanguage(userId: made.id) == "fr")
            // No locale: the language stays.
            _ = try await lti.teacher(Self.launch("t1", course: "c", custom: [:]), platform: platform)
            #expect(try await store.userLanguage(userId: made.id) == "fr")
        }
    }

    @Test func theLaunchsLanguageGoesOnToTheLandingPage() throws {
        #expect(LTIController.inLanguage("/library", "de") == "/library?lang=de")
        #expect(LTIController.inLanguage("/library?golive=d_1", "pt-BR") == "/library?golive=d_1&lang=pt-BR")
        #expect(LTIController.inLanguage("/s/K7Q2MX#passcode=owl", "fr") == "/s/K7Q2MX?lang=fr#passcode=owl")
        #expect(LTIController.inLanguage("/report.html?code=K7Q2MX", nil) == "/report.html?code=K7Q2MX")

        let claim = LTILaunch.claim
        let read = { (locale: Any?) throws -> LTILaunch in
            try LTILaunch.read(
                payload: try LTIRoutesTests.claims {
                    $0[claim + "context"] = ["id": "course-1", "title": "Physics 101"]
                    if let locale { $0[claim + "launch_presentation"] = ["locale": locale] }
                }, platform: LTIRoutesTests.platform, nonce: "n1")
        }
        let launch = try read("pt_BR")
        #expect(launch.locale == "pt-BR")
        #expect(launch.contextId == "course-1")
        #expect(launch.contextTitle == "Physics 101")
        #expect(try read("zh-Hans").locale == "zh-Hans")
        #expect(try read(nil).locale == nil)
        #expect(try read("../en").locale == nil)
        #expect(try read("en\"><script>").locale == nil)
        #expect(try read(42).locale == nil)
    }

    /// A co-host runs the session as its presenter does: the presenter's socket, its report, its
    /// passcode, the deck's speaker notes, its question bank (to ask and to keep), ending it;
    /// before the grant each refuses them. The deck's title and pages stay its owner's to change.
    @Test func aCoHostRunsTheConsoleAndReadsTheReport() async throws {
        try await AuthorizationMatrixTests.withAccounts { client, store, tokens in
            let uploaded = try await client.upload(TestServer.demoDeck, token: tokens.owner).object()
            let deckId = try #require(uploaded["id"] as? String)
            #expect(try await client.waitForDeck(deckId, token: tokens.owner)["status"] as? String == "ready")
            let code = try #require(try await client.startSession(deckId: deckId, token: tokens.owner)["code"] as? String)
            let record = try #require(try await store.session(code: code))

            func presenterHello() async throws -> String? {
                let socket = try await client.socket(code: code)
                let reply = try await socket.hello(["role": "presenter", "token": tokens.other])
                return reply["code"] as? String ?? reply["type"] as? String
            }
            let passcode = #"{"passcode":"owl"}"#
            let reads = ["/api/v1/sessions/\(code)/report", "/api/v1/decks/\(deckId)", "/api/v1/decks/\(deckId)/questions"]
            #expect(try await presenterHello() == "forbidden")
            for path in reads {
                #expect(try await client.request(.get, path, token: tokens.other).status == .notFound, "\(path)")
            }
            _ = try await RecordingTests.start(client, token: tokens.other, code: code, expect: .forbidden)
            // The replay is the host's (the session's default).
            #expect(try await client.request(.get, "/api/v1/sessions/\(code)/replay", token: tokens.other).status == .forbidden)
            #expect(
                try await client.request(.patch, "/api/v1/sessions/\(code)", token: tokens.other, json: passcode).status
                    == .forbidden)

            #expect(
                try await store.addSessionHost(
                    SessionHostRecord(
                        sessionId: record.id, userId: "u_other", grantedBy: nil, reason: "lti-course", createdAt: Date())))
            #expect(try await presenterHello() == "welcome")
            for path in reads {
                #expect(try await client.request(.get, path, token: tokens.other).status == .ok, "\(path)")
            }
            // The bank is theirs to keep too: a question one teacher adds, the other asks.
            let question = #"{"poll":{"kind":"choice","question":"Which force?","choices":["Gravity","Friction"]}}"#
            let added = try await client.request(.post, "/api/v1/decks/\(deckId)/questions", token: tokens.other, json: question)
            #expect(added.status == .created)
            let bank = try await client.request(.get, "/api/v1/decks/\(deckId)/questions", token: tokens.owner).array()
            #expect(bank.count == 1)
            let rename = #"{"title":"Mine now"}"#
            #expect(
                try await client.request(.patch, "/api/v1/decks/\(deckId)", token: tokens.other, json: rename).status
                    == .notFound)
            let changed = try await client.request(.patch, "/api/v1/sessions/\(code)", token: tokens.other, json: passcode)
            #expect(changed.status == .ok)
            #expect(try changed.object()["passcode"] as? String == "owl")
            // The console's microphone records for them too.
            _ = try await RecordingTests.start(client, token: tokens.other, code: code)
            #expect(try await client.request(.get, "/api/v1/sessions/\(code)/replay", token: tokens.other).status == .ok)
            #expect(try await client.request(.post, "/api/v1/sessions/\(code)/end", token: tokens.other).status == .ok)
        }
    }
}
