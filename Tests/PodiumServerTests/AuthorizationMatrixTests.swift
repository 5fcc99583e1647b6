import Foundation
import HTTPTypes
import NIOCore
import PodiumCore
import PodiumStore
import Testing

@testable import PodiumServer

/// Every route and socket role against every kind of caller: anonymous, a viewer, another
/// presenter, the owner, an admin.
@Suite("Authorization matrix", .timeLimit(.minutes(3)))
struct AuthorizationMatrixTests {
    enum Caller: String, CaseIterable {
        case anonymous, viewer, otherPresenter, owner, admin
    }

    /// The signed-in callers' tokens.
    struct Tokens: Sendable {
        let owner: String
        let other: String
        let admin: String
    }

    /// A server with two presenter accounts (`u_owner`, `u_other`) and the admin, all signed in.
    static func withAccounts(_ body: @escaping @Sendable (Client, SQLStore, Tokens) async throws -> Void) async throws {
        let server = TestServer()
        defer { server.removeData() }
        let store = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
        try await server.run(store: store) { client in
            let accounts = Accounts(store: store, cost: 4, tokenLifetime: 3600, now: { Date() })
            for (id, email) in [("u_owner", "owner@example.org"), ("u_other", "other@example.org")] {
                try await store.insertUser(
                    UserRecord(
                        id: id, email: email, name: email, role: .presenter, passwordHash: try await accounts.hash("pw-\(id)"),
                        createdAt: Date()))
            }
            let tokens = Tokens(
                owner: try await client.login(email: "owner@example.org", password: "pw-u_owner"),
                other: try await client.login(email: "other@example.org", password: "pw-u_other"),
                admin: try await client.login())
            try await body(client, store, tokens)
        }
        try await store.close()
    }

    @Test func routesAndSocketRolesAnswerEachCallerAsTheyShould() async throws {
        try await Self.withAccounts { client, _, tokens in
            let (owner, other, admin) = (tokens.owner, tokens.other, tokens.admin)
            let uploaded = try await client.upload(TestServer.demoDeck, token: owner).object()
            let deckId = try #require(uploaded["id"] as? String)
            let jobId = try #require(uploaded["jobId"] as? String)
            #expect(try await client.waitForDeck(deckId, token: owner)["status"] as? String == "ready")
            let code = try #require(try await client.startSession(deckId: deckId, token: owner)["code"] as? String)
            let roomResponse = try await client.request(.post, "/api/v1/rooms", token: owner, json: #"{"title":"Matrix"}"#)
            let room = try #require(try roomResponse.object()["code"] as? String)
            let viewerCookie = "podium_viewer=\(InteractionTests.identity(7))"
            let viewer = try await client.socket(code: code, headers: [.cookie: viewerCookie])
            _ = try await viewer.hello(["role": "viewer"])

            func headers(_ caller: Caller) -> (token: String?, headers: HTTPFields) {
                switch caller {
                case .anonymous: (nil, [:])
                case .viewer: (nil, [.cookie: viewerCookie])
                case .otherPresenter: (other, [:])
                case .owner: (owner, [:])
                case .admin: (admin, [:])
                }
            }

            // (method, path, body, expected status per caller in Caller.allCases order)
            let matrix: [(HTTPRequest.Method, String, String?, [Int])] = [
                (.get, "/api/v1/me", nil, [401, 401, 200, 200, 200]),
                (.get, "/api/v1/decks/\(deckId)", nil, [401, 401, 404, 200, 200]),
                (.patch, "/api/v1/decks/\(deckId)", #"{"title":"Renamed"}"#, [401, 401, 404, 200, 200]),
                (.get, "/api/v1/decks/\(deckId)/pdf", nil, [401, 401, 404, 200, 200]),
                (.get, "/api/v1/jobs/\(jobId)", nil, [401, 401, 404, 200, 200]),
                (.get, "/api/v1/decks/\(deckId)/questions", nil, [401, 401, 404, 200, 200]),
                (
                    .post, "/api/v1/decks/\(deckId)/questions", #"{"poll":{"kind":"open","question":"Q?"}}"#,
                    [401, 401, 404, 201, 201]
                ),
                (.post, "/api/v1/sessions", #"{"deckId":"\#(deckId)"}"#, [401, 401, 404, 201, 201]),
                (.get, "/api/v1/sessions/\(code)", nil, [200, 200, 200, 200, 200]),
                (.get, "/api/v1/sessions/\(code)/download", nil, [403, 403, 403, 200, 200]),
                (.get, "/api/v1/sessions/\(code)/report", nil, [401, 401, 404, 200, 200]),
                (.get, "/api/v1/sessions/\(code)/notes", nil, [403, 200, 403, 403, 403]),
                (.post, "/api/v1/sessions/\(code)/end", nil, [401, 401, 403, 200, 200]),
                (.post, "/api/v1/rooms", #"{"title":"R"}"#, [401, 401, 201, 201, 201]),
                // Only the moderator (or a presenter who joined) brings decks; nothing shown yet to export.
                (.post, "/api/v1/sessions/\(room)/decks", #"{"deckId":"\#(deckId)"}"#, [403, 403, 403, 201, 201]),
                (.get, "/api/v1/sessions/\(room)/export.pdf", nil, [403, 403, 403, 409, 409]),
                (.post, "/api/v1/sessions/\(room)/end", nil, [401, 401, 403, 200, 200]),
            ]
            for (method, path, body, expected) in matrix {
                for (caller, status) in zip(Caller.allCases, expected) {
                    let (token, extra) = headers(caller)
                    let response = try await client.request(method, path, token: token, headers: extra, json: body)
                    #expect(Int(response.status.code) == status, "\(method) \(path) as \(caller.rawValue): \(response.status)")
                }
            }

            // Socket roles: who may say hello as presenter.
            let live = try #require(try await client.startSession(deckId: deckId, token: owner)["code"] as? String)
            for (caller, expected) in [
                (Caller.anonymous, "unauthorized"), (.otherPresenter, "forbidden"), (.owner, "welcome"), (.admin, "welcome"),
            ] {
                let socket = try await client.socket(code: live)
                var hello: [String: Any] = ["role": "presenter"]
                if let token = headers(caller).token { hello["token"] = token }
                let reply = try await socket.hello(hello)
                #expect(
                    (reply["code"] as? String ?? reply["type"] as? String) == expected, "presenter hello as \(caller.rawValue)")
            }

            // Who may say hello as a room's moderator.
            let liveRoom = try #require(
                try await client.request(.post, "/api/v1/rooms", token: owner, json: "{}").object()["code"] as? String)
            for (caller, expected) in [
                (Caller.anonymous, "unauthorized"), (.otherPresenter, "not_moderator"), (.owner, "welcome"), (.admin, "welcome"),
            ] {
                let socket = try await client.socket(code: liveRoom)
                var hello: [String: Any] = ["role": "moderator"]
                if let token = headers(caller).token { hello["token"] = token }
                let reply = try await socket.hello(hello)
                #expect(
                    (reply["code"] as? String ?? reply["type"] as? String) == expected, "moderator hello as \(caller.rawValue)")
            }
        }
    }

    /// A request of the matrix. `path` may differ per caller when the request uses something up
    /// (a delete): each caller then meets its own copy in the same state.
    struct Route {
        let method: HTTPRequest.Method
        let path: (Caller) -> String
        var json: String? = nil
        var pdf: Data? = nil
        /// Statuses in `Caller.allCases` order.
        let expected: [Int]

        init(_ method: HTTPRequest.Method, _ path: String, json: String? = nil, pdf: Data? = nil, _ expected: [Int]) {
            self.init(method, { _ in path }, json: json, pdf: pdf, expected)
        }

        init(
            _ method: HTTPRequest.Method, _ path: @escaping (Caller) -> String, json: String? = nil, pdf: Data? = nil,
            _ expected: [Int]
        ) {
            self.method = method
            self.path = path
            self.json = json
            self.pdf = pdf
            self.expected = expected
        }
    }

    /// Login and logout, the library (decks, folders, question bank), viewer notes, report files,
    /// the public session list, page images, the lobby socket and the export of a plain session.
    @Test func libraryNotesReportsBlobsAndLobbyAnswerEachCallerAsTheyShould() async throws {
        try await Self.withAccounts { client, store, tokens in
            let deckId = try await client.readyDeck(token: tokens.owner)
            let code = try #require(try await client.startSession(deckId: deckId, token: tokens.owner)["code"] as? String)
            let viewerCookie = "podium_viewer=\(InteractionTests.identity(7))"
            let viewer = try await client.socket(code: code, headers: [.cookie: viewerCookie])
            _ = try await viewer.hello(["role": "viewer"])
            func caller(_ caller: Caller) -> (token: String?, headers: HTTPFields) {
                switch caller {
                case .anonymous: (nil, [:])
                case .viewer: (nil, [.cookie: viewerCookie])
                case .otherPresenter: (tokens.other, [:])
                case .owner: (tokens.owner, [:])
                case .admin: (tokens.admin, [:])
                }
            }

            // The owner's library: a folder, a bank question; one deck, folder and question per
            // caller to delete; and a deck of the other presenter's.
            let now = Date()
            try await store.insertFolder(FolderRecord(id: "f_owner", ownerId: "u_owner", name: "Owner's", createdAt: now))
            try await store.saveBankQuestion(
                BankQuestion(id: "q_owner", deckId: deckId, position: 1, poll: Poll(kind: .open, question: "Q?"), createdAt: now))
            for doomed in Caller.allCases {
                try await store.insertDeck(
                    DeckRecord(
                        id: "d_doomed_\(doomed)", ownerId: "u_owner", folderId: nil, title: "Doomed", status: .ready,
                        sourceHash: "none", sourceBytes: 0, createdAt: now))
                try await store.insertFolder(
                    FolderRecord(id: "f_doomed_\(doomed)", ownerId: "u_owner", name: "Doomed", createdAt: now))
                try await store.saveBankQuestion(
                    BankQuestion(
                        id: "q_doomed_\(doomed)", deckId: deckId, position: 2, poll: Poll(kind: .open, question: "Doomed?"),
                        createdAt: now))
            }
            try await store.insertDeck(
                DeckRecord(
                    id: "d_other", ownerId: "u_other", folderId: nil, title: "Other's", status: .ready, sourceHash: "none",
                    sourceBytes: 0, createdAt: now))
            let deck = try await client.request(.get, "/api/v1/decks/\(deckId)", token: tokens.owner).object()
            let blob = try #require(((deck["pages"] as? [[String: Any]])?.first)?["imageUrl"] as? String)
            let pdf = try Data(contentsOf: TestServer.fixtures.appendingPathComponent("ghostscript-a4.pdf"))
            let everyone = [200, 200, 200, 200, 200]

            // Callers: anonymous, viewer (identity cookie only), other presenter, owner, admin.
            let matrix: [Route] = [
                Route(.post, "/api/v1/auth/login", json: #"{"email":"owner@example.org","password":"pw-u_owner"}"#, everyone),
                Route(
                    .post, "/api/v1/auth/login", json: #"{"email":"owner@example.org","password":"wrong"}"#,
                    [401, 401, 401, 401, 401]),
                Route(.post, "/api/v1/decks?title=Upload", pdf: pdf, [401, 401, 201, 201, 201]),
                Route(.get, "/api/v1/decks", [401, 401, 200, 200, 200]),
                Route(.delete, { "/api/v1/decks/d_doomed_\($0)" }, [401, 401, 404, 204, 204]),
                Route(.get, "/api/v1/folders", [401, 401, 200, 200, 200]),
                Route(.post, "/api/v1/folders", json: #"{"name":"New"}"#, [401, 401, 201, 201, 201]),
                // Folders are their owner's alone: an admin does not manage another user's folders.
                Route(.patch, "/api/v1/folders/f_owner", json: #"{"name":"Renamed"}"#, [401, 401, 404, 200, 404]),
                Route(.delete, { "/api/v1/folders/f_doomed_\($0)" }, [401, 401, 404, 204, 404]),
                Route(.patch, "/api/v1/decks/\(deckId)/questions/q_owner", json: #"{"position":5}"#, [401, 401, 404, 200, 200]),
                Route(.delete, { "/api/v1/decks/\(deckId)/questions/q_doomed_\($0)" }, [401, 401, 404, 204, 204]),
                // A question reached through a deck it does not belong to: not found for everyone, its owner included.
                Route(.patch, "/api/v1/decks/d_other/questions/q_owner", json: #"{"position":1}"#, [401, 401, 404, 404, 404]),
                Route(.delete, "/api/v1/decks/d_other/questions/q_owner", [401, 401, 404, 404, 404]),
                // Notes belong to the viewer identity that joined; nobody else, the presenter included.
                Route(.put, "/api/v1/sessions/\(code)/notes/1", json: #"{"text":"Mine"}"#, [403, 204, 403, 403, 403]),
                Route(.get, "/api/v1/sessions/\(code)/notes.md", [403, 200, 403, 403, 403]),
                Route(.get, "/api/v1/sessions/\(code)/report/attendance.csv", [401, 401, 404, 200, 200]),
                Route(.get, "/api/v1/sessions/\(code)/report/questions.csv", [401, 401, 404, 200, 200]),
                Route(.get, "/api/v1/sessions/\(code)/report/clips.csv", [401, 401, 404, 200, 200]),
                Route(.get, "/api/v1/sessions/\(code)/report/secrets.csv", [401, 401, 404, 404, 404]),
                Route(.get, "/api/v1/sessions", everyone),
                Route(.get, "/api/v1/sessions?live=true", everyone),
                Route(.get, blob, everyone),
                Route(.get, "/blobs/\(String(repeating: "0", count: 64)).jpg", [404, 404, 404, 404, 404]),
                // A plain session without downloads: its presenter (and an admin) export it.
                Route(.get, "/api/v1/sessions/\(code)/export.pdf", [403, 403, 403, 200, 200]),
            ]
            for route in matrix {
                for (who, status) in zip(Caller.allCases, route.expected) {
                    let (token, headers) = caller(who)
                    let path = route.path(who)
                    let response: TestResponse
                    if let pdf = route.pdf {
                        var headers = headers
                        headers[.contentType] = "application/pdf"
                        response = try await client.request(
                            route.method, path, token: token, headers: headers, body: ByteBuffer(bytes: pdf))
                    } else {
                        response = try await client.request(route.method, path, token: token, headers: headers, json: route.json)
                    }
                    #expect(Int(response.status.code) == status, "\(route.method) \(path) as \(who.rawValue): \(response.status)")
                }
            }

            // What was refused changed nothing: the callers who could not delete left their copies.
            for who in [Caller.anonymous, .viewer, .otherPresenter] {
                let kept = try await client.request(.get, "/api/v1/decks/d_doomed_\(who)", token: tokens.owner)
                #expect(kept.status == .ok, "the deck \(who) could not delete is still there")
                #expect(try await store.folder(id: "f_doomed_\(who)") != nil, "the folder \(who) could not delete is still there")
            }
            #expect(try await store.folder(id: "f_doomed_admin") != nil)
            #expect(try await store.folder(id: "f_owner")?.name == "Renamed")
            #expect(
                try await store.bankQuestions(deckId: deckId).map(\.id).sorted() == [
                    "q_doomed_anonymous", "q_doomed_otherPresenter", "q_doomed_viewer", "q_owner",
                ])
            // Lists are the caller's own.
            let othersDecks = try await client.request(.get, "/api/v1/decks", token: tokens.other).array()
            #expect(!othersDecks.contains { $0["id"] as? String == deckId })
            #expect(
                try await client.request(.get, "/api/v1/decks", token: tokens.owner).array().contains {
                    $0["id"] as? String == deckId
                })
            let othersFolders = try await client.request(.get, "/api/v1/folders", token: tokens.other).array()
            #expect(!othersFolders.contains { $0["id"] as? String == "f_owner" })
            let notes = try await client.request(.get, "/api/v1/sessions/\(code)/notes.md", headers: [.cookie: viewerCookie])
            #expect(String(buffer: notes.body).contains("Mine"))

            // The lobby socket is public: everyone gets the list of live sessions.
            for who in Caller.allCases {
                var (token, headers) = caller(who)
                if let token { headers[.authorization] = "Bearer \(token)" }
                let lobby = try await TestSocket.connect(port: client.port, path: "/api/v1/lobby", headers: headers)
                let list = try #require(try await lobby.next(), "lobby as \(who.rawValue)")
                #expect(list["type"] as? String == "sessions", "lobby as \(who.rawValue)")
                #expect((list["sessions"] as? [[String: Any]])?.contains { $0["code"] as? String == code } == true)
                await lobby.close()
            }

            // Logout ends the token it is given and no other.
            for who in [Caller.anonymous, .viewer] {
                let (_, headers) = caller(who)
                #expect(try await client.request(.post, "/api/v1/auth/logout", headers: headers).status == .noContent)
            }
            for (email, password, kept) in [
                ("owner@example.org", "pw-u_owner", tokens.owner), ("other@example.org", "pw-u_other", tokens.other),
                ("admin", TestServer.adminPassword, tokens.admin),
            ] {
                let fresh = try await client.login(email: email, password: password)
                #expect(try await client.request(.post, "/api/v1/auth/logout", token: fresh).status == .noContent)
                #expect(try await client.request(.get, "/api/v1/me", token: fresh).status == .unauthorized)
                #expect(try await client.request(.get, "/api/v1/me", token: kept).status == .ok, "\(email)'s other token")
            }
            // Signed in by cookie, logout is a write like any other: it needs the CSRF header.
            let fresh = try await client.login(email: "owner@example.org", password: "pw-u_owner")
            let cookie: HTTPFields = [.cookie: "podium_auth=\(fresh)"]
            let forged = try await client.request(.post, "/api/v1/auth/logout", headers: cookie)
            #expect(forged.status == .forbidden)
            #expect(forged.errorCode == "csrf")
            #expect(try await client.request(.get, "/api/v1/me", token: fresh).status == .ok)
            var signed = cookie
            signed[HTTPField.Name("X-Podium-Request")!] = "1"
            #expect(try await client.request(.post, "/api/v1/auth/logout", headers: signed).status == .noContent)
            #expect(try await client.request(.get, "/api/v1/me", token: fresh).status == .unauthorized)

            // Let the uploads finish processing before the server stops.
            for token in [tokens.other, tokens.owner, tokens.admin] {
                for deck in try await client.request(.get, "/api/v1/decks", token: token).array()
                where deck["status"] as? String == "processing" {
                    _ = try await client.waitForDeck(try #require(deck["id"] as? String), token: token)
                }
            }
        }
    }
}
