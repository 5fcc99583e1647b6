import Foundation
import HTTPTypes
import NIOCore
import Synchronization
import Testing

/// Clips in what a session leaves behind: the report lists each clip shown with its times on stage
/// and how much of it played, `clips.csv` has them too, and the PDF export has a page with each
/// clip's poster frame where it was shown, even in a room that showed only a clip, and still when
/// the clip or its poster is gone.
@Suite("Clips in the report and the export", .timeLimit(.minutes(3)))
struct ClipReportTests {
    @Test(arguments: TestStores.kinds) func aSessionsReportAndExportShowTheClipWhereItWasShown(_ store: StoreKind)
        async throws
    {
        let scratch = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = try await VideoClipMaker.mp4(seconds: 3, in: scratch)
        // The server's clock runs ahead when the test says so: the clip plays for two seconds
        // of it without the test waiting two seconds.
        let ahead = Mutex(0.0)
        let clock: @Sendable () -> Date = { Date().addingTimeInterval(ahead.withLock { $0 }) }
        let server = TestServer(store: store)
        defer { server.removeData() }
        let seen = Mutex<(code: String, clip: [String: String])?>(nil)
        try await server.run(now: clock) { client in
            let token = try await client.login()
            let deckId = try await client.readyDeck(token: token)
            let code = try #require(try await client.startSession(deckId: deckId, token: token)["code"] as? String)
            let videoId = try await Self.readyVideo(file, title: "Opening clip", client: client, token: token)
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])

            try await Self.run(presenter, ["type": "goto", "page": 2])
            let beforeShow = clock()
            try await Self.run(presenter, ["type": "showVideo", "videoId": videoId])
            let beforePlay = clock()
            try await Self.run(presenter, ["type": "playback", "action": "play"])
            ahead.withLock { $0 += 2 }
            try await Self.run(presenter, ["type": "playback", "action": "pause"])
            let afterPause = clock()
            // A page takes the clip off; then the session ends.
            try await Self.run(presenter, ["type": "goto", "page": 3])
            let afterHide = clock()
            try await Self.run(presenter, ["type": "end"])

            let report = try await client.request(.get, "/api/v1/sessions/\(code)/report", token: token).object()
            let clips = try #require(report["clips"] as? [[String: Any]])
            try #require(clips.count == 1, "\(report)")
            let clip = clips[0]
            #expect(clip["video"] as? String == videoId)
            #expect(clip["title"] as? String == "Opening clip")
            // Shown without captions: the report says so; with a track, its language.
            #expect(clip["captions"] as? [String] == [], "\(clip)")
            let uncaptioned = String(
                buffer: try await client.request(.get, "/api/v1/sessions/\(code)/report/clips.csv", token: token).body)
            #expect(uncaptioned.split(separator: "\r\n").last?.hasSuffix(",none") == true, "\(uncaptioned)")
            let track = try await client.request(
                .put, "/api/v1/videos/\(videoId)/captions/en", token: token,
                body: ByteBuffer(string: "1\n00:00:00,000 --> 00:00:01,000\nHello\n"))
            #expect(track.status == .created)
            let captioned = try await client.request(.get, "/api/v1/sessions/\(code)/report", token: token).object()
            #expect((captioned["clips"] as? [[String: Any]])?.first?["captions"] as? [String] == ["en"])
            #expect((clip["duration"] as? Double).map { abs($0 - 3) < 0.2 } == true, "\(clip)")
            // Dates go over the wire to the second.
            let shownAt = try #require((clip["shownAt"] as? String).flatMap(Self.date))
            let hiddenAt = try #require((clip["hiddenAt"] as? String).flatMap(Self.date))
            #expect(shownAt >= beforeShow.addingTimeInterval(-1) && shownAt <= beforePlay)
            #expect(hiddenAt >= afterPause.addingTimeInterval(-1) && hiddenAt <= afterHide)
            // On stage from the show to the page: two seconds of the clock's jump and the commands' time.
            let onStage = try #require(clip["onStageSeconds"] as? Double)
            #expect(onStage >= 2 && onStage <= afterHide.timeIntervalSince(beforeShow), "\(clip)")
            // Played: from the play's start (half a second after it) to the pause. Without the
            // jump it would be nothing: the pause came before the play's start.
            let played = try #require(clip["playedSeconds"] as? Double)
            let spent = afterPause.timeIntervalSince(beforePlay) - 2
            #expect(played >= 1.5 - 0.002 && played <= 1.5 + spent + 0.002, "played \(played), commands took \(spent)")

            let csv = String(
                buffer: try await client.request(.get, "/api/v1/sessions/\(code)/report/clips.csv", token: token).body)
            let rows = csv.split(separator: "\r\n").map {
                $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            }
            #expect(
                rows.first == [
                    "clip", "title", "shown_at", "hidden_at", "on_stage_seconds", "played_seconds", "duration_seconds",
                    "captions",
                ])
            try #require(rows.count == 2, "\(csv)")
            #expect(rows[1][0] == "1" && rows[1][1] == "Opening clip")
            #expect(rows[1][7] == "en", "the clip's caption languages: \(csv)")
            #expect(rows[1][5] == String(format: "%.1f", played))
            #expect(Self.date(rows[1][2]) == shownAt)

            // The export: the deck's six pages, and the clip's page after page 2, where it was shown.
            let pdf = try await Self.export(code, client: client, token: token, into: scratch)
            #expect(try await Self.pageCount(pdf) == 7)
            let deck = TestServer.demoDeck.path
            let (slide2, slide3) = (try await Self.text(deck, page: 2), try await Self.text(deck, page: 3))
            #expect(try await Self.text(pdf, page: 2) == slide2)
            #expect(try await Self.text(pdf, page: 4) == slide3)
            let clipPage = try await Self.text(pdf, page: 3)
            #expect(clipPage.contains("Opening clip"), "\(clipPage)")
            #expect(clipPage.contains("Shown at"), "\(clipPage)")
            #expect(try await Self.images(pdf, page: 3) == ["jpeg"])
            #expect(try await Self.images(pdf, page: 2).isEmpty)

            // The library lists the CSV with the others, as it does for a session that showed a clip.
            #expect(
                try await Self.exports(of: code, client: client, token: token) == [
                    "attendance", "polls", "answers", "questions", "clips", "export",
                ])
            seen.withLock { $0 = (code, clip.mapValues { "\($0)" }) }
        }

        // After a restart the report is rebuilt from the stored events and their times: the same
        // clip, the same times (to the few milliseconds between deciding an event and storing it).
        let (code, before) = try #require(seen.withLock { $0 })
        try await TestServer(dataDirectory: server.configuration.dataDirectory, store: store).run(now: clock) { client in
            let token = try await client.login()
            let report = try await client.request(.get, "/api/v1/sessions/\(code)/report", token: token).object()
            let clip = try #require((report["clips"] as? [[String: Any]])?.first).mapValues { "\($0)" }
            for key in ["video", "title", "shownAt", "hiddenAt", "duration", "posterUrl"] {
                #expect(clip[key] == before[key], "\(key)")
            }
            for key in ["onStageSeconds", "playedSeconds"] {
                let (now, then) = (Double(clip[key] ?? "") ?? -1, Double(before[key] ?? "") ?? -2)
                #expect(abs(now - then) < 0.1, "\(key): \(now) after the restart, \(then) before")
            }
        }
    }

    @Test(arguments: TestStores.kinds) func aRoomThatShowedOnlyAClipHasAnExportAndAGoneClipStillHasItsPage(
        _ store: StoreKind
    ) async throws {
        let scratch = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = try await VideoClipMaker.mp4(seconds: 2, in: scratch)
        let server = TestServer(store: store)
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let deckId = try await client.readyDeck(token: token)
            let videoId = try await Self.readyVideo(file, title: "Room clip", client: client, token: token)
            let video = try await client.request(.get, "/api/v1/videos/\(videoId)", token: token).object()
            let poster = try #require((video["posterUrl"] as? String)?.split(separator: "/").last.map(String.init))
            let code = try await RoomTests.openRoom(client, token: token)
            let moderator = try await client.socket(code: code)
            _ = try await moderator.hello(["role": "moderator", "token": token])
            let exportPath = "/api/v1/sessions/\(code)/export.pdf"
            #expect(try await client.request(.get, exportPath, token: token).errorCode == "nothing_shown")
            #expect(
                try await Self.exports(of: code, client: client, token: token) == ["attendance", "polls", "answers", "questions"])

            // Only a clip, on stage and off again: the export is its page.
            try await Self.run(moderator, ["type": "showVideo", "videoId": videoId])
            try await Self.run(moderator, ["type": "hideVideo"])
            var pdf = try await Self.export(code, client: client, token: token, into: scratch)
            #expect(try await Self.pageCount(pdf) == 1)
            #expect(try await Self.images(pdf, page: 1) == ["jpeg"])
            #expect(try await Self.text(pdf, page: 1).contains("Room clip"))
            #expect(
                try await Self.exports(of: code, client: client, token: token) == [
                    "attendance", "polls", "answers", "questions", "clips", "export",
                ])

            // A deck's page shown after it comes after it.
            let added = try await client.request(
                .post, "/api/v1/sessions/\(code)/decks", token: token, json: #"{"deckId":"\#(deckId)"}"#)
            #expect(added.status == .created)
            _ = try await moderator.next(ofType: "deckAdded")
            try await Self.run(moderator, ["type": "showDeck", "deckId": deckId])
            pdf = try await Self.export(code, client: client, token: token, into: scratch)
            #expect(try await Self.pageCount(pdf) == 2)
            let slide1 = try await Self.text(TestServer.demoDeck.path, page: 1)
            #expect(try await Self.text(pdf, page: 2) == slide1)

            // Its poster gone from the blob store: the page has its title and no picture.
            let posterFile = server.configuration.blobDirectory.appendingPathComponent(String(poster.prefix(2)))
                .appendingPathComponent(poster)
            try FileManager.default.removeItem(at: posterFile)
            pdf = try await Self.export(code, client: client, token: token, into: scratch)
            #expect(try await Self.images(pdf, page: 1).isEmpty)
            #expect(try await Self.text(pdf, page: 1).contains("Room clip"))

            // The clip deleted from the library: a "deleted clip" in the report, its CSV and the export.
            #expect(try await client.request(.delete, "/api/v1/videos/\(videoId)", token: token).status == .noContent)
            let report = try await client.request(.get, "/api/v1/sessions/\(code)/report", token: token)
            #expect(report.status == .ok)
            let clips = try #require(try report.object()["clips"] as? [[String: Any]])
            #expect(clips.count == 1)
            #expect(clips.first?["video"] as? String == videoId)
            #expect(clips.first?["title"] is NSNull)
            #expect(clips.first?["playedSeconds"] as? Double == 0)
            let csv = String(
                buffer: try await client.request(.get, "/api/v1/sessions/\(code)/report/clips.csv", token: token).body)
            #expect(csv.split(separator: "\r\n").dropFirst().first?.hasPrefix("1,deleted clip,") == true, "\(csv)")
            pdf = try await Self.export(code, client: client, token: token, into: scratch)
            #expect(try await Self.pageCount(pdf) == 2)
            #expect(try await Self.text(pdf, page: 1).contains("deleted clip"))
        }
    }

    // MARK: Helpers

    /// Uploads a clip and waits for it to be packaged.
    static func readyVideo(_ file: URL, title: String, client: Client, token: String) async throws -> String {
        let uploaded = try await client.uploadVideo(file, token: token, title: title)
        let videoId = try #require(try uploaded.object()["id"] as? String)
        let video = try await client.waitForVideo(videoId, token: token)
        try #require(video["status"] as? String == "ready", "\(video)")
        return videoId
    }

    /// Sends a command and waits for its answer, which must be an ack.
    static func run(_ socket: TestSocket, _ fields: [String: Any], sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let id = "c-\(UUID().uuidString.prefix(8))"
        var command = fields
        command["id"] = id
        try await socket.send(command)
        while let message = try await socket.next() {
            guard message["id"] as? String == id else { continue }
            #expect(message["type"] as? String == "ack", "\(fields): \(message)", sourceLocation: sourceLocation)
            return
        }
        Issue.record("the socket closed before \(fields) was answered", sourceLocation: sourceLocation)
    }

    static func date(_ text: String) -> Date? { ISO8601DateFormatter().date(from: text) }

    /// The exports the library's history lists for a session, by the last part of their URL's
    /// path without its extension (`clips`, `export`).
    static func exports(of code: String, client: Client, token: String) async throws -> [String] {
        let history = try await client.request(.get, "/api/v1/history", token: token).object()
        let entry = (history["sessions"] as? [[String: Any]])?.first { $0["code"] as? String == code }
        return (entry?["exports"] as? [[String: Any]] ?? []).compactMap { export in
            (export["url"] as? String)?.split(separator: "/").last?.split(separator: ".").first.map(String.init)
        }
    }

    static func export(_ code: String, client: Client, token: String, into directory: URL) async throws -> String {
        let response = try await client.request(.get, "/api/v1/sessions/\(code)/export.pdf", token: token)
        try #require(response.status == .ok, "\(String(buffer: response.body))")
        let file = directory.appendingPathComponent("export-\(UUID().uuidString).pdf")
        try Data(buffer: response.body).write(to: file)
        return file.path
    }

    static func pageCount(_ pdf: String) async throws -> Int? {
        let info = try await InkTests.run("pdfinfo", [pdf])
        let line = info.split(separator: "\n").first { $0.hasPrefix("Pages:") }
        return line.flatMap { Int($0.dropFirst("Pages:".count).trimmingCharacters(in: .whitespaces)) }
    }

    static func text(_ pdf: String, page: Int) async throws -> String {
        try await InkTests.run("pdftotext", ["-f", "\(page)", "-l", "\(page)", pdf, "-"])
    }

    /// The encodings of the images on a page, as `pdfimages -list` names them (`jpeg`, `image`, ...).
    static func images(_ pdf: String, page: Int) async throws -> [String] {
        let list = try await InkTests.run("pdfimages", ["-list", "-f", "\(page)", "-l", "\(page)", pdf])
        // Two header lines, then one row per image: page num type width height color comp bpc enc ...
        return list.split(separator: "\n").dropFirst(2).compactMap { row in
            let columns = row.split(separator: " ")
            return columns.count > 8 ? String(columns[8]) : nil
        }
    }
}
