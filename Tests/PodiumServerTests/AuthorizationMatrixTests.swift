import Foundation
import HTTPTypes
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

    @Test func routesAndSocketRolesAnswerEachCallerAsTheyShould() async throws {
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
            let owner = try await client.login(email: "owner@example.org", password: "pw-u_owner")
            let other = try await client.login(email: "other@example.org", password: "pw-u_other")
            let admin = try await client.login()
            let deckId = try await client.readyDeck(token: owner)
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
        try await store.close()
    }
}
