/// A durable change to a live session. Stored before it is sent; applied by every client in
/// `seq` order exactly once.
public enum SessionChange: Sendable, Equatable {
    /// The presenter shows this page (from 1); the viewport is the whole page again.
    case page(Int)
    /// The presenter shows this rectangle of the current page.
    case zoom(Viewport)
    case blank(BlankMode)
    /// Viewers follow the presenter (true) or may browse alone (false).
    case lock(Bool)
    /// The session is over; viewers may keep reading.
    case ended
    /// A poll opens; its `id` is the `seq` of this event.
    case pollOpened(Poll)
    case pollClosed(pollId: Int)
    /// The right answer is shown to everyone; `results` also shows the chart.
    case pollRevealed(pollId: Int, correct: [Int], results: Bool)
    /// A poll's results are shown on every viewer's device (true) or hidden from them again.
    case resultsShown(pollId: Int, shown: Bool)
    /// An open-ended answer the presenter shows to everyone.
    case answerShared(pollId: Int, SharedAnswer)
    /// Whether questions are public, and whether they need approval first.
    case questionMode(QuestionMode)
    /// Ink: a committed stroke, one removed, or every stroke of a page removed.
    case stroke(Stroke)
    case erased(strokeId: String)
    /// Every stroke of a page removed; in a room, of that page of this deck.
    case pageCleared(page: Int, deck: String?)
    /// Rooms: control changed (at: seconds since 1970, when the server decided it).
    case room(RoomChange, at: Double)
    case deckAdded(RoomDeck)
    /// Rooms: the stage shows this deck at this page.
    case deckShown(deck: String, page: Int)
    case background(String)
    /// What is on screen over the stage for everyone (nil: nothing).
    case spotlight(Spotlight?)
    /// The big screens show how to join (the code and the link's QR code), or no longer do.
    case joinInfo(Bool)
    /// The presenter records the session for its replay (the pointer's side log, the voice), or
    /// no longer does.
    case recording(Bool)
    /// The video on the stage and where it is (nil: no video, the page shows).
    case playback(Playback?)
}

/// A ``SessionChange`` with its place in the session's history.
///
/// On the wire it is one flat object: `{"type":"page","seq":4,"page":2}`.
public struct SessionEvent: Sendable, Equatable, Codable {
    public let seq: Int
    public let change: SessionChange

    public init(seq: Int, change: SessionChange) {
        self.seq = seq
        self.change = change
    }

    enum CodingKeys: String, CodingKey {
        case type, seq, page, viewport, mode, locked, poll, pollId, correct, results, shown, answerId, text, questions, stroke,
            strokeId
        case deck, at, presenterId, name, active, lender, moderator, on, cap, color, spotlight, playback, seconds
    }

    public var type: String {
        switch change {
        case .page: "page"
        case .zoom: "zoom"
        case .blank: "blank"
        case .lock: "lock"
        case .ended: "ended"
        case .pollOpened: "pollOpened"
        case .pollClosed: "pollClosed"
        case .pollRevealed: "pollRevealed"
        case .resultsShown: "resultsShown"
        case .answerShared: "answerShared"
        case .questionMode: "questionMode"
        case .stroke: "stroke"
        case .erased: "erased"
        case .pageCleared: "pageCleared"
        case .room(let change, _):
            switch change {
            case .presenterJoined: "presenterJoined"
            case .requested: "requested"
            case .requestCancelled: "requestCancelled"
            case .control: "control"
            case .doNotDisturb: "doNotDisturb"
            case .queueCap: "queueCap"
            case .talkLength: "talkLength"
            case .talkTimerShown: "talkTimerShown"
            }
        case .deckAdded: "deckAdded"
        case .deckShown: "deckShown"
        case .background: "background"
        case .spotlight: "spotlight"
        case .joinInfo: "joinInfo"
        case .recording: "recording"
        case .playback: "playback"
        }
    }

    /// The event as viewers may see it: a poll's right answer stays hidden until revealed.
    public var forViewers: SessionEvent {
        guard case .pollOpened(let poll) = change else { return self }
        return SessionEvent(seq: seq, change: .pollOpened(poll.forViewers(revealed: false)))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(seq, forKey: .seq)
        switch change {
        case .page(let page): try container.encode(page, forKey: .page)
        case .zoom(let viewport): try container.encode(viewport, forKey: .viewport)
        case .blank(let mode): try container.encode(mode, forKey: .mode)
        case .lock(let locked): try container.encode(locked, forKey: .locked)
        case .ended: break
        case .pollOpened(let poll): try container.encode(poll, forKey: .poll)
        case .pollClosed(let pollId): try container.encode(pollId, forKey: .pollId)
        case .pollRevealed(let pollId, let correct, let results):
            try container.encode(pollId, forKey: .pollId)
            try container.encode(correct, forKey: .correct)
            try container.encode(results, forKey: .results)
        case .resultsShown(let pollId, let shown):
            try container.encode(pollId, forKey: .pollId)
            try container.encode(shown, forKey: .shown)
        case .answerShared(let pollId, let answer):
            try container.encode(pollId, forKey: .pollId)
            try container.encode(answer.answerId, forKey: .answerId)
            try container.encode(answer.text, forKey: .text)
        case .questionMode(let mode): try container.encode(mode, forKey: .questions)
        case .stroke(let stroke): try container.encode(stroke, forKey: .stroke)
        case .erased(let strokeId): try container.encode(strokeId, forKey: .strokeId)
        case .pageCleared(let page, let deck):
            try container.encode(page, forKey: .page)
            try container.encodeIfPresent(deck, forKey: .deck)
        case .room(let change, let at):
            try container.encode(at, forKey: .at)
            switch change {
            case .presenterJoined(let id, let name):
                try container.encode(id, forKey: .presenterId)
                try container.encode(name, forKey: .name)
            case .requested(let id), .requestCancelled(let id):
                try container.encode(id, forKey: .presenterId)
            case .control(let active, let lender):
                // Explicit nulls: "nobody" is information here.
                try container.encode(active, forKey: .active)
                try container.encode(lender, forKey: .lender)
            case .doNotDisturb(let moderator, let on):
                try container.encode(moderator, forKey: .moderator)
                try container.encode(on, forKey: .on)
            case .queueCap(let cap):
                try container.encode(cap, forKey: .cap)
            case .talkLength(let presenterId, let seconds):
                // Explicit nulls: "the room's default" and "no length" are information.
                try container.encode(presenterId, forKey: .presenterId)
                try container.encode(seconds, forKey: .seconds)
            case .talkTimerShown(let on):
                try container.encode(on, forKey: .on)
            }
        case .deckAdded(let deck): try container.encode(deck, forKey: .deck)
        case .deckShown(let deck, let page):
            try container.encode(deck, forKey: .deck)
            try container.encode(page, forKey: .page)
        case .background(let color): try container.encode(color, forKey: .color)
        // An explicit null: "nothing on screen" is information here.
        case .spotlight(let spotlight): try container.encode(spotlight, forKey: .spotlight)
        case .joinInfo(let on): try container.encode(on, forKey: .on)
        case .recording(let on): try container.encode(on, forKey: .on)
        // An explicit null: "no video" is information here.
        case .playback(let playback): try container.encode(playback, forKey: .playback)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decode(Int.self, forKey: .seq)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "page": change = .page(try container.decode(Int.self, forKey: .page))
        case "zoom": change = .zoom(try container.decode(Viewport.self, forKey: .viewport))
        case "blank": change = .blank(try container.decode(BlankMode.self, forKey: .mode))
        case "lock": change = .lock(try container.decode(Bool.self, forKey: .locked))
        case "ended": change = .ended
        case "pollOpened": change = .pollOpened(try container.decode(Poll.self, forKey: .poll))
        case "pollClosed": change = .pollClosed(pollId: try container.decode(Int.self, forKey: .pollId))
        case "pollRevealed":
            change = .pollRevealed(
                pollId: try container.decode(Int.self, forKey: .pollId),
                correct: try container.decode([Int].self, forKey: .correct),
                results: try container.decode(Bool.self, forKey: .results))
        case "resultsShown":
            change = .resultsShown(
                pollId: try container.decode(Int.self, forKey: .pollId), shown: try container.decode(Bool.self, forKey: .shown))
        case "answerShared":
            change = .answerShared(
                pollId: try container.decode(Int.self, forKey: .pollId),
                SharedAnswer(
                    answerId: try container.decode(String.self, forKey: .answerId),
                    text: try container.decode(String.self, forKey: .text)))
        case "questionMode": change = .questionMode(try container.decode(QuestionMode.self, forKey: .questions))
        case "stroke": change = .stroke(try container.decode(Stroke.self, forKey: .stroke))
        case "erased": change = .erased(strokeId: try container.decode(String.self, forKey: .strokeId))
        case "pageCleared":
            change = .pageCleared(
                page: try container.decode(Int.self, forKey: .page),
                deck: try container.decodeIfPresent(String.self, forKey: .deck))
        case "presenterJoined", "requested", "requestCancelled", "control", "doNotDisturb", "queueCap", "talkLength",
            "talkTimerShown":
            change = .room(try Self.decodeRoomChange(type, container), at: try container.decode(Double.self, forKey: .at))
        case "deckAdded": change = .deckAdded(try container.decode(RoomDeck.self, forKey: .deck))
        case "deckShown":
            change = .deckShown(
                deck: try container.decode(String.self, forKey: .deck), page: try container.decode(Int.self, forKey: .page))
        case "background": change = .background(try container.decode(String.self, forKey: .color))
        case "spotlight": change = .spotlight(try container.decodeIfPresent(Spotlight.self, forKey: .spotlight))
        case "joinInfo": change = .joinInfo(try container.decode(Bool.self, forKey: .on))
        case "recording": change = .recording(try container.decode(Bool.self, forKey: .on))
        case "playback": change = .playback(try container.decodeIfPresent(Playback.self, forKey: .playback))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "unknown event type \(type)")
        }
    }
}

extension SessionEvent {
    fileprivate static func decodeRoomChange(_ type: String, _ container: KeyedDecodingContainer<CodingKeys>) throws -> RoomChange
    {
        switch type {
        case "presenterJoined":
            .presenterJoined(
                id: try container.decode(String.self, forKey: .presenterId),
                name: try container.decode(String.self, forKey: .name))
        case "requested": .requested(presenterId: try container.decode(String.self, forKey: .presenterId))
        case "requestCancelled": .requestCancelled(presenterId: try container.decode(String.self, forKey: .presenterId))
        case "control":
            .control(
                active: try container.decodeIfPresent(String.self, forKey: .active),
                lender: try container.decodeIfPresent(String.self, forKey: .lender))
        case "doNotDisturb":
            .doNotDisturb(
                moderator: try container.decode(Bool.self, forKey: .moderator), on: try container.decode(Bool.self, forKey: .on))
        case "talkLength":
            .talkLength(
                presenterId: try container.decodeIfPresent(String.self, forKey: .presenterId),
                seconds: try container.decodeIfPresent(Int.self, forKey: .seconds))
        case "talkTimerShown": .talkTimerShown(try container.decode(Bool.self, forKey: .on))
        default: .queueCap(try container.decodeIfPresent(Int.self, forKey: .cap))
        }
    }
}

/// Everything a client needs to show the session as it is after `seq`.
public struct SessionSnapshot: Codable, Sendable, Equatable {
    public var page: Int
    public var viewport: Viewport
    public var blank: BlankMode
    public var locked: Bool
    public var ended: Bool
    /// Every poll of the session, oldest first.
    public var polls: [PollSnapshot]
    public var questionMode: QuestionMode
    /// Every committed ink stroke, oldest first.
    public var strokes: [Stroke]
    /// Rooms only: control, decks and the stage. Absent for a session of one deck.
    public var room: RoomSnapshot?
    /// What the host put on screen over the stage; absent when nothing is.
    public var spotlight: Spotlight?
    /// The video on the stage, over the deck's page; absent when none is.
    public var playback: Playback?
    /// True while the host shows how to join on the big screens; absent otherwise.
    public var joinInfo: Bool?
    /// True while the presenter records the session for its replay; false until first set and
    /// after the end.
    public var recording = false

    public init(
        page: Int = 1, viewport: Viewport = .fullPage, blank: BlankMode = .none, locked: Bool = true, ended: Bool = false,
        polls: [PollSnapshot] = [], questionMode: QuestionMode = QuestionMode(), strokes: [Stroke] = [],
        room: RoomSnapshot? = nil
    ) {
        self.room = room
        self.strokes = strokes
        self.questionMode = questionMode
        self.page = page
        self.viewport = viewport
        self.blank = blank
        self.locked = locked
        self.ended = ended
        self.polls = polls
    }

    /// The poll that takes answers now, if any.
    public var openPoll: PollSnapshot? { polls.last { $0.status == .open } }

    public func poll(_ id: Int) -> PollSnapshot? { polls.first { $0.poll.id == id } }

    /// The snapshot as viewers may see it.
    public var forViewers: SessionSnapshot {
        var copy = self
        copy.polls = polls.map(\.forViewers)
        return copy
    }

    /// The one place where an event changes the state: the server and every client agree on it.
    public mutating func apply(_ change: SessionChange) {
        switch change {
        case .page(let page):
            self.page = page
            viewport = .fullPage
            if let deck = room?.deck { room?.show(deck: deck, page: page) }
        case .zoom(let viewport):
            self.viewport = viewport
        case .blank(let mode):
            blank = mode
        case .lock(let locked):
            self.locked = locked
        case .ended:
            ended = true
            // Ending unlocks so viewers can finish reading at their own pace.
            locked = false
            blank = .none
            spotlight = nil
            playback = nil
            joinInfo = nil
            recording = false
            updatePolls(where: { $0.status == .open }) { $0.status = .closed }
        case .pollOpened(let poll):
            updatePolls(where: { $0.status == .open }) { $0.status = .closed }
            polls.append(PollSnapshot(poll: poll))
        case .pollClosed(let pollId):
            updatePolls(where: { $0.poll.id == pollId }) { $0.status = .closed }
        case .pollRevealed(let pollId, let correct, let results):
            updatePolls(where: { $0.poll.id == pollId }) { snapshot in
                snapshot.status = .revealed
                snapshot.poll.correct = correct
                snapshot.resultsRevealed = snapshot.resultsRevealed || results
            }
        case .resultsShown(let pollId, let shown):
            // One state for where the results are: shown live on every device, or hidden again.
            updatePolls(where: { $0.poll.id == pollId }) { snapshot in
                snapshot.poll.showResults = shown
                if !shown { snapshot.resultsRevealed = false }
            }
        case .answerShared(let pollId, let answer):
            updatePolls(where: { $0.poll.id == pollId }) { $0.shared.append(answer) }
        case .questionMode(let mode):
            questionMode = mode
        case .stroke(let stroke):
            strokes.append(stroke)
        case .erased(let strokeId):
            strokes.removeAll { $0.id == strokeId }
        case .pageCleared(let page, let deck):
            strokes.removeAll { $0.page == page && $0.deck == deck }
        case .room(let change, let at):
            // The talk that ran until a control change keeps its time (before control moves on).
            if case .control = change { room?.controlChanged(at: at) }
            room?.control.apply(change)
            room?.apply(talk: change)
        case .deckAdded(let deck):
            room?.decks.append(deck)
        case .deckShown(let deck, let page):
            room?.show(deck: deck, page: page)
            self.page = page
            viewport = .fullPage
        case .background(let color):
            room?.background = color
        case .spotlight(let spotlight):
            self.spotlight = spotlight
        case .joinInfo(let on):
            joinInfo = on ? true : nil
        case .recording(let on):
            recording = on
        case .playback(let playback):
            self.playback = playback
        }
    }

    private mutating func updatePolls(where matches: (PollSnapshot) -> Bool, _ change: (inout PollSnapshot) -> Void) {
        for index in polls.indices where matches(polls[index]) { change(&polls[index]) }
    }
}
