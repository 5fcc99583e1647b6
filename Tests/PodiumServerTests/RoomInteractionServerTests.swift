import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing

@testable import PodiumServer

/// A room's audience interaction over the sockets (polls, the questions of each presenter's
/// turn, the report), its links from the server's one base, and where a guest's upload goes.
@Suite("Room interaction over the sockets", .timeLimit(.minutes(3)))
struct RoomInteractionServerTests {
    /// Reads `questions` lists until one satisfies the condition (they are newest-wins frames).
    static func questions(_ socket: TestSocket, until done: ([[String: Any]]) -> Bool) async throws -> [[String: Any]] {
        while let message = try await socket.next(ofType: "questions") {
            let list = message["questions"] as? [[String: Any]] ?? []
            if done(list) { return list }
        }
        return []
    }

    @Test(arguments: TestStores.kinds) func presentersSeeTheQuestionsOfTheirTurnAndRunPollsWhileInControl(
        _ store: StoreKind
    ) async throws {
        let server = TestServer(store: store)
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let code = try await RoomTests.openRoom(client, token: token)
            let moderator = try await client.socket(code: code)
            _ = try await moderator.hello(["role": "moderator", "token": token])
            let ann = try await client.socket(code: code, headers: [.cookie: RoomTests.identity("ann")])
            let annWelcome = try await ann.hello(["role": "presenter", "name": "Ann"])
            let annId = try #require(annWelcome["presenterId"] as? String)
            // A presenter's welcome has the host views: their questions (none yet), the results.
            #expect((annWelcome["questions"] as? [Any])?.isEmpty == true)
            let bob = try await client.socket(code: code, headers: [.cookie: RoomTests.identity("bob")])
            let bobId = try #require(try await bob.hello(["role": "presenter", "name": "Bob"])["presenterId"] as? String)
            let viewer = try await client.socket(code: code, headers: [.cookie: RoomTests.identity("viewer")])
            _ = try await viewer.hello(["role": "viewer", "name": "Vi"])

            try await viewer.send(#"{"type":"ask","id":"q1","text":"To the moderator?","anonymous":false}"#)
            _ = try await Self.questions(moderator) { $0.count == 1 }
            try await moderator.send(#"{"type":"grant","id":"m1","presenterId":"\#(annId)"}"#)
            _ = try await viewer.next(ofType: "control")
            try await viewer.send(#"{"type":"ask","id":"q2","text":"To Ann?","anonymous":false}"#)
            let annList = try await Self.questions(ann) { $0.count == 1 }
            #expect(annList.first?["id"] as? String == "q2" && annList.first?["presenter"] as? String == annId)
            let all = try await Self.questions(moderator) { $0.count == 2 }
            #expect(all.map { $0["presenter"] as? String } == [nil, annId])

            // Ann, in control, opens a poll; the audience gets it. Bob may not.
            let poll = #"{"kind":"choice","question":"Tea?","choices":["Yes","No"]}"#
            try await bob.send(#"{"type":"openPoll","id":"b1","poll":\#(poll)}"#)
            #expect(try await bob.next(ofType: "error")?["code"] as? String == "forbidden")
            try await ann.send(#"{"type":"openPoll","id":"a1","poll":\#(poll)}"#)
            let opened = try #require(try await viewer.next(ofType: "pollOpened"))
            let pollId = try #require((opened["poll"] as? [String: Any])?["id"] as? Int)
            try await viewer.send(#"{"type":"answer","id":"v1","pollId":\#(pollId),"choices":[0]}"#)
            _ = try await viewer.next(ofType: "ack")
            // Bob's list never had Ann's questions: he sees none after a reconnect either.
            let bobAgain = try await client.socket(code: code, headers: [.cookie: RoomTests.identity("bob")])
            let bobWelcome = try await bobAgain.hello(["role": "presenter", "name": "Bob"])
            #expect(bobWelcome["presenterId"] as? String == bobId)
            #expect((bobWelcome["questions"] as? [Any])?.isEmpty == true)

            // The report: the room's poll and both questions, each with whose turn it was.
            let response = try await client.request(.get, "/api/v1/sessions/\(code)/report", token: token)
            #expect(response.status == .ok)
            let report = try response.object()
            #expect(report["kind"] as? String == "room")
            #expect((report["polls"] as? [[String: Any]])?.first?["answered"] as? Int == 1)
            let questions = try #require(report["questions"] as? [[String: Any]])
            #expect(questions.map { $0["presenter"] as? String } == [nil, annId])
            let presenters = try #require(report["presenters"] as? [[String: Any]])
            #expect(presenters.compactMap { $0["name"] as? String }.sorted() == ["Ann", "Bob"])
            let csv = try await client.request(.get, "/api/v1/sessions/\(code)/report/questions.csv", token: token)
            let rows = String(buffer: csv.body).split(separator: "\r\n")
            #expect(rows.first?.hasSuffix(",presenter") == true)
            #expect(rows.dropFirst().map { $0.split(separator: ",").last.map(String.init) } == ["Moderator", "Ann"])
        }
    }

    @Test func aGuestsUploadBelongsToTheRoomNotTheModeratorsLibrary() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let code = try await RoomTests.openRoom(client, token: token)
            let moderator = try await client.socket(code: code)
            _ = try await moderator.hello(["role": "moderator", "token": token])
            let ann = try await client.socket(code: code, headers: [.cookie: RoomTests.identity("ann")])
            _ = try await ann.hello(["role": "presenter", "name": "Ann"])
            let guestDeck = try await RoomTests.bring(
                TestServer.demoDeck, code: code, as: RoomTests.identity("ann"), client: client)
            // The moderator's own upload into the room is theirs.
            let response = try await client.request(
                .post, "/api/v1/sessions/\(code)/decks", token: token, headers: [.contentType: "application/pdf"],
                body: ByteBuffer(bytes: try Data(contentsOf: TestServer.demoDeck)))
            #expect(response.status == .created)
            let moderatorDeck = try #require(try response.object()["deckId"] as? String)
            var added: Set<String> = []
            while added.count < 2, let deck = try await moderator.next(ofType: "deckAdded")?["deck"] as? [String: Any] {
                added.insert(deck["id"] as? String ?? "")
            }
            #expect(added == [guestDeck, moderatorDeck])

            let library = try await client.request(.get, "/api/v1/decks", token: token)
            let ids = try #require(try JSONSerialization.jsonObject(with: Data(buffer: library.body)) as? [[String: Any]])
                .compactMap { $0["id"] as? String }
            #expect(ids.contains(moderatorDeck))
            #expect(!ids.contains(guestDeck))
        }
    }

    @Test func aSignedInGuestsUploadIsTheirs() async throws {
        try await AuthorizationMatrixTests.withAccounts { client, _, tokens in
            let code = try await RoomTests.openRoom(client, token: tokens.owner)
            let cookie = RoomTests.identity("other")
            let guest = try await client.socket(code: code, headers: [.cookie: cookie])
            _ = try await guest.hello(["role": "presenter", "name": "Other"])
            let response = try await client.request(
                .post, "/api/v1/sessions/\(code)/decks", token: tokens.other,
                headers: [.contentType: "application/pdf", .cookie: cookie, HTTPField.Name("X-Podium-Request")!: "1"],
                body: ByteBuffer(bytes: try Data(contentsOf: TestServer.demoDeck)))
            #expect(response.status == .created, "\(String(buffer: response.body))")
            let deckId = try #require(try response.object()["deckId"] as? String)
            func library(_ token: String) async throws -> [String] {
                let listed = try await client.request(.get, "/api/v1/decks", token: token)
                return try #require(try JSONSerialization.jsonObject(with: Data(buffer: listed.body)) as? [[String: Any]])
                    .compactMap { $0["id"] as? String }
            }
            #expect(try await library(tokens.other).contains(deckId))
            #expect(try await !library(tokens.owner).contains(deckId))
        }
    }

    @Test func everyLinkComesFromTheServersBase() async throws {
        let server = TestServer { $0.publicURL = "https://talks.example/" }
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let code = try await RoomTests.openRoom(client, token: token)
            // However the page was reached (the test client asks as 127.0.0.1), the links use the public address.
            let response = try await client.request(.get, "/api/v1/sessions/\(code)", token: token)
            let room = try response.object()
            #expect(room["joinUrl"] as? String == "https://talks.example/s/\(code)")
            #expect(room["presenterUrl"] as? String == "https://talks.example/r/\(code)")
            #expect(room["moderatorUrl"] as? String == "https://talks.example/r/\(code)/moderate")
            #expect(room["projectorUrl"] as? String == "https://talks.example/r/\(code)/projector")
            // A room's big screen is its projector.
            #expect(room["screenUrl"] as? String == "https://talks.example/r/\(code)/projector")
        }
        let links = JoinURLBuilder(publicURL: nil, listenHost: "0.0.0.0", port: 8080, lanAddresses: ["192.0.2.7"])
            .links(code: "ABCDEF", room: false, request: nil)
        #expect(
            links
                == JoinLinks(
                    joinUrl: "http://192.0.2.7:8080/s/ABCDEF", presenterUrl: nil, moderatorUrl: nil, projectorUrl: nil,
                    screenUrl: "http://192.0.2.7:8080/s/ABCDEF/screen")
        )
    }
}
