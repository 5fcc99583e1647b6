import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing

@testable import PodiumServer

/// A room end to end over REST and sockets: a moderator, three presenters who bring their own
/// decks, viewers; control handed over, lent and taken back; ink; the export of what was shown.
@Suite("Rooms", .timeLimit(.minutes(5)))
struct RoomTests {
    /// A browser's identity cookie: each presenter is a different browser.
    static func identity(_ name: String) -> String {
        "podium_viewer=v_" + String((name + String(repeating: "x", count: 24)).prefix(24))
    }

    static func openRoom(_ client: Client, token: String, passcode: String? = nil) async throws -> String {
        var body: [String: Any] = ["title": "Tuesday seminar", "allowDownload": false]
        if let passcode { body["passcode"] = passcode }
        let response = try await client.request(
            .post, "/api/v1/rooms", token: token,
            json: String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self))
        #expect(response.status == .created)
        let room = try response.object()
        #expect(room["kind"] as? String == "room")
        #expect((room["projectorUrl"] as? String)?.hasSuffix("/projector") == true)
        return try #require(room["code"] as? String)
    }

    /// A presenter uploads a PDF from their browser; it joins the room when processed.
    static func bring(_ file: URL, code: String, as cookie: String, client: Client) async throws -> String {
        let response = try await client.request(
            .post, "/api/v1/sessions/\(code)/decks",
            headers: [.contentType: "application/pdf", .cookie: cookie, HTTPField.Name("X-Podium-Request")!: "1"],
            body: ByteBuffer(bytes: try Data(contentsOf: file)))
        #expect(response.status == .created, "\(String(buffer: response.body))")
        return try #require(try response.object()["deckId"] as? String)
    }

    @Test(arguments: TestStores.kinds) func aFullHandOverSequence(_ store: StoreKind) async throws {
        let server = TestServer(store: store)
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let code = try await Self.openRoom(client, token: token)
            let moderator = try await client.socket(code: code)
            let welcome = try await moderator.hello(["role": "moderator", "token": token])
            #expect((welcome["session"] as? [String: Any])?["kind"] as? String == "room")
            #expect((welcome["snapshot"] as? [String: Any])?["room"] != nil)

            // Three presenters from three browsers; the name is required.
            let nameless = try await client.socket(code: code, headers: [.cookie: Self.identity("nameless")])
            #expect(try await nameless.hello(["role": "presenter"])["code"] as? String == "name_required")
            var presenters: [TestSocket] = []
            var ids: [String] = []
            for name in ["ann", "bob", "cat"] {
                let socket = try await client.socket(code: code, headers: [.cookie: Self.identity(name)])
                let joined = try await socket.hello(["role": "presenter", "name": name.capitalized])
                #expect(joined["type"] as? String == "welcome")
                presenters.append(socket)
                ids.append(try #require(joined["presenterId"] as? String))
            }
            let (ann, bob, cat) = (presenters[0], presenters[1], presenters[2])
            #expect(Set(ids).count == 3)
            for _ in 0..<3 { _ = try await moderator.next(ofType: "presenterJoined") }

            // Each brings a deck; a stranger's browser may not.
            let stranger = try await client.request(
                .post, "/api/v1/sessions/\(code)/decks",
                headers: [
                    .contentType: "application/pdf", .cookie: Self.identity("eve"), HTTPField.Name("X-Podium-Request")!: "1",
                ],
                body: ByteBuffer(bytes: try Data(contentsOf: TestServer.demoDeck)))
            #expect(stranger.status == .forbidden)
            let annDeck = try await Self.bring(
                TestServer.fixtures.appendingPathComponent("cairo-slides.pdf"), code: code, as: Self.identity("ann"),
                client: client)
            let bobDeck = try await Self.bring(
                TestServer.fixtures.appendingPathComponent("ghostscript-a4.pdf"), code: code, as: Self.identity("bob"),
                client: client)
            let catDeck = try await Self.bring(TestServer.demoDeck, code: code, as: Self.identity("cat"), client: client)
            var added: [String: String] = [:]
            for _ in 0..<3 {
                let deck = try #require(try await moderator.next(ofType: "deckAdded")?["deck"] as? [String: Any])
                added[try #require(deck["id"] as? String)] = deck["owner"] as? String
            }
            #expect(added == [annDeck: ids[0], bobDeck: ids[1], catDeck: ids[2]])

            let viewer = try await client.socket(code: code, headers: [.cookie: Self.identity("viewer1")])
            _ = try await viewer.hello(["role": "viewer", "name": "Vi"])

            // Requests queue once each; nobody but the one in control drives.
            try await ann.send(#"{"type":"request","id":"a1"}"#)
            #expect(try await moderator.next(ofType: "requested")?["presenterId"] as? String == ids[0])
            try await bob.send(#"{"type":"request","id":"b1"}"#)
            #expect(try await moderator.next(ofType: "requested")?["presenterId"] as? String == ids[1])
            try await ann.send(#"{"type":"request","id":"a2"}"#)
            #expect(try await ann.next(ofType: "error")?["code"] as? String == "already_requested")
            try await viewer.send(#"{"type":"request","id":"v1"}"#)
            #expect(try await viewer.next(ofType: "error")?["code"] as? String == "forbidden")
            try await cat.send(#"{"type":"goto","id":"c1","page":2}"#)
            #expect(try await cat.next(ofType: "error")?["code"] as? String == "not_in_control")
            try await ann.send(#"{"type":"grant","id":"a3","presenterId":"\#(ids[1])"}"#)
            #expect(try await ann.next(ofType: "error")?["code"] as? String == "forbidden")

            // The moderator hands over to the oldest request: Ann's deck goes on stage.
            try await moderator.send(#"{"type":"handOverNext","id":"m1"}"#)
            let control = try #require(try await viewer.next(ofType: "control"))
            #expect(control["active"] as? String == ids[0])
            let shown = try #require(try await viewer.next(ofType: "deckShown"))
            #expect(shown["deck"] as? String == annDeck && shown["page"] as? Int == 1)
            try await ann.send(#"{"type":"goto","id":"a4","page":2}"#)
            #expect(try await viewer.next(ofType: "page")?["page"] as? Int == 2)
            try await bob.send(#"{"type":"goto","id":"b2","page":1}"#)
            #expect(try await bob.next(ofType: "error")?["code"] as? String == "not_in_control")

            // Ann lends control to Cat for a demo, and gets it back where she was.
            try await ann.send(#"{"type":"pass","id":"a5","presenterId":"\#(ids[2])"}"#)
            let lent = try #require(try await viewer.next(ofType: "control"))
            #expect(lent["active"] as? String == ids[2] && lent["lender"] as? String == ids[0])
            #expect(try await viewer.next(ofType: "deckShown")?["deck"] as? String == catDeck)
            try await cat.send(#"{"type":"returnControl","id":"c2"}"#)
            #expect(try await viewer.next(ofType: "control")?["active"] as? String == ids[0])
            let back = try #require(try await viewer.next(ofType: "deckShown"))
            #expect(back["deck"] as? String == annDeck && back["page"] as? Int == 2)

            // Hand over to Bob (still waiting); Bob draws; a late viewer sees it all.
            try await moderator.send(#"{"type":"handOverNext","id":"m2"}"#)
            #expect(try await viewer.next(ofType: "control")?["active"] as? String == ids[1])
            try await bob.send(
                ##"{"type":"stroke","id":"ink1","stroke":{"page":1,"tool":"pen","color":"#FF0000","width":0.02,"points":[[0.1,0.5,0.5],[0.5,0.5,0.5],[0.9,0.5,0.5]]}}"##
            )
            let stroke = try #require(try await viewer.next(ofType: "stroke")?["stroke"] as? [String: Any])
            #expect(stroke["deck"] as? String == bobDeck)
            let late = try await client.socket(code: code, headers: [.cookie: Self.identity("viewer2")])
            let lateWelcome = try await late.hello(["role": "viewer"])
            let snapshot = try #require(lateWelcome["snapshot"] as? [String: Any])
            let room = try #require(snapshot["room"] as? [String: Any])
            #expect(room["deck"] as? String == bobDeck)
            #expect((room["control"] as? [String: Any])?["active"] as? String == ids[1])
            #expect((room["decks"] as? [Any])?.count == 3)
            #expect(((snapshot["strokes"] as? [[String: Any]])?.first)?["deck"] as? String == bobDeck)
            #expect(Set(lateWelcome["connectedPresenters"] as? [String] ?? []) == Set(ids))

            // The moderator takes control back and drives again.
            try await moderator.send(#"{"type":"withdraw","id":"m3"}"#)
            #expect(try await viewer.next(ofType: "control")?["active"] is NSNull)
            try await bob.send(#"{"type":"goto","id":"b3","page":2}"#)
            #expect(try await bob.next(ofType: "error")?["code"] as? String == "not_in_control")
            try await moderator.send(#"{"type":"goto","id":"m4","page":2}"#)
            #expect(try await viewer.next(ofType: "page")?["page"] as? Int == 2)

            // The export: every page shown, in the order first shown, with Bob's ink on his page.
            #expect(try await client.request(.get, "/api/v1/sessions/\(code)/export.pdf").status == .forbidden)
            let export = try await client.request(.get, "/api/v1/sessions/\(code)/export.pdf", token: token)
            #expect(export.status == .ok)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-room-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let pdf = directory.appendingPathComponent("export.pdf")
            try Data(buffer: export.body).write(to: pdf)
            #expect(try await InkTests.run("pdfinfo", [pdf.path]).contains("Pages:           5"))
            let expected = ["First slide", "Second slide", "Welcome to Podium", "Ghostscript page one", "Ghostscript page two"]
            for (index, text) in expected.enumerated() {
                let page = try await InkTests.run("pdftotext", ["-f", "\(index + 1)", "-l", "\(index + 1)", pdf.path, "-"])
                #expect(page.contains(text), "page \(index + 1): \(page)")
            }
            _ = try await InkTests.run(
                "pdftoppm", ["-r", "20", "-f", "3", "-l", "4", pdf.path, directory.appendingPathComponent("p").path])
            let pages = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".ppm") }
                .sorted()
            #expect(pages.count == 2)
            #expect(try !InkTests.hasRed(directory.appendingPathComponent(pages[0])), "the demo deck's page has no ink")
            #expect(try InkTests.hasRed(directory.appendingPathComponent(pages[1])), "Bob's page has his red line")
        }
    }

    @Test func onlyTheOwnerModeratesAndPasscodesGuardPresenters() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let code = try await Self.openRoom(client, token: token, passcode: "4321")
            let anonymous = try await client.socket(code: code)
            #expect(try await anonymous.hello(["role": "moderator"])["code"] as? String == "unauthorized")
            let wrong = try await client.socket(code: code, headers: [.cookie: Self.identity("ann")])
            #expect(
                try await wrong.hello(["role": "presenter", "name": "Ann", "passcode": "1"])["code"] as? String
                    == "passcode_wrong")
            let right = try await client.socket(code: code, headers: [.cookie: Self.identity("ann")])
            #expect(
                try await right.hello(["role": "presenter", "name": "Ann", "passcode": "4321"])["type"] as? String == "welcome")
            // A PDF that cannot be processed: the presenter who brought it hears why.
            _ = try await Self.bring(
                TestServer.fixtures.appendingPathComponent("encrypted.pdf"), code: code, as: Self.identity("ann"), client: client)
            let failed = try #require(try await right.next(ofType: "deckFailed"))
            #expect((failed["error"] as? [String: Any])?["code"] as? String == "encrypted")
            // The owner's own screen (the projector) needs no passcode.
            let projector = try await client.socket(code: code)
            #expect(try await projector.hello(["role": "viewer", "token": token])["type"] as? String == "welcome")

            // A session has no moderator, and a room no single deck to download.
            let deckId = try await client.readyDeck(token: token)
            let session = try await client.startSession(deckId: deckId, token: token)
            let sessionSocket = try await client.socket(code: try #require(session["code"] as? String))
            #expect(try await sessionSocket.hello(["role": "moderator", "token": token])["code"] as? String == "not_a_room")
            let download = try await client.request(.get, "/api/v1/sessions/\(code)/download", token: token)
            #expect(download.status == .notFound)
            #expect(try await client.request(.get, "/api/v1/sessions/\(code)/export.pdf", token: token).status == .conflict)

            // The moderator ends the room.
            let ended = try await client.request(.post, "/api/v1/sessions/\(code)/end", token: token)
            #expect(ended.status == .ok)
            #expect(try await right.next(ofType: "ended") != nil)
        }
    }
}
