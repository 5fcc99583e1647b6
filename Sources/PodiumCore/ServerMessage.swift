/// What the client needs to know about a session to show it.
public struct SessionInfo: Codable, Sendable, Equatable {
    public var id: String
    public var code: String
    public var title: String
    public var presenter: String
    public var pageCount: Int
    public var allowDownload: Bool
    public var hasPasscode: Bool
    /// A session's deck; empty for a room, whose decks are in `snapshot.room`.
    public var pages: [PageInfo]
    /// `session` or `room`.
    public var kind: SessionKind
    /// When it started (seconds since 1970), for the room's timer.
    public var startedAt: Double

    public init(
        id: String, code: String, title: String, presenter: String, pageCount: Int, allowDownload: Bool,
        hasPasscode: Bool, pages: [PageInfo], kind: SessionKind = .session, startedAt: Double = 0
    ) {
        self.kind = kind
        self.startedAt = startedAt
        self.id = id
        self.code = code
        self.title = title
        self.presenter = presenter
        self.pageCount = pageCount
        self.allowDownload = allowDownload
        self.hasPasscode = hasPasscode
        self.pages = pages
    }
}

/// One page of a deck: its size in PDF points and where its rendered images are.
public struct PageInfo: Codable, Sendable, Equatable {
    public var number: Int
    public var width: Double
    public var height: Double
    public var imageUrl: String
    public var mediumUrl: String
    public var thumbnailUrl: String

    public init(number: Int, width: Double, height: Double, imageUrl: String, mediumUrl: String, thumbnailUrl: String) {
        self.number = number
        self.width = width
        self.height = height
        self.imageUrl = imageUrl
        self.mediumUrl = mediumUrl
        self.thumbnailUrl = thumbnailUrl
    }
}

/// The answer to hello.
public struct Welcome: Codable, Sendable, Equatable {
    public var type = "welcome"
    public var role: Role
    public var seq: Int
    public var viewerId: String?
    public var session: SessionInfo
    public var snapshot: SessionSnapshot
    /// The durable events after the client's `lastSeq`; present only when it sent one.
    public var events: [SessionEvent]?
    public var viewers: Int
    /// Presenters: the audience's questions and the viewer list.
    public var questions: [QuestionView]?
    public var viewerList: [ViewerView]?
    /// The tallies this client may see (presenters: every poll; viewers: polls showing results).
    public var results: [ResultsMessage]?
    /// Viewers: their own answers by poll id.
    public var myAnswers: [String: PollAnswer]?
    /// Viewers, when questions are public: the public list and their own upvotes.
    public var publicQuestions: [PublicQuestion]?
    public var myVotes: [String]?
    /// Once a quiz question has closed: the leaderboard, and a viewer's own score.
    public var leaderboard: LeaderboardMessage?
    public var myScore: MyScoreMessage?

    public init(
        role: Role, seq: Int, viewerId: String?, session: SessionInfo, snapshot: SessionSnapshot,
        events: [SessionEvent]?, viewers: Int
    ) {
        self.role = role
        self.seq = seq
        self.viewerId = viewerId
        self.session = session
        self.snapshot = snapshot
        self.events = events
        self.viewers = viewers
    }

    /// Room presenters: the id everyone knows them by.
    public var presenterId: String?
    /// Rooms: the presenters connected now.
    public var connectedPresenters: [String]?
}

/// `{"type":"roomPresence","connected":[…]}`: which of a room's presenters are connected.
public struct RoomPresenceMessage: Codable, Sendable, Equatable {
    public var type = "roomPresence"
    public var connected: [String]

    public init(connected: [String]) { self.connected = connected }
}

/// `{"type":"ack","id":…,"seq":…}`: the command with this id was taken.
public struct Ack: Codable, Sendable, Equatable {
    public var type = "ack"
    public var id: String
    public var seq: Int

    public init(id: String, seq: Int) {
        self.id = id
        self.seq = seq
    }
}

/// `{"type":"error",…}`: a hello or a command was refused.
public struct ErrorMessage: Codable, Sendable, Equatable {
    public var type = "error"
    public var id: String?
    public var code: String
    public var message: String
    /// Whole seconds to wait before trying again (a wrong passcode that starts a wait, or a
    /// hello refused with `rate_limited` while one runs); absent when there is nothing to wait.
    public var retryAfter: Int?

    public init(id: String? = nil, _ error: SessionError, retryAfter: Int? = nil) {
        self.id = id
        self.code = error.code
        self.message = error.message
        self.retryAfter = retryAfter
    }
}

/// `{"type":"pointer",…}`: ephemeral laser pointer position.
public struct PointerMessage: Codable, Sendable, Equatable {
    public var type = "pointer"
    public var page: Int
    public var x: Double?
    public var y: Double?
    public var visible: Bool

    public init(_ update: PointerUpdate) {
        page = update.page
        x = update.point?.x
        y = update.point?.y
        visible = update.point != nil
    }
}

/// `{"type":"presence","viewers":N}`: ephemeral viewer count.
public struct PresenceMessage: Codable, Sendable, Equatable {
    public var type = "presence"
    public var viewers: Int

    public init(viewers: Int) { self.viewers = viewers }
}

/// `{"type":"reconnect","reason":…}`: the server asks the client to reconnect with `lastSeq`.
public struct ReconnectMessage: Codable, Sendable, Equatable {
    public var type = "reconnect"
    public var reason: String

    public init(reason: String) { self.reason = reason }
}
