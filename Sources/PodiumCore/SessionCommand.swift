/// What a client asks a live session to do. Commands are decided by ``SessionState/handle(_:id:by:)``.
public enum SessionCommand: Sendable, Equatable {
    case goto(page: Int)
    case zoom(Viewport)
    case blank(BlankMode)
    case lock(Bool)
    case end
    case openPoll(Poll)
    case closePoll(pollId: Int)
    case revealPoll(pollId: Int, results: Bool)
    case shareAnswer(pollId: Int, answerId: String)
    case setQuestionMode(QuestionMode)
    case stroke(Stroke)
    case erase(strokeId: String)
    case clearPage(page: Int)
    /// Rooms: a control command (request, grant, hand over, pass, return, do-not-disturb...).
    case room(RoomCommand)
    /// Rooms: a deck joins the room (built by the server once it checked who may bring it).
    case addDeck(RoomDeck)
    /// Rooms: put a deck on the stage, at a page or where it was left.
    case showDeck(deckId: String, page: Int?)
    /// Rooms: the projector's colour around the slide.
    case setBackground(String)
}

/// How a command was taken.
public enum CommandOutcome: Sendable, Equatable {
    /// New durable events, already applied to the state; store them, then send them.
    case applied([SessionEvent])
    /// Accepted, but nothing changed for anyone (a no-op, or a viewer browsing alone while unlocked).
    case unchanged(seq: Int)
    /// This command id was handled before; answer as then and change nothing.
    case duplicate(seq: Int)

    /// The `seq` to acknowledge the command with.
    public var ackSeq: Int {
        switch self {
        case .applied(let events): events.last?.seq ?? 0
        case .unchanged(let seq), .duplicate(let seq): seq
        }
    }
}
