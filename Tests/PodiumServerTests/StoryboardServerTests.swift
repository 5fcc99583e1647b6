import Foundation
import HTTPTypes
import Synchronization
import Testing

@testable import PodiumServer

/// Storyboards over REST and on the storyboard socket, in-process: who may see and edit a
/// project, edits acknowledged only once stored and sent to every editor, refusals with their
/// codes, a resent edit counted once, undo of one's own edits only, and the content and shot
/// versions as a restarted server finds them.
@Suite("Storyboards: REST and live editing", .timeLimit(.minutes(2)))
struct StoryboardServerTests {
    static func stroke(_ id: String, x: Double = 0.1) -> [String: Any] {
        ["id": id, "tool": "pen", "color": "#222222", "width": 0.004, "points": [[x, 0.1, 0.5], [x + 0.2, 0.3, 0.6]]]
    }

    static func create(_ client: Client, token: String, title: String = "Chase") async throws -> [String: Any] {
        let response = try await client.request(
            .post, "/api/v1/storyboards", token: token, json: #"{"title":"\#(title)","aspectRatio":"2.39:1"}"#)
        #expect(response.status == .created)
        return try response.object()
    }

    /// The first scene's first shot and its layer, from a project's `content`.
    static func firstShot(_ project: [String: Any]) throws -> (scene: String, shot: String, layer: String) {
        let content = try #require(project["content"] as? [String: Any])
        let scene = try #require((content["scenes"] as? [[String: Any]])?.first)
        let shot = try #require((scene["shots"] as? [[String: Any]])?.first)
        let layer = try #require((shot["layers"] as? [[String: Any]])?.first)
        return (try #require(scene["id"] as? String), try #require(shot["id"] as? String), try #require(layer["id"] as? String))
    }

    static func editor(_ client: Client, project: String, token: String) async throws -> (TestSocket, [String: Any]) {
        let socket = try await TestSocket.connect(port: client.port, path: "/api/v1/storyboards/\(project)/live")
        let welcome = try await socket.hello(["token": token])
        #expect(welcome["type"] as? String == "welcome", "\(welcome)")
        return (socket, welcome)
    }

    @Test func projectsAreListedShownRenamedSharedAndDeleted() async throws {
        try await AuthorizationMatrixTests.withAccounts { client, _, tokens in
            let project = try await Self.create(client, token: tokens.owner)
            let id = try #require(project["id"] as? String)
            #expect(project["aspectRatio"] as? String == "2.39:1")
            #expect(project["sceneCount"] as? Int == 1 && project["shotCount"] as? Int == 1 && project["seq"] as? Int == 0)
            #expect(project["folderId"] is NSNull && project["owned"] as? Bool == true)
            _ = try Self.firstShot(project)

            let refused = try await client.request(
                .post, "/api/v1/storyboards", token: tokens.owner, json: #"{"title":"X","aspectRatio":"3:1"}"#)
            #expect(refused.status == .badRequest)
            #expect(
                try await client.request(.post, "/api/v1/storyboards", token: tokens.owner, json: #"{"title":"  "}"#).status
                    == .badRequest)

            // Another presenter does not see it until invited.
            #expect(try await client.request(.get, "/api/v1/storyboards/\(id)", token: tokens.other).status == .notFound)
            #expect(try await client.request(.get, "/api/v1/storyboards", token: tokens.other).array().isEmpty)
            let invite = try await client.request(
                .post, "/api/v1/storyboards/\(id)/editors", token: tokens.owner, json: #"{"email":"Other@Example.org"}"#)
            #expect(invite.status == .created)
            let unknown = try await client.request(
                .post, "/api/v1/storyboards/\(id)/editors", token: tokens.owner, json: #"{"email":"nobody@example.org"}"#)
            #expect(unknown.status == .notFound)
            let shared = try await client.request(.get, "/api/v1/storyboards", token: tokens.other).array()
            #expect(shared.map { $0["id"] as? String } == [id] && shared.first?["owned"] as? Bool == false)
            // An editor may not invite, file or delete; may rename.
            #expect(
                try await client.request(
                    .post, "/api/v1/storyboards/\(id)/editors", token: tokens.other, json: #"{"email":"admin"}"#
                ).status == .forbidden)
            #expect(try await client.request(.delete, "/api/v1/storyboards/\(id)", token: tokens.other).status == .forbidden)
            let renamed = try await client.request(
                .patch, "/api/v1/storyboards/\(id)", token: tokens.other, json: #"{"title":"Car chase","description":"Act 2"}"#)
            #expect(try renamed.object()["title"] as? String == "Car chase")

            // Filed in a folder of the owner's, nested in another.
            let outer = try await client.request(.post, "/api/v1/folders", token: tokens.owner, json: #"{"name":"Films"}"#)
                .object()
            let outerId = try #require(outer["id"] as? String)
            let inner = try await client.request(
                .post, "/api/v1/folders", token: tokens.owner, json: #"{"name":"Shorts","parentId":"\#(outerId)"}"#
            ).object()
            let innerId = try #require(inner["id"] as? String)
            #expect(inner["parentId"] as? String == outerId)
            let cycle = try await client.request(
                .patch, "/api/v1/folders/\(outerId)", token: tokens.owner, json: #"{"parentId":"\#(innerId)"}"#)
            #expect(cycle.status == .conflict && cycle.errorCode == "folder_cycle")
            let filed = try await client.request(
                .patch, "/api/v1/storyboards/\(id)", token: tokens.owner, json: #"{"folderId":"\#(innerId)"}"#)
            #expect(try filed.object()["folderId"] as? String == innerId)
            #expect(
                try await client.request(.get, "/api/v1/storyboards?folderId=\(innerId)", token: tokens.owner).array().count == 1)
            // Deleting the inner folder files the project in the outer one.
            #expect(try await client.request(.delete, "/api/v1/folders/\(innerId)", token: tokens.owner).status == .noContent)
            #expect(
                try await client.request(.get, "/api/v1/storyboards/\(id)", token: tokens.owner).object()["folderId"] as? String
                    == outerId)

            #expect(try await client.request(.delete, "/api/v1/storyboards/\(id)", token: tokens.owner).status == .noContent)
            #expect(try await client.request(.get, "/api/v1/storyboards/\(id)", token: tokens.owner).status == .notFound)
        }
    }

    @Test func anAdminMakesTheAccountsThatProjectsAreSharedWith() async throws {
        try await AuthorizationMatrixTests.withAccounts { client, _, tokens in
            let body = #"{"email":"Crew@Example.org","name":"Crew","password":"storyboard-crew"}"#
            #expect(try await client.request(.post, "/api/v1/users", token: tokens.owner, json: body).status == .forbidden)
            let made = try await client.request(.post, "/api/v1/users", token: tokens.admin, json: body)
            #expect(made.status == .created)
            #expect(
                try made.object()["email"] as? String == "crew@example.org" && made.object()["role"] as? String == "presenter")
            let again = try await client.request(.post, "/api/v1/users", token: tokens.admin, json: body)
            #expect(again.status == .conflict && again.errorCode == "email_taken")
            let short = try await client.request(
                .post, "/api/v1/users", token: tokens.admin, json: #"{"email":"a@b.c","password":"short"}"#)
            #expect(short.status == .badRequest)
            #expect(try await client.request(.get, "/api/v1/users", token: tokens.admin).array().count == 4)
            #expect(try await client.request(.get, "/api/v1/users", token: tokens.other).status == .forbidden)

            let crew = try await client.login(email: "crew@example.org", password: "storyboard-crew")
            let id = try #require(try await Self.create(client, token: tokens.owner)["id"] as? String)
            _ = try await client.request(
                .post, "/api/v1/storyboards/\(id)/editors", token: tokens.owner, json: #"{"email":"crew@example.org"}"#)
            #expect(try await client.request(.get, "/api/v1/storyboards/\(id)", token: crew).status == .ok)
        }
    }

    @Test func editsAreStoredThenSentToEveryEditorAndUndoTouchesOnlyOnesOwn() async throws {
        try await AuthorizationMatrixTests.withAccounts { client, _, tokens in
            let project = try await Self.create(client, token: tokens.owner)
            let id = try #require(project["id"] as? String)
            let (_, shot, layer) = try Self.firstShot(project)
            _ = try await client.request(
                .post, "/api/v1/storyboards/\(id)/editors", token: tokens.owner, json: #"{"email":"other@example.org"}"#)

            let (ada, adaWelcome) = try await Self.editor(client, project: id, token: tokens.owner)
            #expect(adaWelcome["seq"] as? Int == 0)
            let adaNumber = try #require((adaWelcome["you"] as? [String: Any])?["editor"] as? Int)
            let (bob, bobWelcome) = try await Self.editor(client, project: id, token: tokens.other)
            #expect((bobWelcome["editors"] as? [[String: Any]])?.count == 2)
            #expect((try await ada.next(ofType: "editors")?["editors"] as? [[String: Any]])?.count == 2)

            // Ada draws: acknowledged with seq 1, then sent to both.
            try await ada.send([
                "type": "edit", "id": "a1",
                "edit": ["op": "addStrokes", "shot": shot, "layer": layer, "strokes": [Self.stroke("s-ada")]],
            ])
            let ack = try #require(try await ada.next(ofType: "ack"))
            #expect(ack["id"] as? String == "a1" && ack["seq"] as? Int == 1)
            let edited = try #require(try await bob.next(ofType: "edited"))
            #expect(edited["seq"] as? Int == 1 && edited["by"] as? String == "a1")
            #expect((edited["edit"] as? [String: Any])?["op"] as? String == "addStrokes")
            // The stroke was sent without an author: the broadcast says who drew it, as the store does.
            let adaID = try #require(edited["author"] as? String)
            let sentStrokes = (edited["edit"] as? [String: Any])?["strokes"] as? [[String: Any]]
            #expect(!adaID.isEmpty && sentStrokes?.first?["author"] as? String == adaID, "\(edited)")
            #expect(try await ada.next(ofType: "edited")?["seq"] as? Int == 1)

            // Bob's stroke in progress reaches Ada, named by his editor number.
            try await bob.send([
                "type": "drawing", "shot": shot, "layer": layer,
                "stroke": ["tool": "marker", "color": "#ff0000", "width": 0.01, "points": [[0.5, 0.5, 0.5]]],
            ])
            let drawing = try #require(try await ada.next(ofType: "drawing"))
            #expect(drawing["editor"] as? Int != adaNumber && drawing["shot"] as? String == shot)
            try await bob.send([
                "type": "edit", "id": "b1",
                "edit": ["op": "addStrokes", "shot": shot, "layer": layer, "strokes": [Self.stroke("s-bob", x: 0.5)]],
            ])
            #expect(try await bob.next(ofType: "ack")?["seq"] as? Int == 2)

            // Refused: a layer that does not exist; nothing is stored.
            try await ada.send([
                "type": "edit", "id": "a2",
                "edit": ["op": "addStrokes", "shot": shot, "layer": "nope", "strokes": [Self.stroke("s-x")]],
            ])
            let refusal = try #require(try await ada.next(ofType: "error"))
            #expect(refusal["id"] as? String == "a2" && refusal["code"] as? String == "unknown_layer")
            // Resent after a lost acknowledgement: acknowledged again, applied once.
            try await ada.send([
                "type": "edit", "id": "a1",
                "edit": ["op": "addStrokes", "shot": shot, "layer": layer, "strokes": [Self.stroke("s-ada")]],
            ])
            #expect(try await ada.next(ofType: "ack")?["seq"] as? Int == 1)

            // Ada undoes: her stroke goes, Bob's stays.
            try await ada.send(["type": "undo", "id": "a3"])
            #expect(try await ada.next(ofType: "ack")?["seq"] as? Int == 3)
            var undone = try #require(try await bob.next(ofType: "edited"))
            if undone["seq"] as? Int == 2 { undone = try #require(try await bob.next(ofType: "edited")) }  // his own, first
            #expect(undone["seq"] as? Int == 3)
            #expect((undone["edit"] as? [String: Any])?["op"] as? String == "removeStrokes")
            #expect((undone["edit"] as? [String: Any])?["strokes"] as? [String] == ["s-ada"])
            try await ada.send(["type": "undo", "id": "a4"])
            #expect(try await ada.next(ofType: "error")?["code"] as? String == "nothing_to_undo")
            try await ada.send(["type": "redo", "id": "a5"])
            #expect(try await ada.next(ofType: "ack")?["seq"] as? Int == 4)

            let shown = try await client.request(.get, "/api/v1/storyboards/\(id)", token: tokens.owner).object()
            #expect(shown["seq"] as? Int == 4)
            let shownShot = try #require(
                ((shown["content"] as? [String: Any])?["scenes"] as? [[String: Any]])?.first?["shots"] as? [[String: Any]])
            let strokes = try #require(((shownShot.first?["layers"] as? [[String: Any]])?.first)?["strokes"] as? [[String: Any]])
            #expect(Set(strokes.compactMap { $0["id"] as? String }) == ["s-ada", "s-bob"])
            #expect(strokes.first { $0["id"] as? String == "s-bob" }?["author"] as? String == "u_other")

            // Bob leaves: Ada is told.
            await bob.close()
            #expect((try await ada.next(ofType: "editors")?["editors"] as? [[String: Any]])?.count == 1)
        }
    }

    /// A signed-in browser cannot read its API token (an HttpOnly cookie): its hello has none, and
    /// the cookie that came with the upgrade says who it is (the origin check keeps other sites out).
    @Test func aBrowserSaysHelloWithItsCookie() async throws {
        try await AuthorizationMatrixTests.withAccounts { client, _, tokens in
            let id = try #require(try await Self.create(client, token: tokens.owner)["id"] as? String)
            let path = "/api/v1/storyboards/\(id)/live"
            var owner = HTTPFields()
            owner[.cookie] = "podium_auth=\(tokens.owner)"
            let browser = try await TestSocket.connect(port: client.port, path: path, headers: owner)
            let welcome = try await browser.hello([:])
            #expect(welcome["type"] as? String == "welcome", "\(welcome)")
            var other = HTTPFields()
            other[.cookie] = "podium_auth=\(tokens.other)"
            let outsider = try await TestSocket.connect(port: client.port, path: path, headers: other)
            #expect(try await outsider.hello([:])["code"] as? String == "forbidden")
            let nobody = try await TestSocket.connect(port: client.port, path: path)
            #expect(try await nobody.hello([:])["code"] as? String == "unauthorized")
        }
    }

    @Test func socketsOfOutsidersAndBadMessagesAreRefused() async throws {
        try await AuthorizationMatrixTests.withAccounts { client, _, tokens in
            let id = try #require(try await Self.create(client, token: tokens.owner)["id"] as? String)
            let path = "/api/v1/storyboards/\(id)/live"
            let outsider = try await TestSocket.connect(port: client.port, path: path)
            #expect(try await outsider.hello(["token": tokens.other])["code"] as? String == "forbidden")
            #expect(try await outsider.next() == nil)
            let stranger = try await TestSocket.connect(port: client.port, path: path)
            #expect(try await stranger.hello(["token": "not-a-token"])["code"] as? String == "unauthorized")
            let lost = try await TestSocket.connect(port: client.port, path: "/api/v1/storyboards/sb_missing/live")
            #expect(try await lost.hello(["token": tokens.owner])["code"] as? String == "not_found")
            let rude = try await TestSocket.connect(port: client.port, path: path)
            try await rude.send(["type": "edit", "id": "x", "edit": ["op": "renumberShots"]])
            #expect(try await rude.next()?["code"] as? String == "hello_required")

            let (editor, _) = try await Self.editor(client, project: id, token: tokens.owner)
            try await editor.send("{not json")
            #expect(try await editor.next(ofType: "error")?["code"] as? String == "bad_message")
            try await editor.send(["type": "edit", "id": "e1", "edit": ["op": "explode"]])
            #expect(try await editor.next(ofType: "error")?["code"] as? String == "bad_message")
            try await editor.send(["type": "cursor", "shot": "s", "x": 50, "y": 0.5])
            #expect(try await editor.next(ofType: "error")?["code"] as? String == "bad_message")
            try await editor.send(["type": "ping", "t": 12.5])
            #expect(try await editor.next(ofType: "pong")?["t"] as? Double == 12.5)
        }
    }

    /// The editor waits for each edit's ack or error by id: an edit the server cannot decode is
    /// refused with the id it could read (null when there is no string id to read).
    @Test func anUndecodableEditsErrorCarriesTheIdThatCouldBeRead() async throws {
        try await AuthorizationMatrixTests.withAccounts { client, _, tokens in
            let id = try #require(try await Self.create(client, token: tokens.owner)["id"] as? String)
            let (editor, _) = try await Self.editor(client, project: id, token: tokens.owner)
            let cases: [(String, String?)] = [
                (#"{"type":"edit","id":"unknown-op","edit":{"op":"explode"}}"#, "unknown-op"),
                (#"{"type":"edit","id":"missing-edit"}"#, "missing-edit"),
                (#"{"type":"undo!","id":"unknown-type"}"#, "unknown-type"),
                (#"{"type":"edit","id":7,"edit":{"op":"explode"}}"#, nil),
                (#"{"type":"edit","id":"\#(String(repeating: "x", count: 65))","edit":{"op":"explode"}}"#, nil),
                ("{not json", nil),
            ]
            for (bad, id) in cases {
                try await editor.send(bad)
                let error = try #require(try await editor.next(ofType: "error"), "\(bad)")
                #expect(error["code"] as? String == "bad_message", "\(bad)")
                #expect(error["id"] as? String == id, "\(bad): \(error)")
                #expect(error.keys.contains("id"), "the id is null, not left out: \(error)")
            }
            try await editor.send(["type": "undo", "id": "still-here"])
            #expect(try await editor.next(ofType: "error")?["id"] as? String == "still-here")
        }
    }

    @Test func aRestartedServerHasEveryStoredEditAndEachShotsVersions() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-sb-\(UUID().uuidString)")
        let first = TestServer(dataDirectory: directory)
        defer { first.removeData() }
        let ids = Mutex<(project: String, shot: String, layer: String)?>(nil)
        try await first.run { client in
            let token = try await client.login()
            let project = try await Self.create(client, token: token)
            let id = try #require(project["id"] as? String)
            let (_, shot, layer) = try Self.firstShot(project)
            ids.withLock { $0 = (id, shot, layer) }
            let (editor, _) = try await Self.editor(client, project: id, token: token)
            for n in 1...5 {
                try await editor.send([
                    "type": "edit", "id": "e\(n)",
                    "edit": [
                        "op": "addStrokes", "shot": shot, "layer": layer, "strokes": [Self.stroke("s\(n)", x: Double(n) / 10)],
                    ],
                ])
                #expect(try await editor.next(ofType: "ack")?["seq"] as? Int == n)
            }
            try await editor.send([
                "type": "edit", "id": "e6", "edit": ["op": "updateShot", "shot": shot, "dialogue": "Hold on!"],
            ])
            #expect(try await editor.next(ofType: "ack")?["seq"] as? Int == 6)
        }
        let (id, shot, _) = try #require(ids.withLock { $0 })
        let second = TestServer(dataDirectory: directory)
        try await second.run { client in
            let token = try await client.login()
            let shown = try await client.request(.get, "/api/v1/storyboards/\(id)", token: token).object()
            #expect(shown["seq"] as? Int == 6)
            let versions = try await client.request(.get, "/api/v1/storyboards/\(id)/shots/\(shot)/versions", token: token)
                .array()
            // One person's edits in one burst are one version.
            #expect(versions.map { $0["seq"] as? Int } == [6, 0])
            #expect(versions.last?["authorName"] as? String == "Earlier")
            #expect(versions.first?["authorName"] as? String != nil)
            let atThree = try await client.request(.get, "/api/v1/storyboards/\(id)/shots/\(shot)/versions/3", token: token)
                .object()
            let layers = try #require(atThree["layers"] as? [[String: Any]])
            #expect((layers.first?["strokes"] as? [[String: Any]])?.count == 3)
            #expect(atThree["dialogue"] as? String == "")
            #expect(
                try await client.request(.get, "/api/v1/storyboards/\(id)/shots/\(shot)/versions/99", token: token).status
                    == .notFound)
            // Editing goes on from seq 6.
            let (editor, welcome) = try await Self.editor(client, project: id, token: token)
            #expect(welcome["seq"] as? Int == 6)
            try await editor.send(["type": "edit", "id": "e7", "edit": ["op": "updateShot", "shot": shot, "duration": 4.5]])
            let answer = try await editor.nextDurable()
            #expect(answer?["type"] as? String == "ack" && answer?["seq"] as? Int == 7, "\(String(describing: answer))")
        }
    }
}
