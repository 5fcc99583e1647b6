import Foundation
import HTTPTypes
import Hummingbird
import PodiumCore
import PodiumStore
import Testing

@testable import PodiumServer

/// Replay (issue #44): the recording switch, the pointer's side log, who may watch, and the
/// timeline `GET /api/v1/sessions/{code}/replay` built from what the store kept, on SQLite and
/// PostgreSQL.
@Suite("Replay", .timeLimit(.minutes(2)))
struct ReplayTests {
    /// Sends a command and reads until its answer (an ack or an error with its id).
    @discardableResult
    static func command(
        _ socket: TestSocket, _ fields: [String: Any], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String: Any] {
        var command = fields
        let id = "c-\(UUID().uuidString.prefix(8))"
        command["id"] = id
        try await socket.send(command)
        while let message = try await socket.next() {
            let type = message["type"] as? String
            if (type == "ack" || type == "error"), message["id"] as? String == id {
                #expect(type == "ack", "\(fields): \(message)", sourceLocation: sourceLocation)
                return message
            }
        }
        Issue.record("the socket closed before answering \(fields)", sourceLocation: sourceLocation)
        return [:]
    }

    static func timeline(_ client: Client, _ code: String, token: String? = nil, passcode: String? = nil) async throws
        -> TestResponse
    {
        var headers: HTTPFields = [:]
        if let passcode { headers[HTTPField.Name("X-Podium-Passcode")!] = passcode }
        return try await client.request(.get, "/api/v1/sessions/\(code)/replay", token: token, headers: headers)
    }

    @Test(arguments: TestStores.kinds) func aRecordedSessionReplaysAsAViewerSawIt(_ kind: StoreKind) async throws {
        let server = TestServer(store: kind)
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let deckId = try await client.readyDeck(token: token)
            let code = try #require(try await client.startSession(deckId: deckId, token: token)["code"] as? String)
            let live = "/api/v1/sessions/\(code)/live"
            let presenter = try await TestSocket.connect(port: client.port, path: live)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let viewer = try await TestSocket.connect(
                port: client.port, path: live, headers: [.cookie: RoomTests.identity("ada")])
            _ = try await viewer.hello(["role": "viewer", "name": "Ada"])

            // Not recording yet: the pointer is not kept.
            try await presenter.send(["type": "pointer", "x": 0.9, "y": 0.9])
            try await presenter.barrier()
            let began = Date()
            try await Self.command(presenter, ["type": "recording", "on": true])
            #expect(try await viewer.next(ofType: "recording")?["on"] as? Bool == true)
            try await Self.command(presenter, ["type": "goto", "page": 2])
            // A burst of pointer moves: kept at most 5 a second, the newest of each 200 ms; the hide kept.
            for step in 0..<30 {
                try await presenter.send(["type": "pointer", "x": 0.1 + Double(step) / 100, "y": 0.5])
            }
            try await presenter.barrier()
            try await presenter.send(["type": "pointer", "x": 0.7, "y": 0.25])
            try await presenter.send(["type": "pointer", "visible": false])
            try await presenter.barrier()
            // A stroke drawn, committed, finished.
            let points: [[Double]] = [[0.1, 0.2, 0.5], [0.3, 0.4, 0.6]]
            for count in 1...2 {
                try await presenter.send([
                    "type": "inking", "page": 2, "tool": "pen", "color": "#e53935", "width": 0.004,
                    "points": Array(points.prefix(count)),
                ])
            }
            try await presenter.barrier()
            try await Self.command(
                presenter,
                [
                    "type": "stroke",
                    "stroke": ["page": 2, "tool": "pen", "color": "#e53935", "width": 0.004, "points": points],
                ])
            try await presenter.send(["type": "inking", "done": true])
            // Public questions; a question asked; a poll whose results viewers see, answered.
            try await Self.command(presenter, ["type": "setQuestionMode", "questions": ["public": true, "approval": false]])
            try await Self.command(viewer, ["type": "ask", "text": "Why two?", "anonymous": false])
            try await Self.command(
                presenter,
                [
                    "type": "openPoll",
                    "poll": [
                        "kind": "choice", "question": "Tea?", "choices": ["Yes", "No"], "correct": [0], "showResults": true,
                    ],
                ])
            let opened = try #require(try await viewer.next(ofType: "pollOpened"))
            let pollId = try #require((opened["poll"] as? [String: Any])?["id"] as? Int)
            try await Self.command(viewer, ["type": "answer", "pollId": pollId, "choices": [1]])
            try await Self.command(presenter, ["type": "recording", "on": false])
            // An audio take begun: the timeline lists it with its status.
            let take = try await client.request(
                .post, "/api/v1/sessions/\(code)/recordings", token: token,
                json: #"{"startedAt":"\#(ISO8601DateFormatter().string(from: began))","mimeType":"audio/webm;codecs=opus"}"#)
            #expect(take.status == .created, "\(String(buffer: take.body))")

            // The host's replay of a running session: up to now.
            let response = try await Self.timeline(client, code, token: token)
            #expect(response.status == .ok, "\(String(buffer: response.body))")
            let timeline = try response.object()
            #expect(timeline["live"] as? Bool == true)
            let session = try #require(timeline["session"] as? [String: Any])
            #expect(session["code"] as? String == code)
            #expect(session["replay"] as? String == "host")
            #expect((session["replayUrl"] as? String)?.hasSuffix("/s/\(code)/replay") == true)
            #expect((session["pages"] as? [Any])?.isEmpty == false)
            let events = try #require(timeline["events"] as? [[String: Any]])
            let types = events.compactMap { ($0["event"] as? [String: Any])?["type"] as? String }
            #expect(types == ["recording", "page", "stroke", "questionMode", "pollOpened", "recording"])
            let ats = events.compactMap { $0["at"] as? Int }
            #expect(ats == ats.sorted())
            let duration = try #require(timeline["duration"] as? Int)
            #expect(duration >= (ats.last ?? 0))
            // The host sees the poll's right answer, as it was stored.
            let poll = events.compactMap { ($0["event"] as? [String: Any])?["poll"] as? [String: Any] }.first
            #expect(poll?["correct"] as? [Int] == [0])

            // Views: the question list made public, then the results as they came in.
            let views = try #require(timeline["views"] as? [[String: Any]])
            let messages = views.compactMap { $0["message"] as? [String: Any] }
            let lists = messages.filter { $0["type"] as? String == "publicQuestions" }
            #expect((lists.last?["questions"] as? [[String: Any]])?.first?["text"] as? String == "Why two?")
            let results = messages.filter { $0["type"] as? String == "results" }
            // (The poll's opening and its answer within 250 ms of it are one view: the newest.)
            #expect(!results.isEmpty && results.count <= 2)
            #expect(results.last?["counts"] as? [Int] == [0, 1])
            #expect(results.last?["answered"] as? Int == 1)

            // The pointer: only while recording, coalesced, its last place and the hide kept.
            let pointer = try #require(timeline["pointer"] as? [[String: Any]])
            let elapsed = Date().timeIntervalSince(began)
            #expect(!pointer.isEmpty && pointer.count <= Int(elapsed * 5) + 2, "\(pointer.count) in \(elapsed) s")
            #expect(pointer.allSatisfy { ($0["x"] as? Double) != 0.9 })
            #expect(pointer.last?["hidden"] as? Bool == true)
            let lastShown = pointer.last { $0["hidden"] == nil }
            #expect(lastShown?["page"] as? Int == 2)
            #expect(lastShown.map { $0.keys.contains("deck") } == true)
            let pointerAts = pointer.compactMap { $0["at"] as? Int }
            #expect(zip(pointerAts, pointerAts.dropFirst()).allSatisfy { $1 - $0 >= 200 })
            // The stroke began to be drawn before it was committed.
            let strokeEvent = try #require(events.first { ($0["event"] as? [String: Any])?["type"] as? String == "stroke" })
            let strokeId = try #require(((strokeEvent["event"] as? [String: Any])?["stroke"] as? [String: Any])?["id"] as? String)
            let drawn = try #require(timeline["drawn"] as? [String: Int])
            #expect(drawn.keys.sorted() == [strokeId])
            #expect((drawn[strokeId] ?? .max) <= (strokeEvent["at"] as? Int ?? 0))
            let takes = try #require(timeline["recordings"] as? [[String: Any]])
            #expect(takes.map { $0["status"] as? String } == ["recording"])

            // Who may watch: the host; anyone else once the host shares it by link.
            let stranger = try await Self.timeline(client, code)
            #expect(stranger.status == .forbidden && stranger.errorCode == "forbidden")
            #expect(try await client.request(.get, "/api/v1/sessions/ZZZZZZ/replay", token: token).status == .notFound)
            let shared = try await client.request(.patch, "/api/v1/sessions/\(code)", token: token, json: #"{"replay":"link"}"#)
            #expect(shared.status == .ok)
            #expect(try shared.object()["replay"] as? String == "link")
            let open = try await Self.timeline(client, code)
            #expect(open.status == .ok)
            // A viewer's replay: the poll's answer hidden until revealed, as viewers received it.
            let viewerEvents = try open.object()["events"] as? [[String: Any]] ?? []
            let viewerPoll = viewerEvents.compactMap { ($0["event"] as? [String: Any])?["poll"] as? [String: Any] }.first
            #expect(viewerPoll != nil && viewerPoll?["correct"] == nil)

            // Ended: no longer live; the access may still change, nothing else may.
            try await Self.command(presenter, ["type": "end"])
            let ended = try await Self.timeline(client, code, token: token).object()
            #expect(ended["live"] as? Bool == false)
            #expect((ended["events"] as? [Any])?.count == events.count + 1)
            let hidden = try await client.request(.patch, "/api/v1/sessions/\(code)", token: token, json: #"{"replay":"host"}"#)
            #expect(hidden.status == .ok)
            #expect(try await Self.timeline(client, code).status == .forbidden)
            let passcode = try await client.request(.patch, "/api/v1/sessions/\(code)", token: token, json: #"{"passcode":"1"}"#)
            #expect(passcode.status == .conflict)
            await presenter.close()
            await viewer.close()
        }
    }

    /// A session with a passcode, shared by link: the passcode is asked for as when joining.
    @Test func aSharedReplayOfASessionWithAPasscodeAsksForIt() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let deckId = try await client.readyDeck(token: token)
            let code = try #require(
                try await client.startSession(deckId: deckId, token: token, passcode: "4711")["code"] as? String)
            #expect(
                try await client.request(.patch, "/api/v1/sessions/\(code)", token: token, json: #"{"replay":"link"}"#).status
                    == .ok)
            let none = try await Self.timeline(client, code)
            #expect(none.status == .unauthorized && none.errorCode == "passcode_required")
            let wrong = try await Self.timeline(client, code, passcode: "1234")
            #expect(wrong.status == .forbidden && wrong.errorCode == "passcode_wrong")
            #expect(try await Self.timeline(client, code, passcode: "4711").status == .ok)
            // The host needs none.
            #expect(try await Self.timeline(client, code, token: token).status == .ok)
        }
    }

    /// A room's replay: its moderator's, under /r/{code}/replay, its decks in its events.
    @Test func aRoomReplaysForItsModerator() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let code = try await RoomTests.openRoom(client, token: token)
            let response = try await Self.timeline(client, code, token: token)
            #expect(response.status == .ok, "\(String(buffer: response.body))")
            let timeline = try response.object()
            let session = try #require(timeline["session"] as? [String: Any])
            #expect(session["kind"] as? String == "room")
            #expect((session["replayUrl"] as? String)?.hasSuffix("/r/\(code)/replay") == true)
            #expect((session["pages"] as? [Any])?.isEmpty == true)
            #expect(timeline["live"] as? Bool == true)
            let stranger = try await Self.timeline(client, code)
            #expect(stranger.status == .forbidden)
        }
    }

    /// The side log's store: batches kept compactly and read back in time order.
    @Test(arguments: TestStores.kinds) func theSideLogKeepsBatchesInOrder(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            _ = try await StoreTests.seed(store)
            let t = StoreTests.t0
            try await store.appendReplaySamples(
                sessionId: "s1",
                [
                    ReplaySample(at: t + 2, .pointer(page: 3, deck: nil, x: 0.123_45, y: 1)),
                    ReplaySample(at: t + 2.5, .inkStart),
                ])
            try await store.appendReplaySamples(
                sessionId: "s1",
                [
                    ReplaySample(at: t + 0.5, .pointer(page: 1, deck: "d\"1", x: 0, y: 0.5)),
                    ReplaySample(at: t + 1.25, .hidden),
                ])
            try await store.appendReplaySamples(sessionId: "s1", [])
            let samples = try await store.replaySamples(sessionId: "s1")
            #expect(
                samples == [
                    ReplaySample(at: t + 0.5, .pointer(page: 1, deck: "d\"1", x: 0, y: 0.5)),
                    ReplaySample(at: t + 1.25, .hidden),
                    // Ten-thousandths are kept.
                    ReplaySample(at: t + 2, .pointer(page: 3, deck: nil, x: 0.1235, y: 1)),
                    ReplaySample(at: t + 2.5, .inkStart),
                ])
            #expect(try await store.replaySamples(sessionId: "other").isEmpty)
            // The access setting.
            #expect(try await store.session(id: "s1")?.replay == .host)
            try await store.updateSessionReplay(id: "s1", replay: .link)
            #expect(try await store.session(id: "s1")?.replay == .link)
        }
    }

    /// The coalescer: at most one pointer sample per 200 ms, the newest in each slot, nothing lost
    /// at the end; a stroke's start once per stroke.
    @Test func pointerSamplesAreCoalescedToFiveASecond() {
        var coalescer = ReplayRecorder.Coalescer()
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        for step in 0..<100 {
            coalescer.notePointer(
                ReplaySample(at: t0 + Double(step) * 0.02, .pointer(page: 1, deck: nil, x: Double(step) / 100, y: 0)))
        }
        coalescer.noteInking(
            InkingMessage(page: 1, tool: .pen, color: "#000", width: 0.01, points: [[0, 0, 0.5]], done: nil), at: t0 + 0.5)
        coalescer.noteInking(
            InkingMessage(page: 1, tool: .pen, color: "#000", width: 0.01, points: [[0, 0, 0.5]], done: nil), at: t0 + 0.6)
        coalescer.noteInking(InkingMessage(page: nil, tool: nil, color: nil, width: nil, points: nil, done: true), at: t0 + 0.7)
        coalescer.noteInking(
            InkingMessage(page: 1, tool: .pen, color: "#000", width: 0.01, points: [[0, 0, 0.5]], done: nil), at: t0 + 0.8)
        let samples = coalescer.take(now: t0 + 10, all: true)
        let pointer = samples.filter { $0.kind != .inkStart }
        // 2 seconds of moves: 10 slots and the last move.
        #expect(pointer.count <= 11)
        let times = pointer.map(\.at)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1.timeIntervalSince($0) >= 0.199 })
        #expect(pointer.last?.kind == .pointer(page: 1, deck: nil, x: 0.99, y: 0))
        #expect(samples.filter { $0.kind == .inkStart }.map(\.at) == [t0 + 0.5, t0 + 0.8])
        #expect(coalescer.take(now: t0 + 20).isEmpty)
    }
}

/// A clip's links in a replay: made anew when the timeline is built (the stored ones expire after
/// `--stage-video-link-hours`), the rest of the playback as stored; a clip the library no longer
/// has keeps its old links.
@Suite("Replay: a clip's links")
struct ReplayClipLinkTests {
    struct Library: StageVideos {
        func readyVideo(id: String, ownedBy owner: String, session sessionId: String) async throws -> VideoOnStage? {
            guard id == "v-kept", owner == "u-1", sessionId == "s-1" else { return nil }
            return VideoOnStage(
                id: id, duration: 30,
                media: PlaybackMedia(
                    title: "Clip", playlist: "/stream/fresh/master.m3u8", poster: nil, thumbnails: "/stream/fresh/t.vtt",
                    audioOnly: false, expiresAt: 2_000_000_000))
        }
    }

    static func playback(_ video: String, seq: Int) -> StoredEvent {
        let old = PlaybackMedia(
            title: "Clip", playlist: "/stream/old/master.m3u8", poster: nil, thumbnails: nil, audioOnly: false,
            expiresAt: 1_000)
        return StoredEvent(
            event: SessionEvent(
                seq: seq,
                change: .playback(
                    Playback(video: video, media: old, duration: 30, state: .playing, position: 4, anchor: 900, rate: 1.5))),
            commandID: nil)
    }

    @Test func theClipsShownGetFreshLinks() async throws {
        let record = SessionRecord(
            id: "s-1", code: "ABCDEF", deckId: "d-1", presenterId: "u-1", passcodeHash: nil, allowDownload: false,
            createdAt: Date(timeIntervalSince1970: 800))
        let events = [
            Self.playback("v-kept", seq: 1), StoredEvent(event: SessionEvent(seq: 2, change: .page(2)), commandID: nil),
            Self.playback("v-gone", seq: 3),
        ]
        let renewed = try await ReplayTimeline.freshClipLinks(events, record: record, clips: Library())
        guard case .playback(let kept?) = renewed[0].event.change, case .playback(let gone?) = renewed[2].event.change
        else {
            Issue.record("the playback events are not playback events any more")
            return
        }
        #expect(kept.media?.playlist == "/stream/fresh/master.m3u8")
        #expect(kept.media?.expiresAt == 2_000_000_000)
        #expect(kept.position == 4 && kept.anchor == 900 && kept.rate == 1.5 && kept.state == .playing)
        #expect(renewed[0].event.seq == 1)
        #expect(renewed[1] == events[1])
        #expect(gone.media?.playlist == "/stream/old/master.m3u8")
    }
}
