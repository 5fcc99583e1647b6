/// A deck brought into a room, with what every screen needs to show it.
public struct RoomDeck: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    /// The presenter who brought it; nil: the moderator.
    public var owner: String?
    public var pages: [PageInfo]
    /// The page it was last shown at, so showing it again resumes there.
    public var page: Int

    public init(id: String, title: String, owner: String?, pages: [PageInfo], page: Int = 1) {
        self.id = id
        self.title = title
        self.owner = owner
        self.pages = pages
        self.page = page
    }

    public var pageCount: Int { pages.count }

    enum CodingKeys: String, CodingKey { case id, title, owner, pages, page }

    /// `owner` is sent as `null` for the moderator's decks, as docs/protocol.md shows.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(owner, forKey: .owner)
        try container.encode(pages, forKey: .pages)
        try container.encode(page, forKey: .page)
    }
}

/// A page of a room's deck, as the export lists it.
public struct ShownPage: Codable, Sendable, Equatable, Hashable {
    public var deck: String
    public var page: Int

    public init(deck: String, page: Int) {
        self.deck = deck
        self.page = page
    }
}

/// The talks of a room: how long each may last, and how long each presenter has had the stage.
///
/// A talk is a presenter's time on stage. It runs while they hold control in their own right and
/// while they have lent it (a question, a demo: the borrower speaks in the lender's time), and it
/// adds up across lends and turns instead of starting again at every control change.
public struct RoomTalks: Codable, Sendable, Equatable {
    /// The length of a talk for presenters without one of their own (seconds; nil: no countdown).
    public var defaultLength: Int?
    /// Presenters' own talk lengths (seconds), by presenter id.
    public var lengths: [String: Int] = [:]
    /// The time on stage of each presenter's talk before the running stretch (seconds), by presenter id.
    public var used: [String: Double] = [:]
    /// Whether the projector shows the countdown of the talk on stage.
    public var onProjector = false

    /// The longest talk: 12 hours.
    public static let maxLength = 12 * 3600
    /// The countdown warns the speaker when this little is left (seconds): 2 minutes, then 30 seconds.
    public static let warnings = [120, 30]

    public init() {}

    enum CodingKeys: String, CodingKey { case defaultLength, lengths, used, onProjector }

    /// Explicit nulls: "no default length" is information, as docs/protocol.md shows.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(defaultLength, forKey: .defaultLength)
        try container.encode(lengths, forKey: .lengths)
        try container.encode(used, forKey: .used)
        try container.encode(onProjector, forKey: .onProjector)
    }

    /// The length of a presenter's talk (theirs, else the default), or the default's own with nil.
    public func length(of presenter: String?) -> Int? {
        guard let presenter else { return defaultLength }
        return lengths[presenter] ?? defaultLength
    }
}

/// Where the talk on stage stands at an instant: what the speaker, the moderator and (when the
/// chair wants) the projector show.
public struct TalkClock: Sendable, Equatable {
    public enum Phase: String, Sendable, Equatable {
        /// More than the first warning left, or no length set.
        case running
        /// Two minutes or less left.
        case warning
        /// Thirty seconds or less left.
        case closing
        /// Over time.
        case over
    }

    /// Whose talk it is: the presenter in control, or the one who lent it.
    public var presenter: String
    /// Time on stage of this talk, across lends and turns (seconds).
    public var elapsed: Double
    /// The talk's length (seconds), nil when none is set.
    public var length: Int?

    /// Seconds left (negative: over time), nil without a length.
    public var remaining: Double? { length.map { Double($0) - elapsed } }

    public var phase: Phase {
        guard let remaining else { return .running }
        if remaining < 0 { return .over }
        if remaining <= Double(RoomTalks.warnings[1]) { return .closing }
        if remaining <= Double(RoomTalks.warnings[0]) { return .warning }
        return .running
    }
}

/// What a room adds to a session's snapshot: control, decks and the stage.
public struct RoomSnapshot: Codable, Sendable, Equatable {
    public var control = RoomControl()
    /// When control last changed hands (seconds since 1970), for the time-on-stage timer.
    public var controlSince: Double?
    public var decks: [RoomDeck] = []
    /// The deck on the stage (the projector); nil: idle, the projector shows how to join.
    public var deck: String?
    /// Every page shown, in the order first shown: what the session export holds.
    public var shown: [ShownPage] = []
    /// The projector's colour around a slide of another aspect ratio.
    public var background = "#000000"
    /// Talk lengths, each presenter's time on stage, and whether the projector shows the countdown.
    public var talks = RoomTalks()

    public init() {}

    enum CodingKeys: String, CodingKey { case control, controlSince, deck, decks, shown, background, talks }

    /// Explicit nulls (no control change yet, nothing on the stage), as docs/protocol.md shows.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(control, forKey: .control)
        try container.encode(controlSince, forKey: .controlSince)
        try container.encode(decks, forKey: .decks)
        try container.encode(deck, forKey: .deck)
        try container.encode(shown, forKey: .shown)
        try container.encode(background, forKey: .background)
        try container.encode(talks, forKey: .talks)
    }

    /// Older snapshots (stored before talks existed) have none: a room without lengths.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        control = try container.decode(RoomControl.self, forKey: .control)
        controlSince = try container.decodeIfPresent(Double.self, forKey: .controlSince)
        decks = try container.decode([RoomDeck].self, forKey: .decks)
        deck = try container.decodeIfPresent(String.self, forKey: .deck)
        shown = try container.decode([ShownPage].self, forKey: .shown)
        background = try container.decode(String.self, forKey: .background)
        talks = try container.decodeIfPresent(RoomTalks.self, forKey: .talks) ?? RoomTalks()
    }

    /// Whose talk runs now: the presenter in control in their own right, or the one who lent it
    /// (nil: the moderator's stage, no talk).
    public var talkOnStage: String? { control.lender ?? control.active }

    /// The talk on stage at `now` (seconds since 1970), nil while the moderator has the stage.
    public func talkClock(at now: Double) -> TalkClock? {
        guard let presenter = talkOnStage else { return nil }
        let running = controlSince.map { max(0, now - $0) } ?? 0
        return TalkClock(
            presenter: presenter, elapsed: talks.used[presenter, default: 0] + running, length: talks.length(of: presenter))
    }

    /// A presenter's time on stage at `now`, the running stretch included when their talk is on.
    public func timeOnStage(of presenter: String, at now: Double) -> Double {
        if talkOnStage == presenter, let clock = talkClock(at: now) { return clock.elapsed }
        return talks.used[presenter, default: 0]
    }

    /// Control changes hands at `time`: the talk that ran until now keeps its time.
    mutating func controlChanged(at time: Double) {
        if let presenter = talkOnStage, let controlSince {
            talks.used[presenter, default: 0] += max(0, time - controlSince)
        }
        controlSince = time
    }

    mutating func apply(talk change: RoomChange) {
        switch change {
        case .talkLength(let presenter?, let seconds): talks.lengths[presenter] = seconds
        case .talkLength(nil, let seconds): talks.defaultLength = seconds
        case .talkTimerShown(let on): talks.onProjector = on
        default: break
        }
    }

    public static let maxDecks = 40

    public func deck(_ id: String) -> RoomDeck? { decks.first { $0.id == id } }
    public var currentDeck: RoomDeck? { deck.flatMap(deck(_:)) }

    mutating func show(deck id: String, page: Int) {
        deck = id
        if let index = decks.firstIndex(where: { $0.id == id }) { decks[index].page = page }
        let shownPage = ShownPage(deck: id, page: page)
        if !shown.contains(shownPage) { shown.append(shownPage) }
    }
}

extension RoomCommand: FeatureCommand {
    /// `join` and `addDeck` are not among them: a presenter joins with hello, a deck over REST.
    public static let wireTypes = [
        "request", "cancelRequest", "grant", "handOverNext", "withdraw", "pass", "returnControl", "doNotDisturb",
        "setQueueCap", "setTalkLength", "showTalkTimer", "showDeck", "setBackground",
    ]

    enum Keys: String, CodingKey { case type, name, presenterId, on, cap, seconds, deckId, page, color }

    public init(wireType type: String, id: String, from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        switch type {
        case "request": self = .request
        case "cancelRequest": self = .cancelRequest
        case "grant": self = .grant(presenterId: try c.decode(String.self, forKey: .presenterId))
        case "handOverNext": self = .handOverNext
        case "withdraw": self = .withdraw
        case "pass": self = .pass(presenterId: try c.decode(String.self, forKey: .presenterId))
        case "returnControl": self = .returnControl
        case "doNotDisturb": self = .doNotDisturb(try c.decode(Bool.self, forKey: .on))
        case "setTalkLength":
            self = .setTalkLength(
                presenterId: try c.decodeIfPresent(String.self, forKey: .presenterId),
                seconds: try c.decodeIfPresent(Int.self, forKey: .seconds))
        case "showTalkTimer": self = .showTalkTimer(try c.decode(Bool.self, forKey: .on))
        case "showDeck":
            self = .showDeck(
                deckId: try c.decode(String.self, forKey: .deckId), page: try c.decodeIfPresent(Int.self, forKey: .page))
        case "setBackground": self = .setBackground(try c.decode(String.self, forKey: .color))
        default: self = .setQueueCap(try c.decodeIfPresent(Int.self, forKey: .cap))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        switch self {
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
        }
    }

    public var sessionCommand: SessionCommand { .room(self) }
}

extension SessionCommand {
    public static func addDeck(_ deck: RoomDeck) -> Self { .room(.addDeck(deck)) }
    public static func showDeck(deckId: String, page: Int?) -> Self { .room(.showDeck(deckId: deckId, page: page)) }
    public static func setBackground(_ color: String) -> Self { .room(.setBackground(color)) }
}

/// Who had a room's stage when: every control change with its time, as the events say. Kept by
/// the state (not sent: clients have the events), so a question knows whose turn it came in.
public struct RoomTurns: Sendable, Equatable {
    /// Control changes in order: from `since` (seconds since 1970), `presenter` had the stage (nil:
    /// the moderator).
    public private(set) var changes: [(presenter: String?, since: Double)] = []

    public init() {}

    mutating func record(_ change: SessionChange) {
        guard case .room(.control(let active, _), let at) = change else { return }
        changes.append((active, at))
    }

    /// The presenter who had the stage at `time` (nil: the moderator, or before any hand-over).
    public func presenter(at time: Double) -> String? {
        changes.last { $0.since <= time }?.presenter ?? nil
    }

    public static func == (lhs: RoomTurns, rhs: RoomTurns) -> Bool {
        lhs.changes.elementsEqual(rhs.changes) { $0.presenter == $1.presenter && $0.since == $1.since }
    }
}

/// What a room's commands change, besides control.
extension SessionState {
    /// Whether this participant drives the stage now: pages, zoom, pointer, ink.
    /// In a session, the presenter; in a room, whoever holds control (the moderator when nobody does).
    public func drives(_ role: Role, presenterId: String?) -> Bool {
        guard let room = snapshot.room else { return role == .presenter }
        switch role {
        case .moderator: return room.control.active == nil
        case .presenter: return presenterId != nil && room.control.active == presenterId
        case .viewer: return false
        }
    }

    /// Whether this participant runs the session: polls, questions, lock, end. In a room, the moderator.
    public func isHost(_ role: Role) -> Bool {
        snapshot.room == nil ? role == .presenter : role == .moderator
    }

    /// Whether this participant sees what the audience may not (a poll's answer before the
    /// reveal, the results, the viewer list, questions): the host, and in a room every presenter.
    public func seesHostViews(_ role: Role) -> Bool {
        isHost(role) || (snapshot.room != nil && role == .presenter)
    }

    /// Who may open, close and reveal polls: the host; in a room also the presenter in control.
    public func runsPolls(_ role: Role, presenterId: String?) -> Bool {
        isHost(role) || (snapshot.room != nil && role == .presenter && drives(role, presenterId: presenterId))
    }

    /// The questions this participant sees: the host all of them; a room's presenter those asked
    /// while they had the stage; viewers none (they see the public list).
    public func questions(visibleTo role: Role, presenterId: String?) -> [AudienceQuestion] {
        if isHost(role) { return questions.all }
        guard snapshot.room != nil, role == .presenter, let presenterId else { return [] }
        return questions.all.filter { $0.presenter == presenterId }
    }

    /// Who may mark or approve a question: the host; a room's presenter the questions of their turns.
    func handlesQuestion(_ id: String, role: Role, presenterId: String?) -> Bool {
        if isHost(role) { return true }
        guard snapshot.room != nil, role == .presenter, let presenterId else { return false }
        return questions.question(id)?.presenter == presenterId
    }

    /// Decides a room's command: control, decks, the projector. Each command checks its own rules
    /// (who may, the session not ended).
    func decide(_ command: RoomCommand, by actor: Actor, at time: Double) throws(SessionError) -> FeatureDecision {
        FeatureDecision(changes: try decideRoom(command, by: actor.role, presenterId: actor.presenterId, at: time))
    }

    private func decideRoom(_ command: RoomCommand, by role: Role, presenterId: String?, at time: Double)
        throws(SessionError) -> [SessionChange]
    {
        guard let room = snapshot.room else { throw .notARoom }
        switch command {
        case .join, .request, .cancelRequest, .grant, .handOverNext, .withdraw, .pass, .returnControl, .doNotDisturb,
            .setQueueCap, .setTalkLength, .showTalkTimer:
            let actor: RoomActor
            switch role {
            case .moderator: actor = .moderator
            case .presenter:
                guard let presenterId else { throw .forbidden }
                actor = .presenter(presenterId)
            case .viewer: throw .forbidden
            }
            guard !snapshot.ended else { throw .ended }
            var control = room.control
            var changes = try control.handle(command, by: actor)
            // Setting a talk's length or the projector's countdown as it is changes nothing.
            changes.removeAll { change in
                switch change {
                case .talkLength(let presenter?, let seconds): room.talks.lengths[presenter] == seconds
                case .talkLength(nil, let seconds): room.talks.defaultLength == seconds
                case .talkTimerShown(let on): on == room.talks.onProjector
                default: false
                }
            }
            var result = changes.map { SessionChange.room($0, at: time) }
            // A presenter given control puts their deck on the stage, where they left it.
            for case .control(let active?, _) in changes {
                if let mine = room.decks.last(where: { $0.owner == active && $0.id == room.deck })
                    ?? room.decks.first(where: { $0.owner == active })
                {
                    result.append(.deckShown(deck: mine.id, page: mine.page))
                }
            }
            return result
        case .addDeck(let deck):
            guard !snapshot.ended else { throw .ended }
            switch role {
            case .moderator: guard deck.owner == nil else { throw .forbidden }
            case .presenter:
                guard let presenterId, deck.owner == presenterId, room.control.isPresenter(presenterId) else {
                    throw .forbidden
                }
            case .viewer: throw .forbidden
            }
            guard !deck.pages.isEmpty else { throw .invalidPage }
            if room.deck(deck.id) != nil { return [] }
            guard room.decks.count < RoomSnapshot.maxDecks else { throw .tooManyDecks }
            var added = deck
            added.page = 1
            return [.deckAdded(added)]
        case .showDeck(let id, let page):
            guard drives(role, presenterId: presenterId) else { throw .notInControl }
            guard !snapshot.ended else { throw .ended }
            guard let deck = room.deck(id) else { throw .deckNotInRoom }
            // Presenters show their own decks; the moderator may show any.
            if role == .presenter, deck.owner != presenterId { throw .forbidden }
            let target = page ?? deck.page
            guard (1...deck.pageCount).contains(target) else { throw .invalidPage }
            // Showing a deck takes a video off the stage first (two events, as with a page).
            let leaveVideo: [SessionChange] = snapshot.playback == nil ? [] : [.playback(nil)]
            return leaveVideo + (room.deck == id && snapshot.page == target ? [] : [.deckShown(deck: id, page: target)])
        case .setBackground(let color):
            guard role == .moderator else { throw .forbidden }
            guard Stroke.isColor(color) else { throw .badMessage("A background is a colour like #1a1a1a.") }
            return color == room.background ? [] : [.background(color)]
        }
    }
}

extension SessionError {
    public static let notARoom = SessionError(code: "not_a_room", message: "That works only in a room.")
    public static let deckNotInRoom = SessionError(code: "deck_not_found", message: "That deck is not in this room.")
    public static let tooManyDecks = SessionError(
        code: "too_many_decks", message: "This room has as many decks as it can hold (\(RoomSnapshot.maxDecks)).")
    public static let noDeck = SessionError(code: "no_deck", message: "No deck is on the stage yet.")
    public static let notModerator = SessionError(code: "not_moderator", message: "Only the moderator of this room can do that.")
    public static let nameRequired = SessionError(code: "name_required", message: "Presenters join a room with their name.")
}
