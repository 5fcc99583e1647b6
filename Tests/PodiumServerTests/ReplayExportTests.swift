import ChildProcesses
import Foundation
import HTTPTypes
import PodiumStore
import Testing

@testable import PodiumServer

/// A replay exported as an MP4 (issue #44) with real pdftoppm, qpdf, ffmpeg and ffprobe: a
/// six-second session (a stepped clock, so nothing waits) shows page 1, then page 2, then red ink
/// on page 2, then zooms into its middle, while a take of the presenter's voice (an Opus file made
/// by ffmpeg) plays from 1 s to 4 s. The MP4 lasts what the session lasted, its frames show each
/// page, the ink after its stroke and the zoom, its sound is where the take was; the job's
/// progress reaches 1; nobody but a host may export. A ready export is published to the channel
/// in one step (by an admin only); a take ffmpeg cannot read is left out.
@Suite("Replay export", .timeLimit(.minutes(3)))
struct ReplayExportTests {
    static let redStroke =
        ##"{"type":"stroke","id":"s1","stroke":{"page":2,"tool":"pen","color":"#FF0000","width":0.02,"points":[[0.1,0.5,0.5],[0.5,0.5,0.5],[0.9,0.5,0.5]]}}"##

    @Test(arguments: TestStores.kinds) func aSessionBecomesAnMP4WithItsPagesInkZoomAndVoice(_ kind: StoreKind)
        async throws
    {
        let clock = SteppedClock(Date())
        let server = TestServer()
        defer { server.removeData() }
        try await TestStores.with(kind) { store in
            try await server.run(store: store, now: { clock.now }) { client in
                let token = try await client.login()
                let deckId = try await client.readyDeck(token: token)
                let session = try await client.startSession(deckId: deckId, token: token)
                let code = try #require(session["code"] as? String)
                let started = clock.now
                let presenter = try await client.socket(code: code)
                _ = try await presenter.hello(["role": "presenter", "token": token])
                clock.advance(2)
                try await presenter.send(#"{"type":"goto","id":"g1","page":2}"#)
                _ = try await presenter.next(ofType: "ack")
                clock.advance(1)
                try await presenter.send(Self.redStroke)
                _ = try await presenter.next(ofType: "ack")
                clock.advance(2)
                try await presenter.send(#"{"type":"zoom","id":"z1","viewport":{"x":0.25,"y":0.25,"w":0.5,"h":0.5}}"#)
                _ = try await presenter.next(ofType: "ack")
                clock.advance(1)
                #expect(try await client.request(.post, "/api/v1/sessions/\(code)/end", token: token).status == .ok)

                // The presenter's voice: 3 s of a tone from 1 s into the session.
                let sessionId = try #require(try await store.session(code: code)?.id)
                let take = RecordingRecord(
                    id: "rec_\(UUID().uuidString.prefix(8))", sessionId: sessionId, ownerKey: "user:admin",
                    startedAt: started + 1, mimeType: "audio/webm;codecs=opus", status: .ready, chunks: 1, bytes: 1,
                    durationMs: 3000, createdAt: started + 1)
                let takes = server.configuration.blobDirectory.appendingPathComponent(RecordingFiles.directoryName)
                try FileManager.default.createDirectory(at: takes, withIntermediateDirectories: true)
                let takeFile = takes.appendingPathComponent("\(take.id).webm")
                _ = try await Self.run(
                    "ffmpeg",
                    ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-c:a", "libopus", takeFile.path])
                try await store.insertRecording(take)

                // Nobody but a host: signed out, or another presenter.
                let exports = "/api/v1/sessions/\(code)/replay/exports"
                #expect(try await client.request(.post, exports).status == .unauthorized)
                let other = try await Self.presenter(client, admin: token)
                #expect(try await client.request(.post, exports, token: other).status == .forbidden)

                let begun = ContinuousClock.now
                let created = try await client.request(.post, exports, token: token)
                #expect(created.status == .accepted)
                let id = try #require(try created.object()["id"] as? String)
                #expect(try await client.request(.get, "/api/v1/replay-exports/\(id)", token: other).status == .forbidden)
                #expect(try await client.request(.get, exports, token: token).array().map { $0["id"] as? String } == [id])
                #expect(try await client.request(.get, exports, token: other).status == .forbidden)
                var progress: [Double] = []
                var export: [String: Any] = [:]
                while ContinuousClock.now < begun + .seconds(25) {
                    export = try await client.request(.get, "/api/v1/replay-exports/\(id)", token: token).object()
                    progress.append(export["progress"] as? Double ?? -1)
                    if export["status"] as? String == "ready" || export["status"] as? String == "failed" { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                let took = ContinuousClock.now - begun
                print("replay export of a 6 s session (\(kind)): \(took)")
                #expect(export["status"] as? String == "ready", "\(export)")
                #expect(progress.last == 1)
                #expect(progress == progress.sorted(), "progress only grows: \(progress)")
                #expect(export["duration"] as? Int == 6000)
                #expect(export["downloadUrl"] as? String == "/api/v1/replay-exports/\(id)/file")

                let file = try await client.request(.get, "/api/v1/replay-exports/\(id)/file", token: token)
                #expect(file.status == .ok)
                #expect(file.headers[.contentType] == "video/mp4")
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "podium-replay-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: directory) }
                let mp4 = directory.appendingPathComponent("replay.mp4")
                try Data(buffer: file.body).write(to: mp4)

                let probe = try await Self.run(
                    "ffprobe",
                    [
                        "-v", "error", "-show_entries", "format=duration:stream=codec_name,width,height", "-of", "default=nw=1",
                        mp4.path,
                    ])
                let duration = try #require(
                    probe.split(separator: "\n").first { $0.hasPrefix("duration=") }.flatMap { Double($0.dropFirst(9)) })
                #expect(abs(duration - 6) < 0.3, "\(probe)")
                #expect(probe.contains("codec_name=h264") && probe.contains("codec_name=aac"), "\(probe)")
                #expect(probe.contains("width=1280") && probe.contains("height=720"), "\(probe)")

                // Page 1 at 1 s, page 2 at 2.5 s (before the ink), page 2 with the red line at 4 s,
                // zoomed into its middle at 5.5 s (the line twice as thick, across the whole frame).
                var frames: [[UInt8]] = []
                for seconds in [1.0, 2.5, 4.0, 5.5] { frames.append(try await Self.frame(of: mp4, at: seconds, in: directory)) }
                #expect(Self.difference(frames[0], frames[1]) > 0.02, "page 1 and page 2 look alike")
                #expect(!Self.hasRed(frames[0]) && !Self.hasRed(frames[1]))
                #expect(Self.hasRed(frames[2]), "the ink is in the frame after its stroke")
                #expect(
                    Self.redPixels(frames[3]) > Self.redPixels(frames[2]) * 3 / 2,
                    "zoomed: \(Self.redPixels(frames[3])) red pixels against \(Self.redPixels(frames[2]))")

                // The voice from 1 s to 4 s, silence before it.
                #expect(try await Self.meanVolume(of: mp4, from: 0, length: 0.8) < -60)
                #expect(try await Self.meanVolume(of: mp4, from: 1.5, length: 2) > -30)

            }
        }
    }

    /// Published to the channel in one step: a channel video that plays once its clip is
    /// packaged, under the channel's rules (the latest published video is open to all, an older
    /// one to members only).
    @Test func aReadyExportIsPublishedToTheChannelInOneStep() async throws {
        let clock = SteppedClock(Date())
        let server = TestServer()
        defer { server.removeData() }
        try await server.run(now: { clock.now }) { client in
            let token = try await client.login()
            let deckId = try await client.readyDeck(TestServer.fixtures.appendingPathComponent("cairo-slides.pdf"), token: token)
            let code = try #require(try await client.startSession(deckId: deckId, token: token)["code"] as? String)
            clock.advance(2)
            #expect(try await client.request(.post, "/api/v1/sessions/\(code)/end", token: token).status == .ok)
            let exports = "/api/v1/sessions/\(code)/replay/exports"
            let id = try await Self.readyExport(client, exports: exports, token: token)
            // Published to the channel in one step: a channel video that plays once its clip is
            // packaged, under the channel's rules (the latest published video is open to all).
            let first = try await Self.publish(client, export: id, title: "Lecture, replayed", token: token)
            #expect(first.status == .created, "\(String(buffer: first.body))")
            let video = try first.object()
            let videoId = try #require(video["id"] as? String)
            #expect(video["title"] as? String == "Lecture, replayed")
            #expect(video["membersOnly"] as? Bool == false)
            let again = try await Self.publish(client, export: id, title: "Once more", token: token)
            let againId = try again.object()["id"] as? String
            #expect(again.status == .ok && againId == videoId, "published once")
            #expect(
                try await client.request(.get, "/api/v1/replay-exports/\(id)", token: token).object()["channelVideoId"]
                    as? String == videoId)
            try await Self.waitUntilPlayable(client, video: video, token: token)
            #expect(try await client.request(.get, "/api/v1/channel/videos/\(videoId)/stream").status == .ok)

            // A second export published after it: the first is no longer the latest, so only
            // members may play it now.
            let second = try await Self.readyExport(client, exports: exports, token: token)
            clock.advance(1)
            let newer = try await Self.publish(client, export: second, title: "Lecture, again", token: token)
            #expect(newer.status == .created)
            #expect(
                try await client.request(.get, "/api/v1/channel/videos/\(videoId)").object()["membersOnly"] as? Bool == true)
            let refused = try await client.request(.get, "/api/v1/channel/videos/\(videoId)/stream")
            #expect(refused.status != .ok, "a non-member may not play a members-only replay")
            #expect(try await client.request(.get, "/api/v1/channel/videos/\(videoId)/stream", token: token).status == .ok)
        }
    }

    /// Starts an export and waits until it is ready; its id.
    static func readyExport(_ client: Client, exports: String, token: String) async throws -> String {
        let id = try #require(try await client.request(.post, exports, token: token).object()["id"] as? String)
        let deadline = ContinuousClock.now + .seconds(20)
        var status: String?
        while ContinuousClock.now < deadline {
            status = try await client.request(.get, "/api/v1/replay-exports/\(id)", token: token).object()["status"] as? String
            if status == "ready" || status == "failed" { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(status == "ready")
        return id
    }

    @Test func aRoomThatShowedNothingHasNothingToExport() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let room = try await client.request(.post, "/api/v1/rooms", token: token, json: #"{"title":"Empty"}"#)
            let code = try #require(try room.object()["code"] as? String)
            let refused = try await client.request(.post, "/api/v1/sessions/\(code)/replay/exports", token: token)
            #expect(refused.status == .conflict)
            #expect(refused.errorCode == "nothing_shown")
        }
    }

    static func publish(_ client: Client, export id: String, title: String, token: String) async throws -> TestResponse {
        try await client.request(
            .post, "/api/v1/replay-exports/\(id)/publish", token: token, json: #"{"title":"\#(title)"}"#)
    }

    /// Waits for a published replay's library clip to be packaged.
    static func waitUntilPlayable(_ client: Client, video: [String: Any], token: String) async throws {
        let libraryId = try #require(video["libraryVideoId"] as? String)
        let deadline = ContinuousClock.now + .seconds(25)
        var library: [String: Any] = [:]
        while ContinuousClock.now < deadline {
            library = try await client.request(.get, "/api/v1/videos/\(libraryId)", token: token).object()
            if library["status"] as? String == "ready" || library["status"] as? String == "failed" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(library["status"] as? String == "ready", "\(library)")
    }

    /// Publishing is the channel's admins': a presenter exports their own session and downloads
    /// it, and is refused the publish; the export of a running session lasts up to now; an audio
    /// take ffmpeg cannot read is left out, not the video.
    @Test func aPresenterWhoIsNoAdminExportsButDoesNotPublish() async throws {
        let clock = SteppedClock(Date())
        let server = TestServer()
        defer { server.removeData() }
        try await TestStores.with(.sqlite) { store in
            try await server.run(store: store, now: { clock.now }) { client in
                let admin = try await client.login()
                let presenter = try await Self.presenter(client, admin: admin)
                let deckId = try await client.readyDeck(
                    TestServer.fixtures.appendingPathComponent("cairo-slides.pdf"), token: presenter)
                let code = try #require(try await client.startSession(deckId: deckId, token: presenter)["code"] as? String)
                let take = RecordingRecord(
                    id: "rec_bad", sessionId: try #require(try await store.session(code: code)?.id), ownerKey: "user:p",
                    startedAt: clock.now, mimeType: "audio/webm;codecs=opus", status: .ready, chunks: 1, bytes: 9,
                    createdAt: clock.now)
                let takes = server.configuration.blobDirectory.appendingPathComponent(RecordingFiles.directoryName)
                try FileManager.default.createDirectory(at: takes, withIntermediateDirectories: true)
                try Data("not audio".utf8).write(to: takes.appendingPathComponent("rec_bad.webm"))
                try await store.insertRecording(take)
                clock.advance(2)
                let created = try await client.request(.post, "/api/v1/sessions/\(code)/replay/exports", token: presenter)
                #expect(created.status == .accepted)
                let id = try #require(try created.object()["id"] as? String)
                let deadline = ContinuousClock.now + .seconds(20)
                var export: [String: Any] = [:]
                while ContinuousClock.now < deadline {
                    export = try await client.request(.get, "/api/v1/replay-exports/\(id)", token: presenter).object()
                    if export["status"] as? String == "ready" || export["status"] as? String == "failed" { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(export["status"] as? String == "ready", "\(export)")
                #expect(export["duration"] as? Int == 2000)
                #expect(try await client.request(.get, "/api/v1/replay-exports/\(id)/file", token: presenter).status == .ok)
                let refused = try await Self.publish(client, export: id, title: "Mine", token: presenter)
                #expect(refused.status == .forbidden)
                // The admin may, as a host of every session.
                #expect(try await Self.publish(client, export: id, title: "Theirs", token: admin).status == .created)
            }
        }
    }

    /// A presenter account that hosts nothing here; returns its token.
    static func presenter(_ client: Client, admin: String) async throws -> String {
        let made = try await client.request(
            .post, "/api/v1/users", token: admin, json: #"{"email":"p@school.test","password":"presenter pass"}"#)
        #expect(made.status == .created)
        return try await client.login(email: "p@school.test", password: "presenter pass")
    }

    /// The frame at `seconds` as a binary PPM.
    static func frame(of video: URL, at seconds: Double, in directory: URL) async throws -> [UInt8] {
        let out = directory.appendingPathComponent("frame-\(seconds).ppm")
        _ = try await run(
            "ffmpeg", ["-v", "error", "-y", "-ss", String(seconds), "-i", video.path, "-frames:v", "1", "-c:v", "ppm", out.path])
        return [UInt8](try Data(contentsOf: out))
    }

    /// How different two frames of one size are: the mean absolute difference of their bytes, 0 to 1.
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 1 }
        var total = 0
        for index in a.indices { total += abs(Int(a[index]) - Int(b[index])) }
        return Double(total) / Double(a.count) / 255
    }

    /// More than a stray pixel of the slide's own colours: a line across the page.
    static func hasRed(_ ppm: [UInt8]) -> Bool { redPixels(ppm) > 500 }

    static func redPixels(_ ppm: [UInt8]) -> Int {
        var index = 0
        var fields = 0
        while fields < 4, index < ppm.count {
            if ppm[index] == 0x0A || ppm[index] == 0x20 { fields += 1 }
            index += 1
        }
        var red = 0
        while index + 2 < ppm.count {
            if ppm[index] > 180 && ppm[index + 1] < 90 && ppm[index + 2] < 90 { red += 1 }
            index += 3
        }
        return red
    }

    /// The mean volume (dB) of a stretch of the video's sound.
    static func meanVolume(of video: URL, from start: Double, length: Double) async throws -> Double {
        let output = try await run(
            "ffmpeg",
            [
                "-hide_banner", "-nostats", "-ss", String(start), "-t", String(length), "-i", video.path, "-vn", "-af",
                "volumedetect",
                "-f", "null", "-",
            ], stderr: true)
        guard let found = output.split(separator: "\n").first(where: { $0.contains("mean_volume:") }),
            let value = found.split(separator: " ").dropLast().last.flatMap({ Double($0) })
        else {
            Issue.record("no mean volume in: \(output.suffix(500))")
            return .nan
        }
        return value
    }

    /// Runs a tool to its end on a thread of its own; its standard output (or error).
    static func run(_ tool: String, _ arguments: [String], stderr: Bool = false) async throws -> String {
        try await blocking {
            let pipe = Pipe()
            let process =
                stderr
                ? ChildProcess(URL(fileURLWithPath: "/usr/bin/env"), arguments: [tool] + arguments, standardError: .pipe(pipe))
                : ChildProcess(URL(fileURLWithPath: "/usr/bin/env"), arguments: [tool] + arguments, standardOutput: .pipe(pipe))
            try process.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: output, as: UTF8.self)
        }
    }
}
