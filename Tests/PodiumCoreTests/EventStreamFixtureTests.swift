import Foundation
import Testing

@testable import PodiumCore

/// The recorded event streams the browser's reducer (`applyEvent` in `Public/app/live/live.js`) is
/// checked against (`Tests/JS/reducers.test.mjs`, `make test-js`): a session and a room driven through every
/// kind of durable event by real commands, with the snapshot after each event.
///
/// The fixture is committed, so the JavaScript test needs no Swift. This test fails when the core
/// would write something else: run it with `PODIUM_UPDATE_FIXTURES=1` to write the file anew,
/// then `make test-js`, which tells whether `live.js` still agrees.
@Suite("Event stream fixture")
struct EventStreamFixtureTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/event-stream.json")

    /// One stream: where it starts, its events, and the snapshot after each of them.
    struct Stream: Encodable {
        var name: String
        var initial: SessionSnapshot
        var events: [SessionEvent] = []
        var snapshots: [SessionSnapshot] = []
    }

    struct Fixture: Encodable {
        var note =
            "Written by Tests/PodiumCoreTests/EventStreamFixtureTests.swift (PODIUM_UPDATE_FIXTURES=1); read by Tests/JS/reducers.test.mjs."
        var streams: [Stream]
    }

    /// Runs commands on a state and records every event with the snapshot it leads to.
    struct Recorder {
        var state: SessionState
        var stream: Stream
        /// The same stream as a viewer receives it (no right answer before the reveal).
        var viewerStream: Stream
        var nextID = 0

        init(name: String, state: SessionState) {
            self.state = state
            stream = Stream(name: name, initial: state.snapshot)
            viewerStream = Stream(name: name + " (viewer)", initial: state.snapshot.forViewers)
        }

        mutating func run(
            _ command: SessionCommand, _ role: Role = .presenter, _ presenter: String? = nil, at time: Double = 0,
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            nextID += 1
            let outcome = try state.handle(command, id: "c\(nextID)", by: role, presenterId: presenter, at: time)
            guard case .applied(let events) = outcome else {
                Issue.record("\(command) changed nothing", sourceLocation: sourceLocation)
                return
            }
            // Each event's own snapshot: replay them one by one on the snapshot before.
            var snapshot = stream.snapshots.last ?? stream.initial
            for event in events {
                snapshot.apply(event.change)
                stream.events.append(event)
                stream.snapshots.append(snapshot)
                viewerStream.events.append(event.forViewers)
                viewerStream.snapshots.append(snapshot.forViewers)
            }
            #expect(snapshot == state.snapshot, sourceLocation: sourceLocation)
        }
    }

    static func deck(_ id: String, owner: String?, pages: Int) -> RoomDeck {
        RoomDeck(
            id: id, title: "Deck \(id)", owner: owner,
            pages: (1...pages).map {
                PageInfo(
                    number: $0, width: 960, height: 540, imageUrl: "/blobs/\(id)\($0).jpg", mediumUrl: "/blobs/\(id)\($0)m.jpg",
                    thumbnailUrl: "/blobs/\(id)\($0)t.jpg")
            })
    }

    static func stroke(_ id: String, page: Int, color: String = "#e53935") -> Stroke {
        Stroke(id: id, page: page, tool: .pen, color: color, width: 0.004, points: [[0.1, 0.2, 0.5], [0.3, 0.4, 0.6]])
    }

    /// A session of one deck: navigation, polls of both kinds (one left open when it ends),
    /// questions made public, ink, and the end.
    static func sessionStream() throws -> [Stream] {
        var session = Recorder(name: "session", state: SessionState(pageCount: 5))
        try session.run(.goto(page: 2))
        try session.run(.zoom(Viewport(x: 0.25, y: 0.25, w: 0.5, h: 0.5)))
        try session.run(.blank(.black))
        try session.run(.blank(.none))
        try session.run(.lock(false))
        try session.run(.setQuestionMode(QuestionMode(isPublic: true, needsApproval: true)))
        try session.run(
            .openPoll(
                Poll(kind: .choice, question: "Which?", choices: ["A", "B", "C"], correct: [1], showResults: true, quiz: true)))
        let quiz = session.state.snapshot.polls[0].poll.id
        _ = try session.state.answer(pollId: quiz, .choices([1]), viewer: "v1", after: 2, by: .viewer)
        try session.run(.closePoll(pollId: quiz))
        try session.run(.revealPoll(pollId: quiz, results: true))
        // Where the results are: hidden again; the chart on screen below shows them again.
        try session.run(.showResults(pollId: quiz, shown: false))
        try session.run(.openPoll(Poll(kind: .open, question: "Why?")))
        let open = session.state.snapshot.polls[1].poll.id
        _ = try session.state.answer(pollId: open, .text("Because"), viewer: "v1", by: .viewer)
        try session.run(.shareAnswer(pollId: open, answerId: "\(open)-1"))
        // On screen for everyone: a chart, shared answers, an approved question, then nothing;
        // the leaderboard stays on until the end takes it off.
        try session.run(.spotlight(.pollResults(quiz)))
        try session.run(.spotlight(.sharedAnswers(open)))
        _ = try session.state.ask(
            id: "q1", text: "How?", page: 2, anonymous: false, viewer: "v1", at: Date(timeIntervalSince1970: 1_795_300_000),
            by: .viewer)
        _ = try session.state.approveQuestion(id: "q1", approved: true, by: .presenter)
        try session.run(.spotlight(.question("q1")))
        try session.run(.spotlight(nil))
        try session.run(.spotlight(.leaderboard))
        // The big screens show how to join, off and on again; the end takes it off.
        try session.run(.showJoinInfo(true))
        try session.run(.showJoinInfo(false))
        try session.run(.showJoinInfo(true))
        // Recording for the replay, off and on again; the end stops it.
        try session.run(.recording(true))
        try session.run(.recording(false))
        try session.run(.recording(true))
        // Opening a poll closes the open one.
        try session.run(.openPoll(Poll(kind: .choice, question: "More?", choices: ["Yes", "No"], correct: [0])))
        try session.run(.stroke(stroke("s1", page: 2)))
        try session.run(.stroke(stroke("s2", page: 2, color: "#1e88e5")))
        try session.run(.stroke(stroke("s3", page: 3)))
        let first = session.state.snapshot.strokes[0].id
        try session.run(.erase(strokeId: first))
        try session.run(.clearPage(page: 2))
        // A video on the stage, driven, taken off by a page; on again when the session ends.
        let media = PlaybackMedia(
            title: "Launch", playlist: "/blobs/aa.m3u8", poster: "/blobs/bb.jpg", thumbnails: nil, audioOnly: false)
        let clip = VideoOnStage(id: "vid1", duration: 42.5, media: media)
        try session.run(.showVideo(clip), at: 1_795_300_100)
        try session.run(.playback(.play), at: 1_795_300_101)
        try session.run(.playback(.rate(1.5)), at: 1_795_300_105)
        try session.run(.playback(.seek(20)), at: 1_795_300_106)
        try session.run(.playback(.pause), at: 1_795_300_110)
        try session.run(.playback(.stop), at: 1_795_300_111)
        try session.run(.hideVideo)
        try session.run(.showVideo(clip), at: 1_795_300_120)
        try session.run(.goto(page: 3))
        try session.run(.showVideo(clip), at: 1_795_300_130)
        try session.run(.lock(true))
        try session.run(.blank(.white))
        // Ending unlocks, unblanks and closes the poll still open.
        try session.run(.end)
        return [session.stream, session.viewerStream]
    }

    /// A room: presenters join and ask for control, decks come and go on the stage, control is
    /// handed over, lent and taken back, ink on a deck's page, and the end.
    static func roomStream() throws -> Stream {
        var room = Recorder(name: "room", state: SessionState(roomWithCommandMemory: 64))
        try room.run(.room(.join(name: "Ann")), .presenter, "pann")
        try room.run(.room(.join(name: "Bob")), .presenter, "pbob")
        try room.run(.room(.join(name: "Ann B.")), .presenter, "pann")
        try room.run(.addDeck(deck("dmod", owner: nil, pages: 4)), .moderator)
        try room.run(.addDeck(deck("dann", owner: "pann", pages: 3)), .presenter, "pann")
        try room.run(.showDeck(deckId: "dmod", page: nil), .moderator)
        try room.run(.goto(page: 3), .moderator)
        try room.run(.zoom(Viewport(x: 0, y: 0, w: 0.5, h: 0.5)), .moderator)
        try room.run(.room(.request), .presenter, "pann")
        try room.run(.room(.request), .presenter, "pbob")
        try room.run(.room(.cancelRequest), .presenter, "pbob")
        try room.run(.room(.doNotDisturb(true)), .moderator)
        try room.run(.room(.setQueueCap(3)), .moderator)
        try room.run(.room(.setQueueCap(nil)), .moderator)
        try room.run(.room(.request), .presenter, "pbob")
        // Talk lengths (the room's default, Ann's own) and the countdown on the projector; the
        // time on stage adds up across the lend and the turns below.
        try room.run(.room(.setTalkLength(presenterId: nil, seconds: 1200)), .moderator)
        try room.run(.room(.setTalkLength(presenterId: "pann", seconds: 600)), .moderator)
        try room.run(.room(.showTalkTimer(true)), .moderator)
        try room.run(.recording(true), .moderator)
        // Control to Ann: her deck goes on the stage (control, then deckShown).
        try room.run(.room(.grant(presenterId: "pann")), .moderator, at: 1_795_300_000.5)
        try room.run(.room(.doNotDisturb(true)), .presenter, "pann")
        try room.run(.goto(page: 2), .presenter, "pann")
        try room.run(.stroke(stroke("r1", page: 2)), .presenter, "pann")
        try room.run(.clearPage(page: 2), .presenter, "pann")
        try room.run(.stroke(stroke("r2", page: 2, color: "#43a047")), .presenter, "pann")
        let kept = room.state.snapshot.strokes[0].id
        try room.run(.room(.pass(presenterId: "pbob")), .presenter, "pann", at: 1_795_300_060)
        try room.run(.room(.returnControl), .presenter, "pbob", at: 1_795_300_120)
        // Bob's request kept its place through the lend: the hand-over is his.
        try room.run(.room(.handOverNext), .moderator, at: 1_795_300_180)
        try room.run(.room(.withdraw), .moderator, at: 1_795_300_240)
        // Nobody in control: the moderator plays a video, then a deck takes it off the stage.
        try room.run(.showVideo(VideoOnStage(id: "vid2", duration: nil)), .moderator, at: 1_795_300_250)
        try room.run(.playback(.play), .moderator, at: 1_795_300_251)
        try room.run(.showDeck(deckId: "dann", page: 1), .moderator)
        try room.run(.erase(strokeId: kept), .moderator)
        try room.run(.setBackground("#1a1a1a"), .moderator)
        try room.run(.blank(.black), .moderator)
        try room.run(.lock(false), .moderator)
        try room.run(.end, .moderator)
        return room.stream
    }

    static func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(Fixture(streams: try sessionStream() + [try roomStream()]))
        data.append(0x0A)
        return data
    }

    @Test func theStreamsCoverEveryKindOfEvent() throws {
        let streams = try Self.sessionStream() + [try Self.roomStream()]
        let seen = Set(streams.flatMap { $0.events.map(\.type) })
        let every: Set = [
            "page", "zoom", "blank", "lock", "ended", "pollOpened", "pollClosed", "pollRevealed", "resultsShown", "answerShared",
            "questionMode", "stroke", "erased", "pageCleared", "presenterJoined", "requested", "requestCancelled", "control",
            "doNotDisturb", "queueCap", "deckAdded", "deckShown", "background", "spotlight", "playback",
            "talkLength", "talkTimerShown", "joinInfo", "recording",
        ]
        #expect(every.subtracting(seen).isEmpty, "not in the streams: \(every.subtracting(seen).sorted())")
        #expect(seen.subtracting(every).isEmpty, "new event types: add them here and to live.js")
    }

    @Test func theCommittedFixtureIsWhatTheCoreProduces() throws {
        let data = try Self.encoded()
        try expectCommittedFixture(data, at: Self.fixture, suite: "EventStreamFixtureTests", jsCheck: "live.js")
    }
}
