import Foundation
import HTTPTypes
import NIOCore
import Testing

@testable import PodiumServer

/// The host changes a session's passcode and listing at any time; the library lists past
/// sessions; the upload limit is public; links that lead nowhere get a page that says so.
@Suite("Session access, history and dead ends", .timeLimit(.minutes(3)))
struct SessionAccessTests {
    static let html: HTTPFields = [.accept: "text/html,application/xhtml+xml,*/*;q=0.8"]

    static func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// The first lobby list, and the one after it that `condition` accepts.
    static func lobbyList(_ lobby: TestSocket, until condition: ([[String: Any]]) -> Bool) async throws -> [[String: Any]] {
        while let message = try await lobby.next() {
            guard message["type"] as? String == "sessions", let sessions = message["sessions"] as? [[String: Any]] else {
                continue
            }
            if condition(sessions) { return sessions }
        }
        Issue.record("the lobby closed")
        return []
    }

    @Test func theHostSeesAndChangesThePasscodeAndHellosFollow() async throws {
        try await TestServer.withLiveSession { client, token, code in
            let lobby = try await TestSocket.connect(port: client.port, path: "/api/v1/lobby")
            let first = try await Self.lobbyList(lobby) { $0.contains { $0["code"] as? String == code } }
            #expect(first.first { $0["code"] as? String == code }?["passcode"] as? Bool == false)

            // Set one: the host reads it back, the public does not, the lobby shows a lock only.
            let set = try await client.request(
                .patch, "/api/v1/sessions/\(code)", token: token, json: try Self.json(["passcode": " 4711 "]))
            #expect(set.status == .ok)
            #expect(try set.object()["passcode"] as? String == "4711")
            #expect(try set.object()["hasPasscode"] as? Bool == true)
            let hostView = try await client.request(.get, "/api/v1/sessions/\(code)", token: token).object()
            #expect(hostView["passcode"] as? String == "4711")
            let publicView = try await client.request(.get, "/api/v1/sessions/\(code)").object()
            #expect(publicView["hasPasscode"] as? Bool == true)
            #expect(publicView["passcode"] == nil)
            let locked = try await Self.lobbyList(lobby) {
                $0.first { $0["code"] as? String == code }?["passcode"] as? Bool == true
            }
            let entry = try #require(locked.first { $0["code"] as? String == code })
            #expect(entry["hasPasscode"] as? Bool == true)
            #expect(!String(describing: entry).contains("4711"), "the lobby never carries the passcode")

            let without = try await client.socket(code: code)
            #expect(try await without.hello(["role": "viewer"])["code"] as? String == "passcode_required")
            let with = try await client.socket(code: code)
            #expect(try await with.hello(["role": "viewer", "passcode": "4711"])["type"] as? String == "welcome")

            // Change it: the old one no longer opens the door.
            _ = try await client.request(.patch, "/api/v1/sessions/\(code)", token: token, json: #"{"passcode":"kiwi"}"#)
            let old = try await client.socket(code: code)
            #expect(try await old.hello(["role": "viewer", "passcode": "4711"])["code"] as? String == "passcode_wrong")
            let new = try await client.socket(code: code)
            #expect(try await new.hello(["role": "viewer", "passcode": "kiwi"])["type"] as? String == "welcome")

            // Remove it: anyone with the code joins.
            let removed = try await client.request(.patch, "/api/v1/sessions/\(code)", token: token, json: #"{"passcode":null}"#)
            #expect(try removed.object()["hasPasscode"] as? Bool == false)
            #expect(try removed.object()["passcode"] == nil)
            let open = try await client.socket(code: code)
            #expect(try await open.hello(["role": "viewer"])["type"] as? String == "welcome")
        }
    }

    @Test func onlyTheHostChangesAccessAndBadInputIsRefused() async throws {
        try await TestServer.withLiveSession { client, token, code in
            let anonymous = try await client.request(.patch, "/api/v1/sessions/\(code)", json: #"{"passcode":"x"}"#)
            #expect(anonymous.status == .unauthorized)
            let long = try await client.request(
                .patch, "/api/v1/sessions/\(code)", token: token,
                json: try Self.json(["passcode": String(repeating: "p", count: 65)]))
            #expect(long.status == .badRequest)
            let notABool = try await client.request(
                .patch, "/api/v1/sessions/\(code)", token: token, json: #"{"unlisted":"yes"}"#)
            #expect(notABool.status == .badRequest)
            let unknown = try await client.request(.patch, "/api/v1/sessions/ZZZZZZ", token: token, json: #"{"unlisted":true}"#)
            #expect(unknown.status == .notFound)
            _ = try await client.request(.post, "/api/v1/sessions/\(code)/end", token: token)
            let ended = try await client.request(.patch, "/api/v1/sessions/\(code)", token: token, json: #"{"unlisted":true}"#)
            #expect(ended.status == .conflict)
            #expect(ended.errorCode == "ended")
        }
    }

    @Test func anUnlistedSessionIsLeftOutOfLiveNowUntilListed() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let deckId = try await client.readyDeck(token: token)
            let created = try await client.request(
                .post, "/api/v1/sessions", token: token, json: try Self.json(["deckId": deckId, "unlisted": true]))
            #expect(created.status == .created)
            let code = try #require(try created.object()["code"] as? String)
            #expect(try created.object()["unlisted"] as? Bool == true)

            let listed = { (token: String?) in
                try await client.request(.get, "/api/v1/sessions?live=true", token: token).array()
                    .contains { $0["code"] as? String == code }
            }
            #expect(try await listed(nil) == false)
            #expect(try await listed(token) == true, "its host still finds it")
            let lobby = try await TestSocket.connect(port: client.port, path: "/api/v1/lobby")
            #expect(try await Self.lobbyList(lobby) { _ in true }.isEmpty)
            // Joining by code works as ever.
            let viewer = try await client.socket(code: code)
            #expect(try await viewer.hello(["role": "viewer"])["type"] as? String == "welcome")

            _ = try await client.request(.patch, "/api/v1/sessions/\(code)", token: token, json: #"{"unlisted":false}"#)
            _ = try await Self.lobbyList(lobby) { $0.contains { $0["code"] as? String == code } }
            #expect(try await listed(nil) == true)
        }
    }

    @Test func theHistoryListsPastSessionsWithReportsAndExportsAPageAtATime() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            #expect(try await client.request(.get, "/api/v1/history").status == .unauthorized)
            let token = try await client.login()
            let deckId = try await client.readyDeck(token: token)
            let first = try #require(try await client.startSession(deckId: deckId, token: token)["code"] as? String)
            _ = try await client.request(.post, "/api/v1/sessions/\(first)/end", token: token)
            let second = try #require(try await client.startSession(deckId: deckId, token: token)["code"] as? String)
            let room = try await client.request(.post, "/api/v1/rooms", token: token, json: #"{"title":"Seminar"}"#)
            let roomCode = try #require(try room.object()["code"] as? String)

            let page1 = try await client.request(.get, "/api/v1/history?limit=2", token: token).object()
            let entries1 = try #require(page1["sessions"] as? [[String: Any]])
            #expect(entries1.map { $0["code"] as? String } == [roomCode, second], "newest first")
            let roomEntry = entries1[0]
            #expect(roomEntry["kind"] as? String == "room")
            #expect(roomEntry["consoleUrl"] as? String == "/r/\(roomCode)/moderate")
            let roomFormats = (roomEntry["exports"] as? [[String: Any]] ?? []).compactMap { $0["format"] as? String }
            #expect(!roomFormats.contains("pdf"), "a room that showed nothing has no PDF")
            #expect(entries1[1]["live"] as? Bool == true)
            #expect(entries1[1]["consoleUrl"] as? String == "/present/\(second)")
            let next = try #require(page1["next"] as? String)

            let page2 = try await client.request(.get, "/api/v1/history?limit=2&before=\(next)", token: token).object()
            let entries2 = try #require(page2["sessions"] as? [[String: Any]])
            #expect(entries2.map { $0["code"] as? String } == [first])
            #expect(page2["next"] == nil, "the last page")
            let past = entries2[0]
            #expect(past["live"] as? Bool == false)
            #expect(past["endedAt"] != nil)
            #expect(past["consoleUrl"] == nil)
            #expect((past["title"] as? String)?.isEmpty == false)
            #expect(past["reportUrl"] as? String == "/report.html?code=\(first)")
            // Every export it names exists.
            let exports = try #require(past["exports"] as? [[String: Any]])
            #expect(Set(exports.compactMap { $0["format"] as? String }) == ["csv", "pdf"])
            for export in exports {
                let url = try #require(export["url"] as? String)
                let response = try await client.request(.get, url, token: token)
                #expect(response.status == .ok, "\(url)")
            }

            #expect(try await client.request(.get, "/api/v1/history?limit=0", token: token).status == .badRequest)
            #expect(try await client.request(.get, "/api/v1/history?before=soon", token: token).status == .badRequest)
        }
    }

    @Test func theUploadLimitIsPublic() async throws {
        let server = TestServer { $0.maxUploadBytes = 123_456 }
        defer { server.removeData() }
        try await server.run { client in
            let limits = try await client.request(.get, "/api/v1/limits").object()
            #expect(limits["maxUploadBytes"] as? Int == 123_456)
            #expect((limits["uploadTypes"] as? [String])?.first == "application/pdf")
            #expect((limits["uploadTypes"] as? [String])?.contains("image/webp") == true)
        }
    }

    @Test func aBrowserAtALinkThatLeadsNowhereGetsAPageThatSaysSo() async throws {
        try await TestServer.withLiveSession { client, token, code in
            func page(_ path: String, headers: HTTPFields = Self.html) async throws -> (HTTPResponse.Status, String, String?) {
                let response = try await client.request(.get, path, headers: headers)
                return (response.status, String(buffer: response.body), response.headers[.contentType])
            }
            let cases: [(path: String, says: String, back: String)] = [
                ("/s/ZZZZZZ", "No session with code ZZZZZZ", "href=\"/\""),
                ("/r/ZZZZZZ", "No room with code ZZZZZZ", "href=\"/\""),
                ("/r/\(code)/moderate", "No room with code \(code)", "href=\"/\""),
                ("/present/ZZZZZZ", "No such session", "href=\"/library\""),
                ("/no/such/page", "Page not found", "href=\"/\""),
            ]
            for (path, says, back) in cases {
                let (status, body, type) = try await page(path)
                #expect(status == .notFound, "\(path)")
                #expect(type?.hasPrefix("text/html") == true, "\(path)")
                #expect(body.contains(says), "\(path)")
                #expect(body.contains(back), "\(path)")
            }
            // A deck that is not (or no longer) in the signed-in user's library.
            let (deckStatus, deckBody, _) = try await page(
                "/decks/d_nothing", headers: [.accept: "text/html", .cookie: "podium_auth=\(token)"])
            #expect(deckStatus == .notFound)
            #expect(deckBody.contains("No such deck"))

            // What the page shows is escaped.
            let (_, hostile, _) = try await page("/s/%3Cscript%3E")
            #expect(!hostile.contains("<script>"))
            #expect(hostile.contains("&lt;script&gt;"))

            // Real links still open their pages.
            #expect(try await page("/s/\(code)").0 == .ok)
            #expect(try await page("/present/\(code)").0 == .ok)

            // Programs keep getting JSON.
            for (path, headers) in [
                ("/no/such/page", [HTTPField.Name.accept: "application/json"] as HTTPFields), ("/api/v1/nothing", Self.html),
            ] {
                let response = try await client.request(.get, path, headers: headers)
                #expect(response.status == .notFound)
                #expect(response.errorCode == "not_found", "\(path)")
            }
        }
    }
}
