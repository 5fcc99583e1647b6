/// Who acts in a collaborative room (seed 000): the moderator, who runs the room and the
/// projector, and presenters, who bring their own decks and ask for control.
public enum RoomActor: Sendable, Equatable {
    case moderator
    case presenter(String)
}

/// What an actor asks of a room: of its control (decided by ``RoomControl``), its decks and its
/// projector (decided in Room.swift, where their wire form is).
public enum RoomCommand: Sendable, Equatable {
    /// A presenter enters the room under a name.
    case join(name: String)
    /// A presenter asks for control (one pending request each).
    case request
    case cancelRequest
    /// The moderator gives control to a presenter (hand-over).
    case grant(presenterId: String)
    /// The moderator gives control to the oldest request.
    case handOverNext
    /// The moderator takes control back.
    case withdraw
    /// The active presenter lends control to another presenter for a while (a question, a demo).
    case pass(presenterId: String)
    /// Control goes back to the presenter who lent it (said by either of them).
    case returnControl
    /// Requests are held quietly for the moderator or the active presenter while on.
    case doNotDisturb(Bool)
    /// The moderator caps the number of pending requests (nil: no cap).
    case setQueueCap(Int?)
    /// The moderator sets the length of a presenter's talk, or with no presenter the room's
    /// default (seconds; nil: none, so no countdown).
    case setTalkLength(presenterId: String?, seconds: Int?)
    /// The moderator shows the talk's countdown on the projector, or hides it.
    case showTalkTimer(Bool)
    /// A deck joins the room (built by the server once it checked who may bring it).
    case addDeck(RoomDeck)
    /// Puts a deck on the stage, at a page or where it was left.
    case showDeck(deckId: String, page: Int?)
    /// The projector's colour around the slide.
    case setBackground(String)
}

/// A durable change to a room's control, applied by every client in order.
public enum RoomChange: Sendable, Equatable {
    case presenterJoined(id: String, name: String)
    case requested(presenterId: String)
    case requestCancelled(presenterId: String)
    /// Who presents now (nil: the moderator) and, for a temporary pass, who lent control.
    case control(active: String?, lender: String?)
    case doNotDisturb(moderator: Bool, on: Bool)
    case queueCap(Int?)
    /// A talk's length in seconds (`presenterId` nil: the room's default; `seconds` nil: none).
    case talkLength(presenterId: String?, seconds: Int?)
    /// Whether the projector shows the countdown of the talk on stage.
    case talkTimerShown(Bool)
}

/// A presenter of a room as everyone sees them. The id is derived from their private identity
/// and does not let anyone act as them.
public struct RoomPresenter: Codable, Sendable, Equatable {
    public var id: String
    public var name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// The control state machine of a room: who presents, who waits, who may do what.
public struct RoomControl: Codable, Sendable, Equatable {
    /// Presenters in order of joining.
    public private(set) var presenters: [RoomPresenter] = []
    /// The presenter in control; nil: the moderator.
    public private(set) var active: String?
    /// Set while control is lent: the presenter who gets it back.
    public private(set) var lender: String?
    /// Pending requests, oldest first.
    public private(set) var queue: [String] = []
    public private(set) var queueCap: Int?
    public private(set) var moderatorDoNotDisturb = false
    /// The active presenter's "do not disturb" (it ends when they lose control).
    public private(set) var presenterDoNotDisturb = false

    public static let maxNameLength = 60

    public init() {}

    enum CodingKeys: String, CodingKey {
        case presenters, active, lender, queue, queueCap, moderatorDoNotDisturb, presenterDoNotDisturb
    }

    /// Explicit nulls: "the moderator drives", "not lent" and "no cap" are information.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(presenters, forKey: .presenters)
        try container.encode(active, forKey: .active)
        try container.encode(lender, forKey: .lender)
        try container.encode(queue, forKey: .queue)
        try container.encode(queueCap, forKey: .queueCap)
        try container.encode(moderatorDoNotDisturb, forKey: .moderatorDoNotDisturb)
        try container.encode(presenterDoNotDisturb, forKey: .presenterDoNotDisturb)
    }

    public func isPresenter(_ id: String) -> Bool { presenters.contains { $0.id == id } }

    /// Decides a command and applies what it causes.
    /// - Throws: ``SessionError`` when a rule refuses it; the state is then unchanged.
    public mutating func handle(_ command: RoomCommand, by actor: RoomActor) throws(SessionError) -> [RoomChange] {
        let changes = try decide(command, by: actor)
        for change in changes { apply(change) }
        return changes
    }

    func decide(_ command: RoomCommand, by actor: RoomActor) throws(SessionError) -> [RoomChange] {
        switch (command, actor) {
        case (.join(let name), .presenter(let id)):
            let trimmed = String(name.trimmingWhitespace.prefix(Self.maxNameLength))
            guard !trimmed.isEmpty else { throw .badMessage("A presenter needs a name.") }
            if let known = presenters.first(where: { $0.id == id }), known.name == trimmed { return [] }
            return [.presenterJoined(id: id, name: trimmed)]

        case (.request, .presenter(let id)):
            guard isPresenter(id) else { throw .notInRoom }
            // A borrower may ask for a turn of their own; whoever holds the stage in their own right has one.
            guard active != id || lender != nil else { throw .alreadyPresenting }
            guard !queue.contains(id) else { throw .alreadyRequested }
            if let queueCap, queue.count >= queueCap { throw .queueFull }
            return [.requested(presenterId: id)]

        case (.cancelRequest, .presenter(let id)):
            return queue.contains(id) ? [.requestCancelled(presenterId: id)] : []

        case (.grant(let target), .moderator):
            guard isPresenter(target) else { throw .notInRoom }
            return active == target && lender == nil ? [] : [.control(active: target, lender: nil)]

        case (.handOverNext, .moderator):
            guard let next = queue.first else { throw .noRequests }
            return [.control(active: next, lender: nil)]

        case (.withdraw, .moderator):
            return active == nil ? [] : [.control(active: nil, lender: nil)]

        case (.pass(let target), .presenter(let id)):
            // Only the presenter who holds control in their own right may lend it.
            guard active == id, lender == nil else { throw .notInControl }
            guard isPresenter(target), target != id else { throw .notInRoom }
            return [.control(active: target, lender: id)]

        case (.returnControl, .presenter(let id)):
            guard let lender, id == active || id == lender else { throw .notInControl }
            return [.control(active: lender, lender: nil)]

        case (.doNotDisturb(let on), .moderator):
            return on == moderatorDoNotDisturb ? [] : [.doNotDisturb(moderator: true, on: on)]

        case (.doNotDisturb(let on), .presenter(let id)):
            guard active == id else { throw .notInControl }
            return on == presenterDoNotDisturb ? [] : [.doNotDisturb(moderator: false, on: on)]

        case (.setQueueCap(let cap), .moderator):
            if let cap { guard cap >= 1 else { throw .badMessage("A queue cap is at least 1.") } }
            return cap == queueCap ? [] : [.queueCap(cap)]

        case (.setTalkLength(let target, let seconds), .moderator):
            if let target { guard isPresenter(target) else { throw .notInRoom } }
            if let seconds {
                guard (1...RoomTalks.maxLength).contains(seconds) else {
                    throw .badMessage("A talk lasts from 1 second to \(RoomTalks.maxLength / 3600) hours.")
                }
            }
            return [.talkLength(presenterId: target, seconds: seconds)]

        case (.showTalkTimer(let on), .moderator):
            return [.talkTimerShown(on)]

        default:
            throw .forbidden
        }
    }

    public mutating func apply(_ change: RoomChange) {
        switch change {
        case .presenterJoined(let id, let name):
            if let index = presenters.firstIndex(where: { $0.id == id }) {
                presenters[index].name = name
            } else {
                presenters.append(RoomPresenter(id: id, name: name))
            }
        case .requested(let id):
            queue.append(id)
        case .requestCancelled(let id):
            queue.removeAll { $0 == id }
        case .control(let newActive, let newLender):
            if newActive != active { presenterDoNotDisturb = false }
            active = newActive
            lender = newLender
            // Whoever gets control in their own right no longer waits for it; a borrower (a lend
            // for a question or a demo) keeps their place in the queue.
            if let newActive, newLender == nil { queue.removeAll { $0 == newActive } }
        case .doNotDisturb(let moderator, let on):
            if moderator { moderatorDoNotDisturb = on } else { presenterDoNotDisturb = on }
        case .queueCap(let cap):
            queueCap = cap
        case .talkLength, .talkTimerShown:
            break  // the room's talks (RoomSnapshot.talks), not control
        }
    }
}

extension SessionError {
    public static let notInRoom = SessionError(code: "not_in_room", message: "That presenter is not in this room.")
    public static let alreadyPresenting = SessionError(code: "already_presenting", message: "You are presenting already.")
    public static let alreadyRequested = SessionError(
        code: "already_requested", message: "Your request is waiting already; the moderator will see it.")
    public static let queueFull = SessionError(
        code: "queue_full", message: "The moderator is not taking more requests right now. Try again later.")
    public static let noRequests = SessionError(code: "no_requests", message: "Nobody is waiting for control.")
    public static let notInControl = SessionError(code: "not_in_control", message: "Only the presenter in control can do that.")
}
