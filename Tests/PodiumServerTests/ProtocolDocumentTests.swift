import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PodiumClient
import PodiumCore
import Synchronization
import Testing

@testable import PodiumServer

/// docs/protocol.md is the contract: its examples are checked against the frames a real server
/// sends. Each example is a fenced JSON block under a comment naming it (`<!-- server: NAME -->`);
/// the test drives a session and a room into the situation of every name and compares the real
/// frame with the example: the same fields, recursively, of the same JSON types, and `null`
/// exactly where the example shows `null`. A field added, dropped, or turned from `null` into
/// absent fails it. The error codes of the document's table and of Public/openapi.yaml are
/// compared with every code the server can send, both ways.
@Suite("The protocol document", .timeLimit(.minutes(5)))
struct ProtocolDocumentTests {
    static let root = TestServer.repositoryRoot
    static let protocolDocument = root.appendingPathComponent("docs/protocol.md")

    // MARK: - The document's examples

    struct Example {
        enum Side: String {
            case server, client, rest
            case storyboardClient = "storyboard-client"
        }
        let side: Side
        let name: String
        let text: String
        let line: Int
    }

    /// Every fenced JSON block under a `<!-- side: name -->` comment.
    static func examples() throws -> [Example] {
        let lines = try String(contentsOf: protocolDocument, encoding: .utf8).components(separatedBy: "\n")
        var examples: [Example] = []
        var index = 0
        while index < lines.count {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            index += 1
            guard line.hasPrefix("<!-- "), line.hasSuffix(" -->"), let colon = line.firstIndex(of: ":") else { continue }
            let sideName = line.dropFirst(5)[..<colon].trimmingCharacters(in: .whitespaces)
            guard let side = Example.Side(rawValue: sideName) else { continue }
            let name = line[line.index(after: colon)...].dropLast(4).trimmingCharacters(in: .whitespaces)
            guard index < lines.count, lines[index].trimmingCharacters(in: .whitespaces) == "```json" else {
                Issue.record("protocol.md line \(index): \(name) is not followed by a json block")
                continue
            }
            let start = index + 1
            var end = start
            while end < lines.count, lines[end].trimmingCharacters(in: .whitespaces) != "```" { end += 1 }
            examples.append(
                Example(side: side, name: name, text: lines[start..<end].joined(separator: "\n"), line: start))
            index = end + 1
        }
        return examples
    }

    // MARK: - The frames of a real server

    /// Drives a session and a room through every situation the examples show; returns each
    /// situation's frame by the examples' names, and every message type seen.
    static func realFrames() async throws -> (frames: [String: JSON], types: Set<String>) {
        let captured = Mutex<[String: JSON]>([:])
        let types = Mutex<Set<String>>([])
        // Set inside the server's body, read after it has returned (so never at the same time):
        // the lobby is told to reconnect only when the server stops.
        nonisolated(unsafe) var lobbyAfterwards: TestSocket?
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            func keep(_ name: String, _ frame: JSON) { captured.withLock { $0[name] = frame } }
            var sockets: [RecordedSocket] = []
            func open(_ path: String, cookie: String? = nil) async throws -> RecordedSocket {
                let socket = RecordedSocket(
                    try await TestSocket.connect(
                        port: client.port, path: path, headers: cookie.map { [.cookie: $0] } ?? [:]))
                sockets.append(socket)
                return socket
            }
            let token = try await client.login()
            let deckId = try await client.readyDeck(token: token)
            keep(
                "deck",
                try JSON(text: String(buffer: try await client.request(.get, "/api/v1/decks/\(deckId)", token: token).body)))
            try await session(client, token: token, deckId: deckId, open: open, keep: keep)
            try await replay(client, token: token, deckId: deckId, open: open, keep: keep)
            let lobby = try await open("/api/v1/lobby")
            try await room(client, token: token, libraryDeck: deckId, open: open, keep: keep)
            try await storyboard(client, token: token, open: open, keep: keep)
            keep("sessions", try await lobby.take("sessions") { ($0["sessions"]?.count ?? 0) >= 1 })
            types.withLock { seen in for socket in sockets { seen.formUnion(socket.types) } }
            lobbyAfterwards = lobby.socket
        }
        if let text = await lobbyAfterwards?.rawUntil(type: "reconnect") {
            captured.withLock { $0["reconnect"] = try? JSON(text: text) }
            types.withLock { _ = $0.insert("reconnect") }
        }
        return (captured.withLock { $0 }, types.withLock { $0 })
    }

    typealias Open = (String, String?) async throws -> RecordedSocket
    typealias Keep = (String, JSON) -> Void

    static func session(_ client: Client, token: String, deckId: String, open: Open, keep: Keep) async throws {
        let code = try #require(try await client.startSession(deckId: deckId, token: token)["code"] as? String)
        let live = "/api/v1/sessions/\(code)/live"
        let presenter = try await open(live, nil)
        _ = try await presenter.hello(["role": "presenter", "token": token])
        let cookie = RoomTests.identity("ada")
        let viewer = try await open(live, cookie)
        _ = try await viewer.hello(["role": "viewer", "name": "Ada"])
        keep("presence", try await presenter.take("presence") { $0["viewers"] == .number(1) })
        keep("viewerList", try await presenter.take("viewerList") { $0["viewers"]?.count == 1 })

        keep("ack", try await presenter.command(["type": "goto", "page": 2]))
        keep("page", try await viewer.take("page"))
        _ = try await presenter.command(["type": "zoom", "viewport": ["x": 0.25, "y": 0.25, "w": 0.5, "h": 0.5]])
        keep("zoom", try await viewer.take("zoom"))
        _ = try await presenter.command(["type": "blank", "mode": "black"])
        keep("blank", try await viewer.take("blank"))
        _ = try await presenter.command(["type": "blank", "mode": "none"])
        _ = try await presenter.command(["type": "lock", "locked": false])
        keep("lock", try await viewer.take("lock"))

        // Ephemeral messages are coalesced: each is waited for before the next.
        try await presenter.send(["type": "pointer", "x": 0.42, "y": 0.61])
        keep("pointer", try await viewer.take("pointer") { $0["visible"] == .bool(true) })
        try await presenter.send(["type": "pointer", "visible": false])
        keep("pointer (hidden)", try await viewer.take("pointer") { $0["visible"] == .bool(false) })
        let points: [[Double]] = [[0.1, 0.2, 0.5], [0.3, 0.4, 0.6]]
        try await presenter.send([
            "type": "inking", "page": 2, "tool": "pen", "color": "#e53935", "width": 0.004, "points": points,
        ])
        keep("inking", try await viewer.take("inking") { $0["done"] == nil })
        try await presenter.send(["type": "inking", "done": true])
        keep("inking (done)", try await viewer.take("inking") { $0["done"] != nil })

        let stroke: [String: Any] = ["page": 2, "tool": "pen", "color": "#e53935", "width": 0.004, "points": points]
        _ = try await presenter.command(["type": "stroke", "id": "c-41", "stroke": stroke])
        keep("stroke", try await viewer.take("stroke"))
        _ = try await presenter.command(["type": "erase", "strokeId": "c-41"])
        keep("erased", try await viewer.take("erased"))
        _ = try await presenter.command(["type": "stroke", "id": "c-42", "stroke": stroke])
        _ = try await presenter.command(["type": "clearPage", "page": 2])
        keep("pageCleared", try await viewer.take("pageCleared"))
        _ = try await presenter.command(["type": "stroke", "id": "c-43", "stroke": stroke])

        _ = try await presenter.command(["type": "setQuestionMode", "questions": ["public": true, "approval": false]])
        keep("questionMode", try await viewer.take("questionMode"))
        _ = try await viewer.command([
            "type": "ask", "id": "q-7", "text": "Is Q3 on track?", "page": 2, "anonymous": false,
        ])
        _ = try await viewer.command(["type": "ask", "id": "q-8", "text": "Why so late?", "anonymous": true])
        keep("questions", try await presenter.take("questions") { $0["questions"]?.count == 2 })
        keep("publicQuestions", try await viewer.take("publicQuestions") { $0["questions"]?.count == 2 })
        _ = try await viewer.command(["type": "vote", "questionId": "q-7", "up": true])
        keep("myVotes", try await viewer.take("myVotes") { $0["questionIds"]?.count == 1 })
        _ = try await presenter.command(["type": "markQuestion", "questionId": "q-7", "answered": true])

        let quiz = try await presenter.command([
            "type": "openPoll",
            "poll": [
                "kind": "choice", "question": "Which quarter grew most?", "choices": ["Q1", "Q2"], "correct": [1],
                "showResults": true, "quiz": true,
            ],
        ])
        let quizId = try #require(quiz["seq"])
        keep("pollOpened (presenter)", try await presenter.take("pollOpened"))
        keep("pollOpened (viewer)", try await viewer.take("pollOpened"))
        _ = try await viewer.command(["type": "answer", "pollId": quizId.any, "choices": [1]])
        keep("myAnswer", try await viewer.take("myAnswer"))
        keep("results", try await presenter.take("results") { $0["pollId"] == quizId && $0["answered"] == .number(1) })
        _ = try await presenter.command(["type": "closePoll", "pollId": quizId.any])
        keep("pollClosed", try await viewer.take("pollClosed"))
        keep("leaderboard", try await viewer.take("leaderboard"))
        keep("myScore", try await viewer.take("myScore"))
        _ = try await presenter.command(["type": "revealPoll", "pollId": quizId.any, "results": true])
        keep("pollRevealed", try await viewer.take("pollRevealed"))
        _ = try await presenter.command(["type": "showResults", "pollId": quizId.any, "shown": false])
        keep("resultsShown", try await viewer.take("resultsShown"))

        let openPoll = try await presenter.command([
            "type": "openPoll", "poll": ["kind": "open", "question": "What should we try next?"],
        ])
        let openId = try #require(openPoll["seq"])
        let answered = try await viewer.command(["type": "answer", "pollId": openId.any, "text": "A pilot"])
        keep("myAnswer (text)", try await viewer.take("myAnswer") { $0["text"] != nil })
        keep(
            "results (open, presenters)",
            try await presenter.take("results") { $0["pollId"] == openId && $0["answered"] == .number(1) })
        _ = try await presenter.command(["type": "shareAnswer", "pollId": openId.any, "answerId": "\(openId.any)-1"])
        keep("answerShared", try await viewer.take("answerShared"))

        try await presenter.send(["type": "goto", "id": "c-18", "page": 999])
        keep("error (command)", try await presenter.take("error"))
        try await presenter.send(["type": "goto", "id": "c-19"])
        keep("error (undecodable command)", try await presenter.take("error"))
        try await presenter.send(["type": "ping", "t": 81_234.5])
        keep("pong", try await presenter.take("pong"))
        try await presenter.send(["type": "ping"])
        keep("pong (no t)", try await presenter.take("pong"))

        // Back with what it had before the shared answer: the welcome brings that one event.
        let again = try await open(live, cookie)
        keep(
            "welcome (viewer)", try await again.hello(["role": "viewer", "name": "Ada", "lastSeq": (answered["seq"]?.any ?? 0)]))
        let presenterAgain = try await open(live, nil)
        keep("welcome (presenter)", try await presenterAgain.hello(["role": "presenter", "token": token]))
        let stranger = try await open(live, nil)
        keep("error (hello)", try await stranger.hello(["role": "presenter"]))

        // On screen for everyone: a poll's chart, an open poll's word cloud (whose answers the
        // viewers then receive), a question, and nothing again.
        _ = try await presenter.command(["type": "spotlight", "spotlight": ["kind": "pollResults", "pollId": quizId.any]])
        keep("spotlight", try await viewer.take("spotlight"))
        _ = try await presenter.command(["type": "spotlight", "spotlight": ["kind": "wordCloud", "pollId": openId.any]])
        keep(
            "results (word cloud, viewers)",
            try await viewer.take("results") { $0["pollId"] == openId && $0["answers"] != nil })
        _ = try await presenter.command(["type": "spotlight", "spotlight": ["kind": "question", "questionId": "q-7"]])
        keep("spotlight (question)", try await viewer.take("spotlight") { $0["spotlight"]?["kind"] == .string("question") })
        _ = try await presenter.command(["type": "spotlight", "spotlight": NSNull()])
        keep("spotlight (off)", try await viewer.take("spotlight") { $0["spotlight"] == .null })
        // How to join, on the big screens, and off again.
        _ = try await presenter.command(["type": "showJoinInfo", "on": true])
        keep("joinInfo", try await viewer.take("joinInfo"))
        _ = try await presenter.command(["type": "showJoinInfo", "on": false])

        // A video on the stage, played, then taken off by a page.
        let scratch = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let uploaded = try await client.uploadVideo(try await VideoClipMaker.mp4(seconds: 1, in: scratch), token: token)
        let videoId = try #require(try uploaded.object()["id"] as? String)
        _ = try await client.waitForVideo(videoId, token: token)
        _ = try await presenter.command(["type": "showVideo", "videoId": videoId])
        _ = try await presenter.command(["type": "playback", "action": "play"])
        keep("playback", try await viewer.take("playback") { $0["playback"]?["state"] == .string("playing") })
        _ = try await presenter.command(["type": "goto", "page": 1])
        keep("playback (off)", try await viewer.take("playback") { $0["playback"] == .null })

        _ = try await presenter.command(["type": "end"])
        keep("ended", try await viewer.take("ended"))
    }

    /// A short recorded session, ended, and its replay's timeline (docs/protocol.md, "Replay").
    static func replay(_ client: Client, token: String, deckId: String, open: Open, keep: Keep) async throws {
        let code = try #require(try await client.startSession(deckId: deckId, token: token)["code"] as? String)
        let live = "/api/v1/sessions/\(code)/live"
        let presenter = try await open(live, nil)
        _ = try await presenter.hello(["role": "presenter", "token": token])
        let viewer = try await open(live, RoomTests.identity("replay"))
        _ = try await viewer.hello(["role": "viewer", "name": "Ada"])
        _ = try await presenter.command(["type": "recording", "on": true])
        keep("recording", try await viewer.take("recording"))
        _ = try await presenter.command(["type": "goto", "page": 2])
        try await presenter.send(["type": "pointer", "x": 0.41, "y": 0.22])
        _ = try await viewer.take("pointer") { $0["visible"] == .bool(true) }
        try await presenter.send(["type": "pointer", "visible": false])
        _ = try await viewer.take("pointer") { $0["visible"] == .bool(false) }
        let points: [[Double]] = [[0.1, 0.2, 0.5], [0.3, 0.4, 0.6]]
        try await presenter.send([
            "type": "inking", "page": 2, "tool": "pen", "color": "#e53935", "width": 0.004, "points": points,
        ])
        _ = try await viewer.take("inking")
        _ = try await presenter.command([
            "type": "stroke", "stroke": ["page": 2, "tool": "pen", "color": "#e53935", "width": 0.004, "points": points],
        ])
        try await presenter.send(["type": "inking", "done": true])
        _ = try await presenter.command(["type": "setQuestionMode", "questions": ["public": true, "approval": false]])
        _ = try await viewer.command(["type": "ask", "text": "Why two?", "page": 2, "anonymous": false])
        _ = try await presenter.command([
            "type": "openPoll",
            "poll": ["kind": "choice", "question": "Tea?", "choices": ["Yes", "No"], "showResults": true],
        ])
        let pollId = try #require(try await viewer.take("pollOpened")["poll"]?["id"])
        _ = try await viewer.command(["type": "answer", "pollId": pollId.any, "choices": [1]])
        _ = try await presenter.command(["type": "end"])
        _ = try await client.request(.patch, "/api/v1/sessions/\(code)", token: token, json: #"{"replay":"link"}"#)
        let timeline = try await client.request(.get, "/api/v1/sessions/\(code)/replay")
        keep("replay", try JSON(text: String(buffer: timeline.body)))
    }

    static func room(_ client: Client, token: String, libraryDeck: String, open: Open, keep: Keep) async throws {
        let code = try await RoomTests.openRoom(client, token: token)
        let live = "/api/v1/sessions/\(code)/live"
        let moderator = try await open(live, nil)
        _ = try await moderator.hello(["role": "moderator", "token": token])
        let annCookie = RoomTests.identity("ann")
        let ann = try await open(live, annCookie)
        let annWelcome = try await ann.hello(["role": "presenter", "name": "Ann"])
        keep("welcome (room presenter)", annWelcome)
        keep("presenterJoined", try await moderator.take("presenterJoined"))
        keep("roomPresence", try await moderator.take("roomPresence"))

        let added = try await client.request(
            .post, "/api/v1/sessions/\(code)/decks", token: token, json: #"{"deckId":"\#(libraryDeck)"}"#)
        #expect(added.status == .created)
        keep("deckAdded", try await moderator.take("deckAdded"))
        let annDeck = try await RoomTests.bring(
            TestServer.fixtures.appendingPathComponent("cairo-slides.pdf"), code: code, as: annCookie, client: client)
        _ = try await moderator.take("deckAdded") { $0["deck"]?["id"] == .string(annDeck) }

        _ = try await moderator.command(["type": "showDeck", "deckId": libraryDeck])
        keep("deckShown", try await moderator.take("deckShown"))
        _ = try await ann.command(["type": "request"])
        keep("requested", try await moderator.take("requested"))
        _ = try await ann.command(["type": "cancelRequest"])
        keep("requestCancelled", try await moderator.take("requestCancelled"))
        _ = try await moderator.command(["type": "doNotDisturb", "on": true])
        keep("doNotDisturb", try await moderator.take("doNotDisturb"))
        _ = try await moderator.command(["type": "setQueueCap", "cap": 3])
        keep("queueCap", try await moderator.take("queueCap"))
        _ = try await moderator.command(["type": "setQueueCap", "cap": NSNull()])
        let presenterId = try #require(annWelcome["presenterId"]?.any as? String)
        // Talk lengths (the room's default, then Ann's own) and the countdown on the projector.
        _ = try await moderator.command(["type": "setTalkLength", "presenterId": NSNull(), "seconds": 1200])
        _ = try await moderator.command(["type": "setTalkLength", "presenterId": presenterId, "seconds": 600])
        keep("talkLength", try await moderator.take("talkLength") { $0["presenterId"] == .string(presenterId) })
        _ = try await moderator.command(["type": "showTalkTimer", "on": true])
        keep("talkTimerShown", try await moderator.take("talkTimerShown"))
        _ = try await moderator.command(["type": "grant", "presenterId": presenterId])
        keep("control", try await moderator.take("control"))
        _ = try await moderator.take("deckShown") { $0["deck"] == .string(annDeck) }

        let stroke: [String: Any] = ["page": 1, "tool": "pen", "color": "#e53935", "width": 0.004, "points": [[0.1, 0.2, 0.5]]]
        _ = try await ann.command(["type": "stroke", "id": "c-51", "stroke": stroke])
        keep("stroke (room)", try await moderator.take("stroke"))
        _ = try await ann.command(["type": "clearPage", "page": 1])
        keep("pageCleared (room)", try await moderator.take("pageCleared"))
        _ = try await ann.command(["type": "stroke", "id": "c-52", "stroke": stroke])
        _ = try await moderator.command(["type": "setBackground", "color": "#1a1a1a"])
        keep("background", try await moderator.take("background"))

        let moderatorAgain = try await open(live, nil)
        keep("welcome (moderator)", try await moderatorAgain.hello(["role": "moderator", "token": token]))

        // A PDF that cannot be processed: whoever brought it is told.
        let failing = try await client.request(
            .post, "/api/v1/sessions/\(code)/decks", token: token, headers: [.contentType: "application/pdf"],
            body: ByteBuffer(bytes: try Data(contentsOf: TestServer.fixtures.appendingPathComponent("encrypted.pdf"))))
        #expect(failing.status == .created)
        keep("deckFailed", try await moderator.take("deckFailed"))
    }

    /// Two editors of one storyboard: the welcome, an edit and its echo, a refusal, a stroke in
    /// progress and a cursor. (The second editor is the same account in another tab.)
    static func storyboard(_ client: Client, token: String, open: Open, keep: Keep) async throws {
        let project = try await StoryboardServerTests.create(client, token: token)
        let id = try #require(project["id"] as? String)
        let (_, shot, layer) = try StoryboardServerTests.firstShot(project)
        let path = "/api/v1/storyboards/\(id)/live"
        let ada = try await open(path, nil)
        keep("storyboard welcome", try await ada.hello(["token": token]))
        let grace = try await open(path, nil)
        _ = try await grace.hello(["token": token])
        keep("storyboard editors", try await ada.take("editors"))
        try await ada.send([
            "type": "edit", "id": "e-101",
            "edit": ["op": "addStrokes", "shot": shot, "layer": layer, "strokes": [StoryboardServerTests.stroke("st-9")]],
        ])
        keep("storyboard ack", try await ada.take("ack"))
        keep("storyboard edited", try await grace.take("edited"))
        try await ada.send([
            "type": "edit", "id": "e-102",
            "edit": ["op": "addStrokes", "shot": shot, "layer": "nope", "strokes": [StoryboardServerTests.stroke("st-10")]],
        ])
        keep("storyboard error", try await ada.take("error"))
        try await grace.send([
            "type": "drawing", "shot": shot, "layer": layer,
            "stroke": ["tool": "marker", "color": "#ffd43b", "width": 0.02, "points": [[0.5, 0.5, 0.5]]],
        ])
        keep("storyboard drawing", try await ada.take("drawing"))
        try await grace.send(["type": "drawing", "shot": shot, "layer": layer, "stroke": NSNull()])
        keep("storyboard drawing (ended)", try await ada.take("drawing") { $0["stroke"] == .null })
        try await grace.send(["type": "cursor", "shot": shot, "x": 0.42, "y": 0.61])
        keep("storyboard cursor", try await ada.take("cursor"))
        // Back after a drop, with the seq of the last edit it applied.
        let again = try await open(path, nil)
        keep("storyboard welcome (resumed)", try await again.hello(["token": token, "lastSeq": 0]))
    }

    // MARK: - The tests

    @Test func everyExampleIsWhatTheServerSends() async throws {
        let examples = try Self.examples()
        let (frames, types) = try await Self.realFrames()
        var documentedTypes: Set<String> = []
        var checked: Set<String> = []
        for example in examples where example.side == .server || example.side == .rest {
            let expected: JSON
            do {
                expected = try JSON(text: example.text)
            } catch {
                Issue.record("protocol.md line \(example.line), \(example.name): not JSON: \(error)")
                continue
            }
            if case .string(let type)? = expected["type"] { documentedTypes.insert(type) }
            guard let frame = frames[example.name] else {
                Issue.record("protocol.md line \(example.line): no situation produces the example \"\(example.name)\"")
                continue
            }
            checked.insert(example.name)
            for problem in expected.shapeProblems(in: frame, at: example.name) {
                Issue.record("protocol.md line \(example.line): \(problem)\n  the server sent: \(frame)")
            }
        }
        let undocumented = Set(frames.keys).subtracting(checked)
        #expect(undocumented.isEmpty, "situations without an example in protocol.md: \(undocumented.sorted())")
        let unlisted = types.subtracting(documentedTypes)
        #expect(unlisted.isEmpty, "message types the server sent that protocol.md shows no example of: \(unlisted.sorted())")
    }

    @Test func everyStoryboardClientExampleIsAMessageTheServerReads() throws {
        let examples = try Self.examples().filter { $0.side == .storyboardClient }
        #expect(examples.count >= 2)
        for example in examples {
            for line in example.text.components(separatedBy: "\n") where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                #expect(throws: Never.self, "protocol.md line \(example.line): \(line)") {
                    try JSONDecoder().decode(StoryboardClientMessage.self, from: Data(line.utf8))
                }
            }
        }
    }

    @Test func theStoryboardErrorTableListsEveryCodeItsSocketSends() throws {
        let document = try String(contentsOf: Self.protocolDocument, encoding: .utf8)
        let table = try #require(document.components(separatedBy: "<!-- error codes: storyboard -->").dropFirst().first)
        var documented: Set<String> = []
        for line in table.components(separatedBy: "\n").dropFirst() {
            guard line.hasPrefix("|") else { break }
            let cell = line.split(separator: "|").first?.trimmingCharacters(in: .whitespaces) ?? ""
            if cell.hasPrefix("`") { documented.insert(cell.trimmingCharacters(in: CharacterSet(charactersIn: "`"))) }
        }
        // The model's codes, the socket's own, and the SessionError members it passes on.
        var sent = try Self.codes(in: ["Sources/PodiumCore/Storyboard"], pattern: #"StoryboardError\(\s*code:\s*"([a-z_]+)""#)
        sent.formUnion(
            try Self.codes(
                in: ["Desk", "Hub", "Messages", "Rendering", "Socket"].map {
                    "Sources/PodiumServer/Storyboards/Storyboard\($0).swift"
                }
            ))
        sent.formUnion(["bad_message", "hello_required", "rate_limited", "unavailable", "internal"])
        #expect(sent.subtracting(documented).isEmpty, "codes missing from protocol.md: \(sent.subtracting(documented).sorted())")
        #expect(documented.subtracting(sent).isEmpty, "codes the server never sends: \(documented.subtracting(sent).sorted())")
    }

    @Test func everyClientExampleIsAMessageTheServerReads() throws {
        let examples = try Self.examples().filter { $0.side == .client }
        #expect(!examples.isEmpty)
        for example in examples {
            for line in example.text.components(separatedBy: "\n") where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                #expect(throws: Never.self, "protocol.md line \(example.line): \(line)") {
                    try JSONDecoder().decode(ClientMessage.self, from: Data(line.utf8))
                }
            }
        }
    }

    /// Codes written as `code: "…"` in these sources (SessionError's static members among them).
    static func codes(
        in directories: [String], excluding excluded: Set<String> = [], pattern: String = #"code:\s*"([a-z_]+)""#
    ) throws -> Set<String> {
        let regex = try NSRegularExpression(pattern: pattern)
        var codes: Set<String> = []
        for directory in directories {
            let url = root.appendingPathComponent(directory)
            // Every Swift file below the directory (features live in folders), or the file itself.
            // (Foundation on Linux enumerates a file as nothing rather than nil: ask which it is.)
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            let files =
                isDirectory.boolValue
                ? (FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil)?.allObjects as? [URL]) ?? []
                : [url]
            for file in files where file.pathExtension == "swift" && !excluded.contains(file.lastPathComponent) {
                let text = try String(contentsOf: file, encoding: .utf8)
                for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    codes.insert(String(text[Range(match.range(at: 1), in: text)!]))
                }
            }
        }
        return codes
    }

    @Test func theErrorTableListsEveryCodeTheSocketSends() throws {
        let document = try String(contentsOf: Self.protocolDocument, encoding: .utf8)
        let table = try #require(document.components(separatedBy: "<!-- error codes: socket -->").dropFirst().first)
        var documented: Set<String> = []
        for line in table.components(separatedBy: "\n").dropFirst() {
            guard line.hasPrefix("|") else { break }
            let cell = line.split(separator: "|").first?.trimmingCharacters(in: .whitespaces) ?? ""
            if cell.hasPrefix("`") { documented.insert(cell.trimmingCharacters(in: CharacterSet(charactersIn: "`"))) }
        }
        // SessionError's codes (the core's rules) and those the live connection makes itself.
        var sent = try Self.codes(
            in: ["Sources/PodiumCore", "Sources/PodiumServer/Live"], pattern: #"SessionError\(\s*code:\s*"([a-z_]+)""#)
        // Thrown while replaying a store's history; a hello then gets `unavailable`.
        sent.remove("corrupt_history")
        #expect(sent.subtracting(documented).isEmpty, "codes missing from protocol.md: \(sent.subtracting(documented).sorted())")
        #expect(documented.subtracting(sent).isEmpty, "codes the server never sends: \(documented.subtracting(sent).sorted())")
    }

    @Test func theOpenAPIDocumentListsEveryCodeTheRESTAPISends() throws {
        // The `examples` of the Error schema's `code`.
        let code = try OpenAPISchemas.shared.get().schema("Error")["properties"]?["error"]?["properties"]?["code"]
        guard case .array(let examples)? = code?["examples"] else {
            Issue.record("openapi.yaml: the Error schema's code has no examples")
            return
        }
        let listed = Set(examples.compactMap { if case .string(let code) = $0 { code } else { nil } })
        #expect(listed.count > 50, "the document lists \(listed.count) codes")
        // The storyboard socket's codes are the socket's (protocol.md), not the REST API's.
        var sent = try Self.codes(
            in: ["Sources/PodiumServer", "Sources/PodiumMedia"], excluding: ["StoryboardSocket.swift"])
        sent.formUnion(try Self.codes(in: ["Sources/PodiumServer"], pattern: #"case [0-9.<]+: "([a-z_]+)""#))
        // A refused live command, passed on by the routes that run one (add a deck, end, create).
        sent.formUnion(["forbidden", "ended", "invalid_page", "too_many_decks", "unavailable"])
        #expect(sent.subtracting(listed).isEmpty, "codes missing from openapi.yaml: \(sent.subtracting(listed).sorted())")
        #expect(listed.subtracting(sent).isEmpty, "codes the REST API never sends: \(listed.subtracting(sent).sorted())")
    }
}

/// A live socket whose messages are kept, so a test can wait for one type without losing others.
final class RecordedSocket {
    let socket: TestSocket
    private var log: [(frame: JSON, taken: Bool)] = []

    init(_ socket: TestSocket) { self.socket = socket }

    var types: Set<String> {
        Set(log.compactMap { if case .string(let type)? = $0.frame["type"] { type } else { nil } })
    }

    func send(_ object: [String: Any]) async throws { try await socket.send(object) }

    /// The first message of this type (matching `condition`) not taken before, waiting for it.
    func take(
        _ type: String, sourceLocation: SourceLocation = #_sourceLocation, where condition: (JSON) -> Bool = { _ in true }
    ) async throws -> JSON {
        var index = 0
        while true {
            while index < log.count {
                let entry = log[index]
                if !entry.taken, entry.frame["type"] == .string(type), condition(entry.frame) {
                    log[index].taken = true
                    return entry.frame
                }
                index += 1
            }
            guard let text = await socket.nextText() else {
                Issue.record("the socket closed before a \(type) came", sourceLocation: sourceLocation)
                return .null
            }
            log.append((try JSON(text: text), false))
        }
    }

    func hello(_ fields: [String: Any]) async throws -> JSON {
        var hello = fields
        hello["type"] = "hello"
        try await send(hello)
        guard let text = await socket.nextText() else { return .null }
        let frame = try JSON(text: text)
        log.append((frame, true))
        return frame
    }

    /// Sends a command with a new id and returns its ack (a refusal fails the test).
    @discardableResult
    func command(_ fields: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSON {
        var command = fields
        // Ids are remembered per session, not per socket: each must be new in the session.
        let id = command["id"] as? String ?? "cmd-\(UUID().uuidString.prefix(8))"
        command["id"] = id
        try await send(command)
        let answer = try await take("ack", sourceLocation: sourceLocation) { $0["id"] == .string(id) }
        return answer
    }
}

extension TestSocket {
    /// Reads until a message of this type, answering its text (nil if the socket closes first).
    func rawUntil(type: String) async -> String? {
        while let text = await nextText() {
            if case .string(type)? = (try? JSON(text: text))?["type"] { return text }
        }
        return nil
    }
}

/// A JSON value as sent, with its type (a number is never a boolean): the SDK's `JSONValue`, with
/// what these checks need besides.
typealias JSON = JSONValue

extension JSONValue: CustomStringConvertible {
    init(text: String) throws { self = try JSONDecoder().decode(JSON.self, from: Data(text.utf8)) }

    var count: Int? {
        switch self {
        case .array(let items): items.count
        case .object(let fields): fields.count
        default: nil
        }
    }

    /// For building messages: the value as JSONSerialization takes it.
    var any: Any {
        switch self {
        case .null: NSNull()
        case .bool(let value): value
        case .number(let value): value == value.rounded() && abs(value) < 1e15 ? Int(value) as Any : value
        case .string(let value): value
        case .array(let items): items.map(\.any)
        case .object(let fields): fields.mapValues(\.any)
        }
    }

    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    public var description: String {
        let data = try? JSONSerialization.data(withJSONObject: any, options: [.sortedKeys, .fragmentsAllowed])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "?"
    }

    /// How `frame` differs in shape from this example: keys, JSON types, nulls. An object whose
    /// keys are `<placeholders>` stands for any keys with such values; a list's items each take one
    /// of the shapes its example items show, and (unless the list is empty) each example item's
    /// shape must be there.
    func shapeProblems(in frame: JSON, at path: String) -> [String] {
        switch (self, frame) {
        case (.object(let expected), .object(let actual)):
            if !expected.isEmpty, expected.keys.allSatisfy({ $0.hasPrefix("<") }) {
                return actual.flatMap { key, value in Self.bestMatch(Array(expected.values), value, at: "\(path).\(key)") }
            }
            var problems: [String] = []
            for key in Set(expected.keys).subtracting(actual.keys).sorted() { problems.append("\(path).\(key): missing") }
            for key in Set(actual.keys).subtracting(expected.keys).sorted() {
                problems.append("\(path).\(key): not in the example")
            }
            for (key, value) in expected.sorted(by: { $0.key < $1.key }) {
                if let other = actual[key] { problems += value.shapeProblems(in: other, at: "\(path).\(key)") }
            }
            return problems
        case (.array(let expected), .array(let actual)):
            // An empty list (in the example or the frame) has no items to compare.
            guard !expected.isEmpty, !actual.isEmpty else { return [] }
            var problems = actual.enumerated().flatMap { index, item in Self.bestMatch(expected, item, at: "\(path)[\(index)]") }
            for (index, item) in expected.enumerated()
            where !actual.contains(where: { item.shapeProblems(in: $0, at: path).isEmpty }) {
                problems.append("\(path): no item has the shape of the example's item \(index + 1)")
            }
            return problems
        default:
            return kind == frame.kind ? [] : ["\(path): \(frame.kind) where the example has \(kind)"]
        }
    }

    /// No problems if `item` has the shape of one of `shapes`; else the problems with the closest.
    static func bestMatch(_ shapes: [JSON], _ item: JSON, at path: String) -> [String] {
        let all = shapes.map { $0.shapeProblems(in: item, at: path) }
        return all.min { $0.count < $1.count } ?? []
    }
}
