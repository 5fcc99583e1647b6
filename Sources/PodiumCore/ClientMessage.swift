/// A message from a client on the live socket, decoded from `{"type": ..., ...}`.
public enum ClientMessage: Sendable, Equatable {
    case hello(Hello)
    /// A command with the client's id for it: everything that changes the session, answers,
    /// questions and votes included, goes through the one pipeline.
    case command(id: String, SessionCommand)
    /// A laser-pointer move; nil hides the pointer.
    case pointer(PagePoint?)
    /// The ink stroke being drawn (ephemeral), or its end.
    case inking(InkingMessage)
    /// Send again every durable event after this seq.
    case resync(afterSeq: Int)
    /// Keeps the socket alive and samples the server's clock: `t` (any number of the client's,
    /// its clock when it sent the ping) comes back in the pong beside the server's time.
    case ping(t: Double?)
    /// A room's projector is buffering the video on stage (true), or can play again (false).
    case buffering(Bool)

    public struct Hello: Sendable, Equatable {
        public var role: Role
        public var name: String?
        public var passcode: String?
        public var token: String?
        public var lastSeq: Int?
        /// A viewer socket that is a room's projector (honoured for its moderator's browser only):
        /// the screen everyone waits for while it buffers a video.
        public var projector: Bool

        public init(
            role: Role, name: String? = nil, passcode: String? = nil, token: String? = nil, lastSeq: Int? = nil,
            projector: Bool = false
        ) {
            self.role = role
            self.name = name
            self.passcode = passcode
            self.token = token
            self.lastSeq = lastSeq
            self.projector = projector
        }
    }

    /// The client's id, for commands that carry one.
    public var commandID: String? {
        switch self {
        case .command(let id, _): id
        default: nil
        }
    }

    public static let maxIDLength = 64

    /// Whether `id` is a command id this socket takes: 1 to ``maxIDLength`` characters.
    public static func isValidID(_ id: String) -> Bool { !id.isEmpty && id.count <= maxIDLength }
    public static let maxNameLength = 60
}

extension ClientMessage: Codable {
    enum CodingKeys: String, CodingKey {
        case type, id, role, name, passcode, token, lastSeq, page, viewport, mode, locked, x, y, visible, afterSeq
        case poll, pollId, results, shown, answerId, choices, text, anonymous, questionId, answered, approved, up, questions
        case stroke, strokeId, tool, color, width, points, done
        case presenterId, on, cap, deckId, spotlight, videoId, action, position, rate, t, projector, buffering, seconds
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decode(String.self, forKey: .type)
        func commandID() throws -> String {
            let id = try c.decode(String.self, forKey: .id)
            guard Self.isValidID(id) else {
                throw DecodingError.dataCorruptedError(forKey: .id, in: c, debugDescription: "id must be 1 to 64 characters")
            }
            return id
        }
        switch type {
        case "hello":
            let lastSeq = try c.decodeIfPresent(Int.self, forKey: .lastSeq)
            if let lastSeq, lastSeq < 0 {
                throw DecodingError.dataCorruptedError(forKey: .lastSeq, in: c, debugDescription: "lastSeq must be >= 0")
            }
            self = .hello(
                Hello(
                    role: try c.decode(Role.self, forKey: .role),
                    name: try c.decodeIfPresent(String.self, forKey: .name).map { String($0.prefix(Self.maxNameLength)) },
                    passcode: try c.decodeIfPresent(String.self, forKey: .passcode),
                    token: try c.decodeIfPresent(String.self, forKey: .token),
                    lastSeq: lastSeq, projector: try c.decodeIfPresent(Bool.self, forKey: .projector) ?? false))
        case "goto":
            self = .command(id: try commandID(), .goto(page: try c.decode(Int.self, forKey: .page)))
        case "zoom":
            self = .command(id: try commandID(), .zoom(try c.decode(Viewport.self, forKey: .viewport)))
        case "blank":
            self = .command(id: try commandID(), .blank(try c.decode(BlankMode.self, forKey: .mode)))
        case "lock":
            self = .command(id: try commandID(), .lock(try c.decode(Bool.self, forKey: .locked)))
        case "end":
            self = .command(id: try commandID(), .end)
        case "openPoll":
            self = .command(id: try commandID(), .openPoll(try c.decode(Poll.self, forKey: .poll)))
        case "closePoll":
            self = .command(id: try commandID(), .closePoll(pollId: try c.decode(Int.self, forKey: .pollId)))
        case "revealPoll":
            self = .command(
                id: try commandID(),
                .revealPoll(
                    pollId: try c.decode(Int.self, forKey: .pollId),
                    results: try c.decodeIfPresent(Bool.self, forKey: .results) ?? false))
        case "showResults":
            self = .command(
                id: try commandID(),
                .showResults(pollId: try c.decode(Int.self, forKey: .pollId), shown: try c.decode(Bool.self, forKey: .shown)))
        case "shareAnswer":
            self = .command(
                id: try commandID(),
                .shareAnswer(
                    pollId: try c.decode(Int.self, forKey: .pollId), answerId: try c.decode(String.self, forKey: .answerId)))
        case "answer":
            let answer: PollAnswer
            if let text = try c.decodeIfPresent(String.self, forKey: .text) {
                answer = .text(text)
            } else {
                answer = .choices(try c.decode([Int].self, forKey: .choices))
            }
            self = .command(id: try commandID(), .answer(pollId: try c.decode(Int.self, forKey: .pollId), answer))
        case "ask":
            let id = try commandID()
            self = .command(
                id: id,
                .ask(
                    id: id, text: try c.decode(String.self, forKey: .text),
                    page: try c.decodeIfPresent(Int.self, forKey: .page),
                    anonymous: try c.decodeIfPresent(Bool.self, forKey: .anonymous) ?? false))
        case "markQuestion":
            self = .command(
                id: try commandID(),
                .markQuestion(
                    questionId: try c.decode(String.self, forKey: .questionId),
                    answered: try c.decodeIfPresent(Bool.self, forKey: .answered) ?? true))
        case "stroke":
            let id = try commandID()
            var stroke = try c.decode(Stroke.self, forKey: .stroke)
            stroke.id = id
            self = .command(id: id, .stroke(stroke))
        case "erase":
            self = .command(id: try commandID(), .erase(strokeId: try c.decode(String.self, forKey: .strokeId)))
        case "clearPage":
            self = .command(id: try commandID(), .clearPage(page: try c.decode(Int.self, forKey: .page)))
        case "inking":
            self = .inking(
                InkingMessage(
                    page: try c.decodeIfPresent(Int.self, forKey: .page),
                    tool: try c.decodeIfPresent(Stroke.Tool.self, forKey: .tool),
                    color: try c.decodeIfPresent(String.self, forKey: .color),
                    width: try c.decodeIfPresent(Double.self, forKey: .width),
                    points: try c.decodeIfPresent([[Double]].self, forKey: .points),
                    done: try c.decodeIfPresent(Bool.self, forKey: .done)))
        case "request", "cancelRequest", "grant", "handOverNext", "withdraw", "pass", "returnControl", "doNotDisturb",
            "setQueueCap", "setTalkLength", "showTalkTimer":
            self = .command(id: try commandID(), .room(try Self.decodeRoomCommand(type, c)))
        case "showDeck":
            self = .command(
                id: try commandID(),
                .showDeck(
                    deckId: try c.decode(String.self, forKey: .deckId), page: try c.decodeIfPresent(Int.self, forKey: .page)))
        case "setBackground":
            self = .command(id: try commandID(), .setBackground(try c.decode(String.self, forKey: .color)))
        case "setQuestionMode":
            self = .command(id: try commandID(), .setQuestionMode(try c.decode(QuestionMode.self, forKey: .questions)))
        case "approveQuestion":
            self = .command(
                id: try commandID(),
                .approveQuestion(
                    questionId: try c.decode(String.self, forKey: .questionId),
                    approved: try c.decodeIfPresent(Bool.self, forKey: .approved) ?? true))
        case "vote":
            self = .command(
                id: try commandID(),
                .vote(
                    questionId: try c.decode(String.self, forKey: .questionId),
                    up: try c.decodeIfPresent(Bool.self, forKey: .up) ?? true))
        case "spotlight":
            self = .command(id: try commandID(), .spotlight(try c.decodeIfPresent(Spotlight.self, forKey: .spotlight)))
        case "showJoinInfo":
            self = .command(id: try commandID(), .showJoinInfo(try c.decode(Bool.self, forKey: .on)))
        case "showVideo":
            // The server looks the video up and fills in what the library knows of it.
            let videoId = try c.decode(String.self, forKey: .videoId)
            guard !videoId.isEmpty, videoId.count <= Self.maxIDLength else {
                throw DecodingError.dataCorruptedError(
                    forKey: .videoId, in: c, debugDescription: "videoId must be 1 to 64 characters")
            }
            self = .command(id: try commandID(), .showVideo(VideoOnStage(id: videoId, duration: nil)))
        case "hideVideo":
            self = .command(id: try commandID(), .hideVideo)
        case "playback":
            self = .command(id: try commandID(), .playback(try Self.decodePlayback(c)))
        case "pointer":
            if try c.decodeIfPresent(Bool.self, forKey: .visible) == false {
                self = .pointer(nil)
            } else {
                self = .pointer(PagePoint(x: try c.decode(Double.self, forKey: .x), y: try c.decode(Double.self, forKey: .y)))
            }
        case "resync":
            self = .resync(afterSeq: max(0, try c.decode(Int.self, forKey: .afterSeq)))
        case "ping":
            self = .ping(t: try c.decodeIfPresent(Double.self, forKey: .t))
        case "buffering":
            self = .buffering(try c.decode(Bool.self, forKey: .buffering))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown message type \(type)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .hello(let hello):
            try c.encode("hello", forKey: .type)
            try c.encode(hello.role, forKey: .role)
            try c.encodeIfPresent(hello.name, forKey: .name)
            try c.encodeIfPresent(hello.passcode, forKey: .passcode)
            try c.encodeIfPresent(hello.token, forKey: .token)
            try c.encodeIfPresent(hello.lastSeq, forKey: .lastSeq)
            if hello.projector { try c.encode(true, forKey: .projector) }
        case .command(let id, let command):
            try c.encode(id, forKey: .id)
            switch command {
            case .goto(let page):
                try c.encode("goto", forKey: .type)
                try c.encode(page, forKey: .page)
            case .zoom(let viewport):
                try c.encode("zoom", forKey: .type)
                try c.encode(viewport, forKey: .viewport)
            case .blank(let mode):
                try c.encode("blank", forKey: .type)
                try c.encode(mode, forKey: .mode)
            case .lock(let locked):
                try c.encode("lock", forKey: .type)
                try c.encode(locked, forKey: .locked)
            case .end:
                try c.encode("end", forKey: .type)
            case .openPoll(let poll):
                try c.encode("openPoll", forKey: .type)
                try c.encode(poll, forKey: .poll)
            case .closePoll(let pollId):
                try c.encode("closePoll", forKey: .type)
                try c.encode(pollId, forKey: .pollId)
            case .revealPoll(let pollId, let results):
                try c.encode("revealPoll", forKey: .type)
                try c.encode(pollId, forKey: .pollId)
                try c.encode(results, forKey: .results)
            case .showResults(let pollId, let shown):
                try c.encode("showResults", forKey: .type)
                try c.encode(pollId, forKey: .pollId)
                try c.encode(shown, forKey: .shown)
            case .shareAnswer(let pollId, let answerId):
                try c.encode("shareAnswer", forKey: .type)
                try c.encode(pollId, forKey: .pollId)
                try c.encode(answerId, forKey: .answerId)
            case .setQuestionMode(let mode):
                try c.encode("setQuestionMode", forKey: .type)
                try c.encode(mode, forKey: .questions)
            case .stroke(let stroke):
                try c.encode("stroke", forKey: .type)
                try c.encode(stroke, forKey: .stroke)
            case .erase(let strokeId):
                try c.encode("erase", forKey: .type)
                try c.encode(strokeId, forKey: .strokeId)
            case .clearPage(let page):
                try c.encode("clearPage", forKey: .type)
                try c.encode(page, forKey: .page)
            case .room(let command):
                try Self.encode(command, into: &c)
            case .addDeck(let deck):
                // Not a socket message: decks join through REST. Encoded for logs and tests.
                try c.encode("addDeck", forKey: .type)
                try c.encode(deck.id, forKey: .deckId)
            case .showDeck(let deckId, let page):
                try c.encode("showDeck", forKey: .type)
                try c.encode(deckId, forKey: .deckId)
                try c.encodeIfPresent(page, forKey: .page)
            case .setBackground(let color):
                try c.encode("setBackground", forKey: .type)
                try c.encode(color, forKey: .color)
            case .answer(let pollId, let answer):
                try c.encode("answer", forKey: .type)
                try c.encode(pollId, forKey: .pollId)
                switch answer {
                case .choices(let choices): try c.encode(choices, forKey: .choices)
                case .text(let text): try c.encode(text, forKey: .text)
                }
            case .ask(_, let text, let page, let anonymous):
                try c.encode("ask", forKey: .type)
                try c.encode(text, forKey: .text)
                try c.encodeIfPresent(page, forKey: .page)
                try c.encode(anonymous, forKey: .anonymous)
            case .markQuestion(let questionId, let answered):
                try c.encode("markQuestion", forKey: .type)
                try c.encode(questionId, forKey: .questionId)
                try c.encode(answered, forKey: .answered)
            case .approveQuestion(let questionId, let approved):
                try c.encode("approveQuestion", forKey: .type)
                try c.encode(questionId, forKey: .questionId)
                try c.encode(approved, forKey: .approved)
            case .vote(let questionId, let up):
                try c.encode("vote", forKey: .type)
                try c.encode(questionId, forKey: .questionId)
                try c.encode(up, forKey: .up)
            case .spotlight(let spotlight):
                try c.encode("spotlight", forKey: .type)
                try c.encode(spotlight, forKey: .spotlight)
            case .showJoinInfo(let on):
                try c.encode("showJoinInfo", forKey: .type)
                try c.encode(on, forKey: .on)
            case .showVideo(let video):
                try c.encode("showVideo", forKey: .type)
                try c.encode(video.id, forKey: .videoId)
            case .hideVideo:
                try c.encode("hideVideo", forKey: .type)
            case .playback(let command):
                try c.encode("playback", forKey: .type)
                switch command {
                case .play: try c.encode("play", forKey: .action)
                case .pause: try c.encode("pause", forKey: .action)
                case .stop: try c.encode("stop", forKey: .action)
                case .seek(let position):
                    try c.encode("seek", forKey: .action)
                    try c.encode(position, forKey: .position)
                case .rate(let rate):
                    try c.encode("rate", forKey: .action)
                    try c.encode(rate, forKey: .rate)
                }
            }
        case .inking(let inking):
            try c.encode("inking", forKey: .type)
            try c.encodeIfPresent(inking.page, forKey: .page)
            try c.encodeIfPresent(inking.tool, forKey: .tool)
            try c.encodeIfPresent(inking.color, forKey: .color)
            try c.encodeIfPresent(inking.width, forKey: .width)
            try c.encodeIfPresent(inking.points, forKey: .points)
            try c.encodeIfPresent(inking.done, forKey: .done)
        case .pointer(let point):
            try c.encode("pointer", forKey: .type)
            if let point {
                try c.encode(point.x, forKey: .x)
                try c.encode(point.y, forKey: .y)
            } else {
                try c.encode(false, forKey: .visible)
            }
        case .resync(let afterSeq):
            try c.encode("resync", forKey: .type)
            try c.encode(afterSeq, forKey: .afterSeq)
        case .ping(let t):
            try c.encode("ping", forKey: .type)
            try c.encodeIfPresent(t, forKey: .t)
        case .buffering(let on):
            try c.encode("buffering", forKey: .type)
            try c.encode(on, forKey: .buffering)
        }
    }
}

extension ClientMessage {
    fileprivate static func decodePlayback(_ c: KeyedDecodingContainer<CodingKeys>) throws -> PlaybackCommand {
        switch try c.decode(String.self, forKey: .action) {
        case "play": .play
        case "pause": .pause
        case "stop": .stop
        case "seek": .seek(try c.decode(Double.self, forKey: .position))
        case "rate": .rate(try c.decode(Double.self, forKey: .rate))
        case let action:
            throw DecodingError.dataCorruptedError(
                forKey: .action, in: c, debugDescription: "unknown playback action \(action)")
        }
    }

    fileprivate static func decodeRoomCommand(_ type: String, _ c: KeyedDecodingContainer<CodingKeys>) throws -> RoomCommand {
        switch type {
        case "request": .request
        case "cancelRequest": .cancelRequest
        case "grant": .grant(presenterId: try c.decode(String.self, forKey: .presenterId))
        case "handOverNext": .handOverNext
        case "withdraw": .withdraw
        case "pass": .pass(presenterId: try c.decode(String.self, forKey: .presenterId))
        case "returnControl": .returnControl
        case "doNotDisturb": .doNotDisturb(try c.decode(Bool.self, forKey: .on))
        case "setTalkLength":
            .setTalkLength(
                presenterId: try c.decodeIfPresent(String.self, forKey: .presenterId),
                seconds: try c.decodeIfPresent(Int.self, forKey: .seconds))
        case "showTalkTimer": .showTalkTimer(try c.decode(Bool.self, forKey: .on))
        default: .setQueueCap(try c.decodeIfPresent(Int.self, forKey: .cap))
        }
    }

    fileprivate static func encode(_ command: RoomCommand, into c: inout KeyedEncodingContainer<CodingKeys>) throws {
        switch command {
        case .join(let name):
            // Not a socket message: presenters join with hello. Encoded for logs and tests.
            try c.encode("join", forKey: .type)
            try c.encode(name, forKey: .name)
        case .request: try c.encode("request", forKey: .type)
        case .cancelRequest: try c.encode("cancelRequest", forKey: .type)
        case .grant(let presenterId):
            try c.encode("grant", forKey: .type)
            try c.encode(presenterId, forKey: .presenterId)
        case .handOverNext: try c.encode("handOverNext", forKey: .type)
        case .withdraw: try c.encode("withdraw", forKey: .type)
        case .pass(let presenterId):
            try c.encode("pass", forKey: .type)
            try c.encode(presenterId, forKey: .presenterId)
        case .returnControl: try c.encode("returnControl", forKey: .type)
        case .doNotDisturb(let on):
            try c.encode("doNotDisturb", forKey: .type)
            try c.encode(on, forKey: .on)
        case .setQueueCap(let cap):
            try c.encode("setQueueCap", forKey: .type)
            try c.encode(cap, forKey: .cap)
        case .setTalkLength(let presenterId, let seconds):
            try c.encode("setTalkLength", forKey: .type)
            try c.encode(presenterId, forKey: .presenterId)
            try c.encode(seconds, forKey: .seconds)
        case .showTalkTimer(let on):
            try c.encode("showTalkTimer", forKey: .type)
            try c.encode(on, forKey: .on)
        }
    }
}
