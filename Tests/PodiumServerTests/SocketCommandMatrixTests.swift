import Foundation
import HTTPTypes
import PodiumCore
import PodiumStore
import Testing

@testable import PodiumServer

/// The socket axis of the authorisation matrix: every message a client can send on the live
/// socket, sent by every kind of participant of a session and of a room. Each (command, role)
/// runs in a fresh session or room set up so the command could succeed (an open poll with an
/// answer, a public question, a stroke, decks, control handed to a presenter), so a refusal is
/// the rule's and not the state's. The answer must be `ack` (or, for the ephemeral pointer and
/// ink, the broadcast) or the typed error the rules define; a refused command changes nothing
/// that anyone sees.
@Suite("Socket command matrix", .timeLimit(.minutes(10)))
struct SocketCommandMatrixTests {
    /// Every message type a client sends after hello.
    enum Command: String, CaseIterable, CustomStringConvertible {
        case hello, goto, zoom, blank, lock, end, pointer, inking, stroke, erase, clearPage
        case openPoll, closePoll, revealPoll, showResults, shareAnswer, answer, setQuestionMode
        case ask, markQuestion, approveQuestion, vote, resync, ping
        case request, cancelRequest, grant, handOverNext, withdraw, pass, returnControl, doNotDisturb, setQueueCap
        case setTalkLength, showTalkTimer
        case showDeck, setBackground, spotlight, showJoinInfo
        case recording
        case showVideo, hideVideo, playback, buffering

        var description: String { rawValue }

        /// Which command a decoded message is. The switches are exhaustive on purpose: a new case
        /// of `ClientMessage`, `SessionCommand` or a feature's command enum (`StageCommand`,
        /// `PollCommand`, `RoomCommand`, ...) stops this file compiling until it has a command
        /// here, and then the tables below must give it a row.
        static func of(_ message: ClientMessage) -> Command? {
            switch message {
            case .hello: .hello
            case .command(_, let command):
                switch command {
                case .stage(let stage):
                    switch stage {
                    case .goto: .goto
                    case .zoom: .zoom
                    case .blank: .blank
                    case .stroke: .stroke
                    case .erase: .erase
                    case .clearPage: .clearPage
                    }
                case .polls(let polls):
                    switch polls {
                    case .open: .openPoll
                    case .close: .closePoll
                    case .reveal: .revealPoll
                    case .showResults: .showResults
                    case .shareAnswer: .shareAnswer
                    case .answer: .answer
                    }
                case .questions(let questions):
                    switch questions {
                    case .setMode: .setQuestionMode
                    case .ask: .ask
                    case .mark: .markQuestion
                    case .approve: .approveQuestion
                    case .vote: .vote
                    }
                case .screen(let screen):
                    switch screen {
                    case .spotlight: .spotlight
                    case .showJoinInfo: .showJoinInfo
                    }
                case .video(let video):
                    switch video {
                    case .show: .showVideo
                    case .hide: .hideVideo
                    case .playback: .playback
                    }
                case .room(let room):
                    switch room {
                    case .join: nil  // not a socket message: a room presenter joins with hello
                    case .request: .request
                    case .cancelRequest: .cancelRequest
                    case .grant: .grant
                    case .handOverNext: .handOverNext
                    case .withdraw: .withdraw
                    case .pass: .pass
                    case .returnControl: .returnControl
                    case .doNotDisturb: .doNotDisturb
                    case .setQueueCap: .setQueueCap
                    case .setTalkLength: .setTalkLength
                    case .showTalkTimer: .showTalkTimer
                    case .addDeck: nil  // not a socket message: decks join a room over REST
                    case .showDeck: .showDeck
                    case .setBackground: .setBackground
                    }
                case .lock: .lock
                case .recording: .recording
                case .end: .end
                }
            case .pointer: .pointer
            case .inking: .inking
            case .resync: .resync
            case .ping: .ping
            case .buffering: .buffering
            }
        }

        /// The message as a client sends it, naming what the fixture made.
        func json(_ made: Made, id: String) -> String {
            switch self {
            case .hello: #"{"type":"hello","role":"viewer"}"#
            case .goto: #"{"type":"goto","id":"\#(id)","page":2}"#
            case .zoom: #"{"type":"zoom","id":"\#(id)","viewport":{"x":0.25,"y":0.25,"w":0.5,"h":0.5}}"#
            case .blank: #"{"type":"blank","id":"\#(id)","mode":"black"}"#
            case .lock: #"{"type":"lock","id":"\#(id)","locked":false}"#
            case .end: #"{"type":"end","id":"\#(id)"}"#
            case .pointer: #"{"type":"pointer","x":0.5,"y":0.5}"#
            case .inking:
                ##"{"type":"inking","page":1,"tool":"pen","color":"#FF0000","width":0.01,"points":[[0.1,0.1,0.5],[0.2,0.2,0.5]]}"##
            case .stroke:
                ##"{"type":"stroke","id":"\##(id)","stroke":{"page":1,"tool":"pen","color":"#00FF00","width":0.01,"points":[[0.1,0.1,0.5],[0.3,0.3,0.5]]}}"##
            case .erase: #"{"type":"erase","id":"\#(id)","strokeId":"\#(made.strokeId)"}"#
            case .clearPage: #"{"type":"clearPage","id":"\#(id)","page":1}"#
            case .openPoll:
                #"{"type":"openPoll","id":"\#(id)","poll":{"kind":"choice","question":"Tea?","choices":["Yes","No"],"correct":[0]}}"#
            case .closePoll: #"{"type":"closePoll","id":"\#(id)","pollId":\#(made.pollId)}"#
            case .revealPoll: #"{"type":"revealPoll","id":"\#(id)","pollId":\#(made.pollId),"results":true}"#
            case .showResults: #"{"type":"showResults","id":"\#(id)","pollId":\#(made.pollId),"shown":true}"#
            case .shareAnswer: #"{"type":"shareAnswer","id":"\#(id)","pollId":\#(made.pollId),"answerId":"\#(made.answerId)"}"#
            case .answer: #"{"type":"answer","id":"\#(id)","pollId":\#(made.pollId),"text":"Because"}"#
            case .setQuestionMode: #"{"type":"setQuestionMode","id":"\#(id)","questions":{"public":false,"approval":false}}"#
            case .ask: #"{"type":"ask","id":"\#(id)","text":"Why?","anonymous":true}"#
            case .markQuestion: #"{"type":"markQuestion","id":"\#(id)","questionId":"\#(made.questionId)","answered":true}"#
            case .approveQuestion:
                #"{"type":"approveQuestion","id":"\#(id)","questionId":"\#(made.questionId)","approved":true}"#
            case .vote: #"{"type":"vote","id":"\#(id)","questionId":"\#(made.questionId)","up":true}"#
            case .resync: #"{"type":"resync","afterSeq":0}"#
            case .ping: #"{"type":"ping"}"#
            // Only a room's projector (its moderator's browser, saying so in its hello) reports buffering.
            case .buffering: #"{"type":"buffering","buffering":true}"#
            case .request, .cancelRequest, .handOverNext, .withdraw, .returnControl: #"{"type":"\#(rawValue)","id":"\#(id)"}"#
            case .grant, .pass: #"{"type":"\#(rawValue)","id":"\#(id)","presenterId":"\#(made.waitingPresenter)"}"#
            case .doNotDisturb: #"{"type":"doNotDisturb","id":"\#(id)","on":true}"#
            case .setQueueCap: #"{"type":"setQueueCap","id":"\#(id)","cap":3}"#
            case .setTalkLength: #"{"type":"setTalkLength","id":"\#(id)","presenterId":null,"seconds":600}"#
            case .showTalkTimer: #"{"type":"showTalkTimer","id":"\#(id)","on":true}"#
            case .showDeck: #"{"type":"showDeck","id":"\#(id)","deckId":"\#(made.holderDeck)","page":2}"#
            case .setBackground: ##"{"type":"setBackground","id":"\##(id)","color":"#112233"}"##
            case .spotlight:
                #"{"type":"spotlight","id":"\#(id)","spotlight":{"kind":"sharedAnswers","pollId":\#(made.pollId)}}"#
            case .showJoinInfo: #"{"type":"showJoinInfo","id":"\#(id)","on":true}"#
            case .recording: #"{"type":"recording","id":"\#(id)","on":true}"#
            // No video is in the fixture's library: who may drive is told so, the others are refused first.
            case .showVideo: #"{"type":"showVideo","id":"\#(id)","videoId":"vid_none"}"#
            case .hideVideo: #"{"type":"hideVideo","id":"\#(id)"}"#
            case .playback: #"{"type":"playback","id":"\#(id)","action":"play"}"#
            }
        }
    }

    /// What the fixture made, for commands that name it.
    struct Made: Sendable {
        var pollId = 0
        var answerId = ""
        var questionId = ""
        var strokeId = ""
        /// Rooms: the deck of the presenter who holds control, and the id of the one who waits.
        var holderDeck = "d_none"
        var waitingPresenter = "p_none"
    }

    /// How the socket answers a command.
    enum Outcome: Equatable, CustomStringConvertible {
        /// `ack` with the command's id.
        case ack
        /// `error` with this code; nobody sees a durable event.
        case refused(String)
        /// No answer; everyone in the session receives it (pointer, ink being drawn).
        case broadcast
        /// `pong`.
        case pong
        /// The durable events are sent again from seq 1.
        case replay
        /// This participant cannot join in this role: hello is answered with this error and closed.
        case helloRefused(String)
        /// Nothing came back but the ping behind it (never expected: reported as a failure).
        case silent

        static let forbidden = Outcome.refused("forbidden")
        static let notInControl = Outcome.refused("not_in_control")
        static let notARoom = Outcome.refused("not_a_room")
        static let badMessage = Outcome.refused("bad_message")

        var description: String {
            switch self {
            case .ack: "ack"
            case .refused(let code): "error \(code)"
            case .broadcast: "broadcast"
            case .pong: "pong"
            case .replay: "replay"
            case .helloRefused(let code): "hello refused: \(code)"
            case .silent: "no answer"
            }
        }
    }

    // MARK: - Sessions

    enum SessionRole: String, CaseIterable {
        /// A viewer with their identity cookie.
        case viewer
        /// The owner of the session, signed in.
        case presenter
        /// A presenter who owns another session and says hello to this one with their token.
        case otherPresenter
        /// An admin, who may present any session.
        case admin
    }

    struct SessionRow {
        let command: Command
        let expected: [SessionRole: Outcome]

        init(_ command: Command, viewer: Outcome, presenter: Outcome, otherPresenter: Outcome, admin: Outcome) {
            self.command = command
            expected = [.viewer: viewer, .presenter: presenter, .otherPresenter: otherPresenter, .admin: admin]
        }
    }

    /// A presenter of another session cannot join this one as its presenter: they never get to send anything.
    static let strangerHello = Outcome.helloRefused("forbidden")

    static let sessionTable: [SessionRow] = [
        .init(.hello, viewer: .badMessage, presenter: .badMessage, otherPresenter: strangerHello, admin: .badMessage),
        // Navigation is locked from the start: a viewer's goto is refused (unlocked, it is a private ack).
        .init(.goto, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        .init(.zoom, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        .init(.blank, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        .init(.lock, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        .init(.end, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        .init(.pointer, viewer: .forbidden, presenter: .broadcast, otherPresenter: strangerHello, admin: .broadcast),
        .init(.inking, viewer: .forbidden, presenter: .broadcast, otherPresenter: strangerHello, admin: .broadcast),
        .init(.stroke, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        .init(.erase, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        .init(.clearPage, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        .init(.openPoll, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        .init(.closePoll, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        .init(.revealPoll, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        .init(.showResults, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        .init(.shareAnswer, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        .init(.answer, viewer: .ack, presenter: .forbidden, otherPresenter: strangerHello, admin: .forbidden),
        .init(.setQuestionMode, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        .init(.ask, viewer: .ack, presenter: .forbidden, otherPresenter: strangerHello, admin: .forbidden),
        .init(.markQuestion, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        .init(.approveQuestion, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        .init(.vote, viewer: .ack, presenter: .forbidden, otherPresenter: strangerHello, admin: .forbidden),
        .init(.resync, viewer: .replay, presenter: .replay, otherPresenter: strangerHello, admin: .replay),
        .init(.ping, viewer: .pong, presenter: .pong, otherPresenter: strangerHello, admin: .pong),
        // Room commands mean nothing in a session of one deck, whoever sends them.
        .init(.request, viewer: .notARoom, presenter: .notARoom, otherPresenter: strangerHello, admin: .notARoom),
        .init(.cancelRequest, viewer: .notARoom, presenter: .notARoom, otherPresenter: strangerHello, admin: .notARoom),
        .init(.grant, viewer: .notARoom, presenter: .notARoom, otherPresenter: strangerHello, admin: .notARoom),
        .init(.handOverNext, viewer: .notARoom, presenter: .notARoom, otherPresenter: strangerHello, admin: .notARoom),
        .init(.withdraw, viewer: .notARoom, presenter: .notARoom, otherPresenter: strangerHello, admin: .notARoom),
        .init(.pass, viewer: .notARoom, presenter: .notARoom, otherPresenter: strangerHello, admin: .notARoom),
        .init(.returnControl, viewer: .notARoom, presenter: .notARoom, otherPresenter: strangerHello, admin: .notARoom),
        .init(.doNotDisturb, viewer: .notARoom, presenter: .notARoom, otherPresenter: strangerHello, admin: .notARoom),
        .init(.setQueueCap, viewer: .notARoom, presenter: .notARoom, otherPresenter: strangerHello, admin: .notARoom),
        .init(.setTalkLength, viewer: .notARoom, presenter: .notARoom, otherPresenter: strangerHello, admin: .notARoom),
        .init(.showTalkTimer, viewer: .notARoom, presenter: .notARoom, otherPresenter: strangerHello, admin: .notARoom),
        .init(.showDeck, viewer: .notARoom, presenter: .notARoom, otherPresenter: strangerHello, admin: .notARoom),
        .init(.setBackground, viewer: .notARoom, presenter: .notARoom, otherPresenter: strangerHello, admin: .notARoom),
        // What is on screen for everyone is the host's.
        .init(.spotlight, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        // So is showing how to join on the big screens.
        .init(.showJoinInfo, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        // Recording for the replay: the host's.
        .init(.recording, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        // Video is driven like the pages. The fixture has no video: the presenter hears so, and that
        // nothing plays; taking off a video that is not there changes nothing.
        .init(
            .showVideo, viewer: .forbidden, presenter: .refused("video_not_found"), otherPresenter: strangerHello,
            admin: .refused("video_not_found")),
        .init(.hideVideo, viewer: .forbidden, presenter: .ack, otherPresenter: strangerHello, admin: .ack),
        .init(
            .playback, viewer: .forbidden, presenter: .refused("no_video"), otherPresenter: strangerHello,
            admin: .refused("no_video")),
        // Only a room's projector reports its buffering: nobody in a session is one.
        .init(.buffering, viewer: .forbidden, presenter: .forbidden, otherPresenter: strangerHello, admin: .forbidden),
    ]

    // MARK: - Rooms

    enum RoomRole: String, CaseIterable {
        /// The room's owner, signed in.
        case moderator
        /// A presenter who joined by name (no account) and holds control, their deck on stage.
        case holder
        /// A presenter who joined by name, has a deck in the room, and does not hold control.
        case waiting
        /// A viewer with their identity cookie.
        case viewer
        /// An admin, who may moderate any room.
        case admin
        /// A presenter who owns another session and says hello to this room as its moderator.
        case otherPresenter
    }

    /// The state of control a row needs, besides the standard fixture (the holder has control).
    enum Stage {
        case standard
        /// The waiting presenter has asked for control.
        case queued
        /// The holder lent control to the waiting presenter.
        case lent
    }

    struct RoomRow {
        let command: Command
        let stage: Stage
        let expected: [RoomRole: Outcome]

        init(
            _ command: Command, in stage: Stage = .standard, moderator: Outcome, holder: Outcome, waiting: Outcome,
            viewer: Outcome, admin: Outcome, otherPresenter: Outcome = .helloRefused("not_moderator")
        ) {
            self.command = command
            self.stage = stage
            expected = [
                .moderator: moderator, .holder: holder, .waiting: waiting, .viewer: viewer, .admin: admin,
                .otherPresenter: otherPresenter,
            ]
        }
    }

    static let roomTable: [RoomRow] = [
        .init(.hello, moderator: .badMessage, holder: .badMessage, waiting: .badMessage, viewer: .badMessage, admin: .badMessage),
        // Whoever drives (the holder) moves and draws; the moderator drives only while nobody holds control.
        .init(.goto, moderator: .notInControl, holder: .ack, waiting: .notInControl, viewer: .forbidden, admin: .notInControl),
        .init(.zoom, moderator: .notInControl, holder: .ack, waiting: .notInControl, viewer: .notInControl, admin: .notInControl),
        // The moderator may blank the projector at any time.
        .init(.blank, moderator: .ack, holder: .ack, waiting: .notInControl, viewer: .notInControl, admin: .ack),
        .init(.lock, moderator: .ack, holder: .forbidden, waiting: .forbidden, viewer: .forbidden, admin: .ack),
        .init(.end, moderator: .ack, holder: .forbidden, waiting: .forbidden, viewer: .forbidden, admin: .ack),
        .init(
            .pointer, moderator: .notInControl, holder: .broadcast, waiting: .notInControl, viewer: .notInControl,
            admin: .notInControl),
        .init(
            .inking, moderator: .notInControl, holder: .broadcast, waiting: .notInControl, viewer: .notInControl,
            admin: .notInControl),
        .init(
            .stroke, moderator: .notInControl, holder: .ack, waiting: .notInControl, viewer: .notInControl, admin: .notInControl),
        .init(
            .erase, moderator: .notInControl, holder: .ack, waiting: .notInControl, viewer: .notInControl, admin: .notInControl),
        .init(
            .clearPage, moderator: .notInControl, holder: .ack, waiting: .notInControl, viewer: .notInControl,
            admin: .notInControl),
        // Polls are the moderator's and the holder's; the question mode the moderator's; a question
        // the moderator's and the holder's, whose turn it came in. Answering, asking and voting the audience's.
        .init(.openPoll, moderator: .ack, holder: .ack, waiting: .forbidden, viewer: .forbidden, admin: .ack),
        .init(.closePoll, moderator: .ack, holder: .ack, waiting: .forbidden, viewer: .forbidden, admin: .ack),
        .init(.revealPoll, moderator: .ack, holder: .ack, waiting: .forbidden, viewer: .forbidden, admin: .ack),
        .init(.showResults, moderator: .ack, holder: .ack, waiting: .forbidden, viewer: .forbidden, admin: .ack),
        .init(.shareAnswer, moderator: .ack, holder: .ack, waiting: .forbidden, viewer: .forbidden, admin: .ack),
        .init(.answer, moderator: .forbidden, holder: .forbidden, waiting: .forbidden, viewer: .ack, admin: .forbidden),
        .init(.setQuestionMode, moderator: .ack, holder: .forbidden, waiting: .forbidden, viewer: .forbidden, admin: .ack),
        .init(.ask, moderator: .forbidden, holder: .forbidden, waiting: .forbidden, viewer: .ack, admin: .forbidden),
        .init(.markQuestion, moderator: .ack, holder: .ack, waiting: .forbidden, viewer: .forbidden, admin: .ack),
        .init(.approveQuestion, moderator: .ack, holder: .ack, waiting: .forbidden, viewer: .forbidden, admin: .ack),
        .init(.vote, moderator: .forbidden, holder: .forbidden, waiting: .forbidden, viewer: .ack, admin: .forbidden),
        .init(.resync, moderator: .replay, holder: .replay, waiting: .replay, viewer: .replay, admin: .replay),
        .init(.ping, moderator: .pong, holder: .pong, waiting: .pong, viewer: .pong, admin: .pong),
        // Control. Asking while presenting is refused by the queue's rule, not by role.
        .init(
            .request, moderator: .forbidden, holder: .refused("already_presenting"), waiting: .ack, viewer: .forbidden,
            admin: .forbidden),
        .init(.cancelRequest, moderator: .forbidden, holder: .ack, waiting: .ack, viewer: .forbidden, admin: .forbidden),
        .init(.grant, moderator: .ack, holder: .forbidden, waiting: .forbidden, viewer: .forbidden, admin: .ack),
        .init(
            .handOverNext, in: .queued, moderator: .ack, holder: .forbidden, waiting: .forbidden, viewer: .forbidden, admin: .ack
        ),
        .init(.withdraw, moderator: .ack, holder: .forbidden, waiting: .forbidden, viewer: .forbidden, admin: .ack),
        .init(.pass, moderator: .forbidden, holder: .ack, waiting: .notInControl, viewer: .forbidden, admin: .forbidden),
        // Lent: the lender (holder) or the borrower (waiting) gives control back.
        .init(
            .returnControl, in: .lent, moderator: .forbidden, holder: .ack, waiting: .ack, viewer: .forbidden, admin: .forbidden
        ),
        .init(.doNotDisturb, moderator: .ack, holder: .ack, waiting: .notInControl, viewer: .forbidden, admin: .ack),
        .init(.setQueueCap, moderator: .ack, holder: .forbidden, waiting: .forbidden, viewer: .forbidden, admin: .ack),
        // Talk lengths and the countdown on the projector are the chair's.
        .init(.setTalkLength, moderator: .ack, holder: .forbidden, waiting: .forbidden, viewer: .forbidden, admin: .ack),
        .init(.showTalkTimer, moderator: .ack, holder: .forbidden, waiting: .forbidden, viewer: .forbidden, admin: .ack),
        // Only whoever drives shows a deck (presenters their own).
        .init(
            .showDeck, moderator: .notInControl, holder: .ack, waiting: .notInControl, viewer: .notInControl,
            admin: .notInControl),
        .init(.setBackground, moderator: .ack, holder: .forbidden, waiting: .forbidden, viewer: .forbidden, admin: .ack),
        .init(.spotlight, moderator: .ack, holder: .ack, waiting: .forbidden, viewer: .forbidden, admin: .ack),
        // The join info on the projector is the chair's.
        .init(.showJoinInfo, moderator: .ack, holder: .forbidden, waiting: .forbidden, viewer: .forbidden, admin: .ack),
        // Recording for the replay: the moderator's, and the presenter's in control.
        .init(.recording, moderator: .ack, holder: .ack, waiting: .forbidden, viewer: .forbidden, admin: .ack),
        // Video, like the pages, is the holder's to drive (no video is in the fixture's library).
        .init(
            .showVideo, moderator: .notInControl, holder: .refused("video_not_found"), waiting: .notInControl,
            viewer: .notInControl, admin: .notInControl),
        .init(
            .hideVideo, moderator: .notInControl, holder: .ack, waiting: .notInControl, viewer: .notInControl,
            admin: .notInControl),
        .init(
            .playback, moderator: .notInControl, holder: .refused("no_video"), waiting: .notInControl, viewer: .notInControl,
            admin: .notInControl),
        // The projector (its moderator's browser, saying so in its hello) has its own test.
        .init(.buffering, moderator: .forbidden, holder: .forbidden, waiting: .forbidden, viewer: .forbidden, admin: .forbidden),
    ]

    // MARK: - The tables cover everything

    @Test func everyClientMessageHasARowForEveryRole() throws {
        let made = Made(
            pollId: 3, answerId: "ans", questionId: "q", strokeId: "s", holderDeck: "d_x", waitingPresenter: "p_x")
        for command in Command.allCases {
            // The sample is the command it stands for, as the server decodes it.
            let decoded = try JSONDecoder().decode(ClientMessage.self, from: Data(command.json(made, id: "x").utf8))
            #expect(Command.of(decoded) == command, "the sample of \(command) decodes as \(decoded)")
        }
        // Every type a client may send (every feature's commands) is a command here.
        #expect(Set(Command.allCases.map(\.rawValue)) == ClientMessage.wireTypes)
        #expect(Self.sessionTable.map(\.command) == Command.allCases, "one session row per command, in order")
        #expect(Self.roomTable.map(\.command) == Command.allCases, "one room row per command, in order")
        for row in Self.sessionTable { #expect(Set(row.expected.keys) == Set(SessionRole.allCases)) }
        for row in Self.roomTable { #expect(Set(row.expected.keys) == Set(RoomRole.allCases)) }
    }

    // MARK: - Running the tables

    /// Accounts and decks every fixture uses.
    struct World: Sendable {
        let client: Client
        let owner: String
        let other: String
        let admin: String
        /// The session's deck, and the two decks room presenters bring (all the owner's).
        let sessionDeck: String
        let holderDeck: String
        let waitingDeck: String
    }

    static func withWorld(_ body: @escaping @Sendable (World) async throws -> Void) async throws {
        let server = TestServer()
        defer { server.removeData() }
        let store = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
        try await server.run(store: store) { client in
            let accounts = Accounts(store: store, cost: 4, tokenLifetime: 3600, now: { Date() })
            for (id, email) in [("u_owner", "owner@example.org"), ("u_other", "other@example.org")] {
                try await store.insertUser(
                    UserRecord(
                        id: id, email: email, name: email, role: .presenter, passwordHash: try await accounts.hash("pw-\(id)"),
                        createdAt: Date()))
            }
            let owner = try await client.login(email: "owner@example.org", password: "pw-u_owner")
            let other = try await client.login(email: "other@example.org", password: "pw-u_other")
            let admin = try await client.login()
            // Other's own session: they are a presenter, just not of the sessions below.
            let othersDeck = try await client.readyDeck(
                TestServer.fixtures.appendingPathComponent("ghostscript-a4.pdf"), token: other)
            _ = try await client.startSession(deckId: othersDeck, token: other)
            let world = World(
                client: client, owner: owner, other: other, admin: admin, sessionDeck: try await client.readyDeck(token: owner),
                holderDeck: try await client.readyDeck(token: owner), waitingDeck: try await client.readyDeck(token: owner))
            try await body(world)
        }
        try await store.close()
    }

    static let audienceCookie = RoomTests.identity("audience")
    static let viewerCookie = RoomTests.identity("actor")
    static let holderCookie = RoomTests.identity("holder")
    static let waitingCookie = RoomTests.identity("waiting")

    /// A session or room made for one row: its code, what was made in it, a viewer who watches
    /// (to see that a refused command changed nothing), and every socket to close afterwards.
    struct Fixture {
        let code: String
        let made: Made
        let audience: TestSocket
        let sockets: [TestSocket]

        func close() async {
            for socket in sockets { await socket.close() }
        }
    }

    /// How many rows run at once, each on a session or room of its own: a row mostly waits for
    /// the server's answers, so a few side by side take a fraction of the time of one by one.
    static let rowsAtOnce = 4

    /// Runs `body` for every item, at most `width` at a time; returns how many ran.
    static func forEach<Item: Sendable>(
        _ items: [Item], width: Int = rowsAtOnce, _ body: @escaping @Sendable (Item) async throws -> Void
    ) async throws -> Int {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var ran = 0
            for item in items {
                if ran >= width { try await group.next() }
                group.addTask { try await body(item) }
                ran += 1
            }
            try await group.waitForAll()
            return ran
        }
    }

    @Test func sessionCommandsAnswerEachRoleAsTheRulesSay() async throws {
        try await Self.withWorld { world in
            let cases = Self.sessionTable.flatMap { row in SessionRole.allCases.map { (row, $0) } }
            let rows = try await Self.forEach(cases) { row, role in
                let expected = try #require(row.expected[role])
                let fixture = try await Self.session(world)
                let socket = try await world.client.socket(
                    code: fixture.code, headers: role == .viewer ? [.cookie: Self.viewerCookie] : [:])
                let token: String? =
                    switch role {
                    case .viewer: nil
                    case .presenter: world.owner
                    case .otherPresenter: world.other
                    case .admin: world.admin
                    }
                var hello: [String: Any] = ["role": role == .viewer ? "viewer" : "presenter"]
                if let token { hello["token"] = token }
                try await Self.check(
                    row.command, as: "\(role) in a session", hello: hello, expected: expected, on: socket, in: fixture)
                await socket.close()
                await fixture.close()
            }
            #expect(rows == Command.allCases.count * SessionRole.allCases.count)
        }
    }

    @Test func roomCommandsAnswerEachRoleAsTheRulesSay() async throws {
        try await Self.withWorld { world in
            let cases = Self.roomTable.flatMap { row in RoomRole.allCases.map { (row, $0) } }
            let rows = try await Self.forEach(cases) { row, role in
                let expected = try #require(row.expected[role])
                let fixture = try await Self.room(world, stage: row.stage)
                let cookie: String? =
                    switch role {
                    case .holder: Self.holderCookie
                    case .waiting: Self.waitingCookie
                    case .viewer: Self.viewerCookie
                    case .moderator, .admin, .otherPresenter: nil
                    }
                let socket = try await world.client.socket(code: fixture.code, headers: cookie.map { [.cookie: $0] } ?? [:])
                let hello: [String: Any] =
                    switch role {
                    case .moderator: ["role": "moderator", "token": world.owner]
                    case .holder: ["role": "presenter", "name": "Holder"]
                    case .waiting: ["role": "presenter", "name": "Waiting"]
                    case .viewer: ["role": "viewer"]
                    case .admin: ["role": "moderator", "token": world.admin]
                    case .otherPresenter: ["role": "moderator", "token": world.other]
                    }
                try await Self.check(
                    row.command, as: "\(role) in a room (\(row.stage))", hello: hello, expected: expected, on: socket,
                    in: fixture)
                await socket.close()
                await fixture.close()
            }
            #expect(rows == Command.allCases.count * RoomRole.allCases.count)
        }
    }

    /// Says hello, sends the command and a ping, and compares what came back before the pong.
    static func check(
        _ command: Command, as who: String, hello: [String: Any], expected: Outcome, on socket: TestSocket, in fixture: Fixture
    ) async throws {
        let welcome = try await socket.hello(hello)
        if case .helloRefused = expected {
            let refused = Outcome.helloRefused(welcome["code"] as? String ?? "welcome")
            #expect(refused == expected, "\(command) as \(who): \(refused), expected \(expected)")
            try await socket.waitForClose()
            try await fixture.audience.barrier()
            return
        }
        try #require(welcome["type"] as? String == "welcome", "\(who) could not join: \(welcome)")
        let id = "row-\(command)"
        try await socket.send(command.json(fixture.made, id: id))
        try await socket.send(#"{"type":"ping"}"#)
        var outcome = Outcome.silent
        var replayed: [Int] = []
        while let message = try await socket.nextDurable() {
            let type = message["type"] as? String
            if command == .ping, outcome == .silent, type == "pong" {
                outcome = .pong
                continue
            }
            if type == "pong" { break }
            if type == "error", message["id"] == nil || message["id"] as? String == id {
                outcome = .refused(message["code"] as? String ?? "?")
            } else if type == "ack", message["id"] as? String == id {
                outcome = .ack
            } else if command == .resync, let seq = message["seq"] as? Int {
                replayed.append(seq)
            }
        }
        if outcome == .silent, command == .resync, replayed.first == 1, replayed == Array(1...replayed.count) {
            outcome = .replay
        }
        if outcome == .silent, expected == .broadcast {
            // Ephemeral: no answer, but the audience sees it.
            _ = try await fixture.audience.next(ofType: command.rawValue)
            outcome = .broadcast
        }
        #expect(outcome == expected, "\(command) as \(who): \(outcome), expected \(expected)")
        if case .refused = expected {
            // A refused command changed nothing anyone was told about.
            try await fixture.audience.barrier()
        }
    }

    // MARK: - Fixtures

    /// Reads until the `ack` of this command id; fails on its `error`.
    static func acked(_ socket: TestSocket, _ id: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        while let message = try await socket.nextDurable() {
            if message["type"] as? String == "error" {
                Issue.record("fixture command \(id) refused: \(message)", sourceLocation: sourceLocation)
                return
            }
            if message["type"] as? String == "ack", message["id"] as? String == id { return }
        }
        Issue.record("socket closed before the ack of \(id)", sourceLocation: sourceLocation)
    }

    /// Opens an open-ended poll, has the audience answer it and ask a public question; returns
    /// the poll id and the answer id as the host sees them.
    static func pollAndQuestion(host: TestSocket, audience: TestSocket) async throws -> Made {
        var made = Made()
        try await host.send(#"{"type":"openPoll","id":"fx-poll","poll":{"kind":"open","question":"Why?"}}"#)
        let opened = try #require(try await host.next(ofType: "pollOpened"))
        made.pollId = try #require((opened["poll"] as? [String: Any])?["id"] as? Int)
        try await acked(host, "fx-poll")
        try await audience.send(#"{"type":"answer","id":"fx-answer","pollId":\#(made.pollId),"text":"Because"}"#)
        try await acked(audience, "fx-answer")
        while made.answerId.isEmpty {
            let results = try #require(try await host.next(ofType: "results"))
            made.answerId = (results["answers"] as? [[String: Any]])?.first?["answerId"] as? String ?? ""
        }
        try await audience.send(#"{"type":"ask","id":"fx-question","text":"And then?"}"#)
        try await acked(audience, "fx-question")
        made.questionId = "fx-question"
        return made
    }

    static let fixtureStroke =
        ##"{"type":"stroke","id":"fx-stroke","stroke":{"page":1,"tool":"pen","color":"#0000FF","width":0.01,"points":[[0.5,0.5,0.5],[0.6,0.6,0.5]]}}"##

    /// A fresh session with public questions, an open-ended poll with an answer, a question and a stroke.
    static func session(_ world: World) async throws -> Fixture {
        let response = try await world.client.request(
            .post, "/api/v1/sessions", token: world.owner,
            json: #"{"deckId":"\#(world.sessionDeck)","questions":{"public":true,"approval":false}}"#)
        let code = try #require(try response.object()["code"] as? String)
        let host = try await world.client.socket(code: code)
        #expect(try await host.hello(["role": "presenter", "token": world.owner])["type"] as? String == "welcome")
        let audience = try await world.client.socket(code: code, headers: [.cookie: audienceCookie])
        #expect(try await audience.hello(["role": "viewer", "name": "Ada"])["type"] as? String == "welcome")
        var made = try await pollAndQuestion(host: host, audience: audience)
        try await host.send(fixtureStroke)
        try await acked(host, "fx-stroke")
        made.strokeId = "fx-stroke"
        try await audience.drain()
        return Fixture(code: code, made: made, audience: audience, sockets: [host, audience])
    }

    /// A fresh room: two presenters who joined by name, each with a deck; the holder has control
    /// and their deck on stage; public questions, an open-ended poll with an answer, a question
    /// and the holder's stroke.
    static func room(_ world: World, stage: Stage) async throws -> Fixture {
        let response = try await world.client.request(.post, "/api/v1/rooms", token: world.owner, json: #"{"title":"Matrix"}"#)
        let code = try #require(try response.object()["code"] as? String)
        let moderator = try await world.client.socket(code: code)
        #expect(try await moderator.hello(["role": "moderator", "token": world.owner])["type"] as? String == "welcome")
        var presenterIds: [String] = []
        var presenters: [TestSocket] = []
        for (cookie, name, deck) in [
            (holderCookie, "Holder", world.holderDeck), (waitingCookie, "Waiting", world.waitingDeck),
        ] {
            let socket = try await world.client.socket(code: code, headers: [.cookie: cookie])
            let welcome = try await socket.hello(["role": "presenter", "name": name])
            presenterIds.append(try #require(welcome["presenterId"] as? String))
            presenters.append(socket)
            // The moderator brings a deck of their library as this presenter (signed in, from the presenter's browser).
            let added = try await world.client.request(
                .post, "/api/v1/sessions/\(code)/decks?as=presenter", token: world.owner,
                headers: [.cookie: cookie, HTTPField.Name("X-Podium-Request")!: "1"], json: #"{"deckId":"\#(deck)"}"#)
            #expect(added.status == .created, "\(String(buffer: added.body))")
        }
        let (holder, waiting) = (presenters[0], presenters[1])
        let audience = try await world.client.socket(code: code, headers: [.cookie: audienceCookie])
        #expect(try await audience.hello(["role": "viewer", "name": "Ada"])["type"] as? String == "welcome")
        try await moderator.send(#"{"type":"setQuestionMode","id":"fx-mode","questions":{"public":true,"approval":false}}"#)
        try await acked(moderator, "fx-mode")
        try await moderator.send(#"{"type":"grant","id":"fx-grant","presenterId":"\#(presenterIds[0])"}"#)
        try await acked(moderator, "fx-grant")
        var made = try await pollAndQuestion(host: moderator, audience: audience)
        try await holder.send(fixtureStroke)
        try await acked(holder, "fx-stroke")
        made.strokeId = "fx-stroke"
        made.holderDeck = world.holderDeck
        made.waitingPresenter = presenterIds[1]
        switch stage {
        case .standard: break
        case .queued:
            try await waiting.send(#"{"type":"request","id":"fx-request"}"#)
            try await acked(waiting, "fx-request")
        case .lent:
            try await holder.send(#"{"type":"pass","id":"fx-pass","presenterId":"\#(presenterIds[1])"}"#)
            try await acked(holder, "fx-pass")
        }
        try await audience.drain()
        return Fixture(code: code, made: made, audience: audience, sockets: [moderator, holder, waiting, audience])
    }
}

extension TestSocket {
    /// Skips whatever arrived so far: sends a ping and reads up to its pong.
    func drain() async throws {
        try await send(#"{"type":"ping"}"#)
        _ = try await next(ofType: "pong")
    }
}
