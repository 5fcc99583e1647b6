import Foundation
import NIOCore
import PodiumCore
import Testing

@testable import PodiumServer

/// A storyboard of three shots (1 s, 1.5 s, 0.5 s) exported every way, checked with the real
/// tools: the sheet and the shots' PDF with Poppler (pages and panels), the PNGs' ZIP with
/// `unzip` (names `01-shot-1.png`…), the sheet's scene titles with `pdftotext`, the animatic with `ffprobe` (its duration is the sum of the shots'); and presented:
/// its shots become a deck of three pages.
@Suite("Storyboard exports and presenting", .timeLimit(.minutes(2)))
struct StoryboardExportTests {
    static func shot(_ id: String, duration: Double, dialogue: String) -> [String: Any] {
        [
            "id": id, "duration": duration, "dialogue": dialogue, "action": "", "notes": "", "background": "#fff8e7",
            "layers": [
                [
                    "id": "\(id)-ly", "name": "Layer 1", "visible": true, "locked": false, "opacity": 1,
                    "transform": ["x": 0, "y": 0, "scale": 1, "rotation": 0], "strokes": [],
                ] as [String: Any]
            ],
        ]
    }

    /// Makes the three shots with a stroke on each; answers the project's id.
    static func threeShots(_ client: Client, token: String) async throws -> String {
        let project = try await StoryboardServerTests.create(client, token: token, title: "Heist")
        let id = try #require(project["id"] as? String)
        let (scene, first, layer) = try StoryboardServerTests.firstShot(project)
        let (editor, _) = try await StoryboardServerTests.editor(client, project: id, token: token)
        let edits: [[String: Any]] = [
            ["op": "updateShot", "shot": first, "duration": 1.0, "dialogue": "Where is it?", "action": "She turns."],
            ["op": "addStrokes", "shot": first, "layer": layer, "strokes": [StoryboardServerTests.stroke("a")]],
            ["op": "addShot", "scene": scene, "shot": shot("sh2", duration: 1.5, dialogue: "In the vault.")],
            ["op": "addStrokes", "shot": "sh2", "layer": "sh2-ly", "strokes": [StoryboardServerTests.stroke("b", x: 0.4)]],
            ["op": "renameScene", "scene": scene, "title": "The bank"],
            ["op": "addScene", "scene": "sc2", "title": "Getaway"],
            ["op": "addShot", "scene": "sc2", "shot": shot("sh3", duration: 0.5, dialogue: "")],
            ["op": "addStrokes", "shot": "sh3", "layer": "sh3-ly", "strokes": [StoryboardServerTests.stroke("c", x: 0.6)]],
        ]
        for (n, edit) in edits.enumerated() {
            try await editor.send(["type": "edit", "id": "e\(n)", "edit": edit])
            // Its ack (an error would be skipped, and the shot it made missing from the exports).
            #expect(try await editor.next(ofType: "ack")?["id"] as? String == "e\(n)")
        }
        await editor.close()
        return id
    }

    /// Asks for an export, waits for it, and answers its file (saved in `directory`).
    static func export(_ client: Client, token: String, project: String, _ body: String, into directory: URL) async throws -> URL
    {
        let made = try await client.request(.post, "/api/v1/storyboards/\(project)/exports", token: token, json: body)
        #expect(made.status == .accepted)
        let id = try #require(try made.object()["id"] as? String)
        let deadline = ContinuousClock.now + .seconds(90)
        var export: [String: Any] = [:]
        while ContinuousClock.now < deadline {
            export = try await client.request(.get, "/api/v1/storyboards/\(project)/exports/\(id)", token: token).object()
            if export["status"] as? String != "queued" { break }
            try await ContinuousClock().sleep(for: .milliseconds(50))
        }
        #expect(export["status"] as? String == "ready", "\(export)")
        let url = try #require(export["url"] as? String)
        let file = try await client.request(.get, url, token: token)
        #expect(file.status == .ok)
        let saved = directory.appendingPathComponent(try #require(export["fileName"] as? String))
        try Data(buffer: file.body).write(to: saved)
        return saved
    }

    @Test func pngNamesArePaddedToTwoDigitsOrAsManyAsTheShotCountHas() {
        let three = (1...3).map { Shot(id: "s\($0)", number: "\($0)") }
        #expect(StoryboardExportWorker.pngNames(three) == ["01-shot-1.png", "02-shot-2.png", "03-shot-3.png"])
        var many = (1...120).map { Shot(id: "s\($0)", number: "\($0)") }
        many[1].number = "1A"
        let names = StoryboardExportWorker.pngNames(many)
        #expect(names[0] == "001-shot-1.png" && names[1] == "002-shot-1A.png" && names[119] == "120-shot-120.png")
    }

    @Test func aStoryboardIsExportedEveryWayAndPresented() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-sb-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let project = try await Self.threeShots(client, token: token)

            let sheet = try await Self.export(
                client, token: token, project: project, #"{"format":"sheet","layout":2}"#, into: directory)
            #expect(try await InkTests.run("pdfinfo", [sheet.path]).contains("Pages:           2"))
            let text = try await InkTests.run("pdftotext", ["-layout", sheet.path, "-"])
            for panel in ["Shot 1 · 1.0 s", "Shot 2 · 1.5 s", "Shot 3 · 0.5 s", "Dialogue: In the vault.", "Action: She turns."] {
                #expect(text.contains(panel), "the sheet lacks \(panel): \(text)")
            }
            // Each panel has its scene's title: page 1 the bank's two shots, page 2 the getaway's.
            let pages = text.split(separator: "\u{0C}").map(String.init)
            #expect(pages.count >= 2 && pages[0].components(separatedBy: "The bank").count == 3, "\(text)")
            #expect(pages.count >= 2 && pages[1].contains("Getaway") && !pages[1].contains("The bank"), "\(text)")
            let oneSheet = try await Self.export(
                client, token: token, project: project, #"{"format":"sheet","layout":6}"#, into: directory)
            #expect(try await InkTests.run("pdfinfo", [oneSheet.path]).contains("Pages:           1"))

            let shots = try await Self.export(client, token: token, project: project, #"{"format":"pdf"}"#, into: directory)
            let info = try await InkTests.run("pdfinfo", [shots.path])
            #expect(info.contains("Pages:           3") && info.contains("960 x 402 pts"), "\(info)")

            let zip = try await Self.export(client, token: token, project: project, #"{"format":"png"}"#, into: directory)
            let listing = try await InkTests.run("unzip", ["-l", zip.path])
            // Zero-padded to two digits, as the documents say (docs/protocol.md: 01-shot-1.png).
            for name in ["01-shot-1.png", "02-shot-2.png", "03-shot-3.png"] {
                #expect(listing.contains(" \(name)\n"), "\(listing)")
            }
            #expect(try await InkTests.run("unzip", ["-t", zip.path]).contains("No errors detected"))

            let animatic = try await Self.export(
                client, token: token, project: project, #"{"format":"animatic"}"#, into: directory)
            let probed = try await InkTests.run(
                "ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "default=nw=1:nk=1", animatic.path])
            let duration = try #require(Double(probed.trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(abs(duration - 3.0) < 0.1, "the animatic lasts \(duration) s")

            // Refused: no format, a layout that does not exist.
            #expect(
                try await client.request(
                    .post, "/api/v1/storyboards/\(project)/exports", token: token, json: #"{"format":"gif"}"#
                )
                .status == .badRequest)
            #expect(
                try await client.request(
                    .post, "/api/v1/storyboards/\(project)/exports", token: token, json: #"{"format":"sheet","layout":5}"#
                ).status == .badRequest)
            #expect(try await client.request(.get, "/api/v1/storyboards/\(project)/exports", token: token).array().count == 5)

            let presented = try await client.request(.post, "/api/v1/storyboards/\(project)/present", token: token)
            #expect(presented.status == .created)
            let deckId = try #require(try presented.object()["id"] as? String)
            let deck = try await client.waitForDeck(deckId, token: token)
            #expect(deck["status"] as? String == "ready" && deck["pageCount"] as? Int == 3 && deck["title"] as? String == "Heist")
        }
    }
}
