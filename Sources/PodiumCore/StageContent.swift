/// What a stage shows. The pointer, the viewport, blanking and ink address content rather than a
/// page number, so a new kind of content (a video clip, a storyboard shot) is a new case here and
/// a new rule in ``SessionState/contains(_:)``, not a new pipeline.
public enum StageContent: Sendable, Hashable {
    /// A page (from 1) of a deck. `deck` is nil for the deck of a one-deck session (its wire
    /// messages carry only the page); in a room it names the room's deck.
    case deckPage(deck: String?, page: Int)
    /// A video from the library, played from the stage's ``Playback`` reference.
    case video(id: String)

    /// The page, for content that has pages.
    public var page: Int? {
        switch self {
        case .deckPage(_, let page): page
        case .video: nil
        }
    }

    /// The deck, for content from a deck (nil: a session's own deck).
    public var deck: String? {
        switch self {
        case .deckPage(let deck, _): deck
        case .video: nil
        }
    }
}

/// What moves or marks the stage: pages, zoom, blanking and committed ink.
public enum StageCommand: Sendable, Equatable {
    case goto(page: Int)
    case zoom(Viewport)
    case blank(BlankMode)
    /// A finished ink stroke; its id is the command's id.
    case stroke(Stroke)
    case erase(strokeId: String)
    case clearPage(page: Int)
}

extension StageCommand: FeatureCommand {
    public static let wireTypes = ["goto", "zoom", "blank", "stroke", "erase", "clearPage"]

    enum Keys: String, CodingKey { case type, page, viewport, mode, stroke, strokeId }

    public init(wireType type: String, id: String, from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        switch type {
        case "goto": self = .goto(page: try c.decode(Int.self, forKey: .page))
        case "zoom": self = .zoom(try c.decode(Viewport.self, forKey: .viewport))
        case "blank": self = .blank(try c.decode(BlankMode.self, forKey: .mode))
        case "stroke":
            var stroke = try c.decode(Stroke.self, forKey: .stroke)
            stroke.id = id
            self = .stroke(stroke)
        case "erase": self = .erase(strokeId: try c.decode(String.self, forKey: .strokeId))
        default: self = .clearPage(page: try c.decode(Int.self, forKey: .page))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        switch self {
        case .goto(let page):
            try c.encode("goto", forKey: .type)
            try c.encode(page, forKey: .page)
        case .zoom(let viewport):
            try c.encode("zoom", forKey: .type)
            try c.encode(viewport, forKey: .viewport)
        case .blank(let mode):
            try c.encode("blank", forKey: .type)
            try c.encode(mode, forKey: .mode)
        case .stroke(let stroke):
            try c.encode("stroke", forKey: .type)
            try c.encode(stroke, forKey: .stroke)
        case .erase(let strokeId):
            try c.encode("erase", forKey: .type)
            try c.encode(strokeId, forKey: .strokeId)
        case .clearPage(let page):
            try c.encode("clearPage", forKey: .type)
            try c.encode(page, forKey: .page)
        }
    }

    public var sessionCommand: SessionCommand { .stage(self) }
}

extension SessionCommand {
    public static func goto(page: Int) -> Self { .stage(.goto(page: page)) }
    public static func zoom(_ viewport: Viewport) -> Self { .stage(.zoom(viewport)) }
    public static func blank(_ mode: BlankMode) -> Self { .stage(.blank(mode)) }
    public static func stroke(_ stroke: Stroke) -> Self { .stage(.stroke(stroke)) }
    public static func erase(strokeId: String) -> Self { .stage(.erase(strokeId: strokeId)) }
    public static func clearPage(page: Int) -> Self { .stage(.clearPage(page: page)) }
}

extension Stroke {
    /// What the stroke was drawn on.
    public var content: StageContent { .deckPage(deck: deck, page: page) }
}

extension SessionState {
    /// What the stage shows now; nil when nothing is on it (a room before a deck is shown, a
    /// session created without a deck).
    public var stageContent: StageContent? {
        if let playback = snapshot.playback { return .video(id: playback.video) }
        if let room = snapshot.room {
            return room.deck.map { .deckPage(deck: $0, page: snapshot.page) }
        }
        return deckPageCount > 0 ? .deckPage(deck: nil, page: snapshot.page) : nil
    }

    /// Whether content can be addressed on this stage now: a page of the deck on show.
    public func contains(_ content: StageContent) -> Bool {
        switch content {
        case .deckPage(let deck, let page):
            return snapshot.playback == nil && deck == snapshot.room?.deck && page >= 1 && page <= pageCount
        case .video(let id):
            return snapshot.playback?.video == id
        }
    }

    /// Whether a deck is there to show (a room's deck on its stage, or a session's own).
    var deckOnStage: Bool { snapshot.room.map { $0.deck != nil } ?? (deckPageCount > 0) }

    /// Decides what moves or marks the stage: pages, zoom, blanking, committed ink.
    func decide(_ command: StageCommand, by actor: Actor) throws(SessionError) -> FeatureDecision {
        if case .goto(let page) = command, actor.role == .viewer {
            // A viewer's own navigation never changes the session for anyone else.
            guard isPage(page) else { throw .invalidPage }
            guard !snapshot.locked else { throw .followingPresenter }
            return .nothing
        }
        try authorize(command, by: actor)
        guard !snapshot.ended else { throw .ended }
        switch command {
        case .goto(let page):
            guard deckOnStage else { throw .noDeck }
            guard isPage(page) else { throw .invalidPage }
            // Going to a page takes a video off the stage first: two events, so every client
            // applies exactly what the server did.
            let leaveVideo: [SessionChange] = snapshot.playback == nil ? [] : [.playback(nil)]
            let unchanged = page == snapshot.page && snapshot.viewport == .fullPage
            return FeatureDecision(changes: leaveVideo + (unchanged ? [] : [.page(page)]))
        case .zoom(let viewport):
            guard deckOnStage else { throw .noDeck }
            guard snapshot.playback == nil else { throw .videoOnStage }
            guard viewport.isValid else { throw .invalidViewport }
            return viewport == snapshot.viewport ? .nothing : FeatureDecision(changes: [.zoom(viewport)])
        case .blank(let mode):
            return mode == snapshot.blank ? .nothing : FeatureDecision(changes: [.blank(mode)])
        case .stroke(var stroke):
            guard deckOnStage else { throw .noDeck }
            guard snapshot.playback == nil else { throw .videoOnStage }
            stroke.deck = snapshot.room?.deck
            guard stroke.isValid(pageCount: pageCount), contains(stroke.content), !stroke.id.isEmpty else {
                throw .invalidStroke
            }
            guard !snapshot.strokes.contains(where: { $0.id == stroke.id }) else { return .nothing }
            return FeatureDecision(changes: [.stroke(stroke)])
        case .erase(let strokeId):
            guard snapshot.strokes.contains(where: { $0.id == strokeId }) else { throw .strokeNotFound }
            return FeatureDecision(changes: [.erased(strokeId: strokeId)])
        case .clearPage(let page):
            guard deckOnStage else { throw .noDeck }
            let deck = snapshot.room?.deck
            guard isPage(page) else { throw .invalidPage }
            let inked = snapshot.strokes.contains { $0.content == .deckPage(deck: deck, page: page) }
            return inked ? FeatureDecision(changes: [.pageCleared(page: page, deck: deck)]) : .nothing
        }
    }

    /// Who may move or mark the stage: whoever drives it (in a room, with a deck on it); in a room
    /// the moderator may always blank the projector.
    private func authorize(_ command: StageCommand, by actor: Actor) throws(SessionError) {
        let (role, presenterId) = (actor.role, actor.presenterId)
        switch command {
        case .goto, .zoom, .stroke, .erase, .clearPage:
            guard drives(role, presenterId: presenterId) else { throw snapshot.room == nil ? .forbidden : .notInControl }
            if snapshot.room != nil, snapshot.room?.deck == nil { throw .noDeck }
        case .blank:
            guard drives(role, presenterId: presenterId) || (snapshot.room != nil && role == .moderator) else {
                throw snapshot.room == nil ? .forbidden : .notInControl
            }
        }
    }

    /// Authorises a laser-pointer move. Pointer moves are ephemeral: they change no state.
    public func pointer(_ point: PagePoint?, by role: Role, presenterId: String? = nil) throws(SessionError) -> PointerUpdate {
        try mayDriveStage(role, presenterId: presenterId)
        guard let point else {
            // Hiding the pointer is always fine, even with nothing on the stage.
            return PointerUpdate(content: stageContent ?? .deckPage(deck: snapshot.room?.deck, page: snapshot.page), point: nil)
        }
        guard let content = stageContent else { throw .noDeck }
        // The pointer addresses a page (a video has no pointer yet).
        guard case .deckPage = content else { throw .videoOnStage }
        guard point.isValid else { throw .invalidPoint }
        return PointerUpdate(content: content, point: point)
    }

    /// Authorises the stroke being drawn (ephemeral) and says what it is drawn on.
    public func inking(_ message: InkingMessage, by role: Role, presenterId: String? = nil) throws(SessionError)
        -> InkingMessage
    {
        try mayDriveStage(role, presenterId: presenterId)
        var message = message
        message.deck = snapshot.room?.deck
        if message.done != true {
            guard snapshot.playback == nil else { throw .videoOnStage }
            guard let page = message.page, contains(.deckPage(deck: message.deck, page: page)) else { throw .invalidStroke }
        }
        guard message.isValid(pageCount: pageCount) else { throw .invalidStroke }
        return message
    }

    /// Refuses whoever may not drive the stage now: the pointer and ink ask, and the server asks
    /// before it looks a video up (a refusal says "not yours to drive", not "no such video").
    public func mayDriveStage(_ role: Role, presenterId: String?) throws(SessionError) {
        guard drives(role, presenterId: presenterId) else { throw snapshot.room == nil ? .forbidden : .notInControl }
        guard !snapshot.ended else { throw .ended }
    }
}

/// Where the laser pointer is now; `point` nil hides it.
public struct PointerUpdate: Sendable, Equatable {
    public var content: StageContent
    public var point: PagePoint?

    public init(content: StageContent, point: PagePoint?) {
        self.content = content
        self.point = point
    }

    /// The page on the wire (every content shown today has pages).
    public var page: Int { content.page ?? 1 }
}
