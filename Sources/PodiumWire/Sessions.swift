import Foundation
import PodiumCore

/// A live session or a room, as the REST API shows it (`POST /api/v1/sessions`, `GET
/// /api/v1/sessions/{code}`, the live list, a room's opening). Fields without a value are left out.
public struct LiveSessionInfo: Codable, Sendable, Equatable {
    public var id: String
    public var code: String
    public var kind: SessionKind
    /// Where viewers join (`<base>/s/<code>`).
    public var joinUrl: String
    /// Rooms: where presenters join, the moderator's console, the projector's page.
    public var presenterUrl: String?
    public var moderatorUrl: String?
    public var projectorUrl: String?
    /// The big screen (content only, for the projector): a session's `/s/<code>/screen`, a
    /// room's projector page. Always sent by this server; nil from an older one.
    public var screenUrl: String?
    /// The session's deck; nil for a room.
    public var deckId: String?
    public var title: String
    public var presenter: String
    public var hasPasscode: Bool
    public var allowDownload: Bool
    public var live: Bool
    public var pageCount: Int
    public var createdAt: Date
    /// The same instant as `createdAt`, under the name the live list uses.
    public var startedAt: Date
    public var endedAt: Date?
    /// Connected viewers, while live.
    public var viewers: Int?
    /// Left out of the live list ("Live now"): joined by code or link only. Always sent by this
    /// server; nil from an older one.
    public var unlisted: Bool?
    /// The passcode, for the host alone (absent for everyone else, and when there is none or it
    /// was set before passcodes were kept).
    public var passcode: String?
    /// Who may watch the replay: `host` or `link` (anyone with the link). Always sent by this
    /// server; nil from an older one.
    public var replay: ReplayAccess?
    /// The replay's page (`<base>/s/<code>/replay`, a room's `/r/<code>/replay`). Always sent by
    /// this server; nil from an older one.
    public var replayUrl: String?
    /// Whether the signed-in requester presents or co-hosts it (an admin's right over every
    /// session does not count): the library's "you're live" banner. Always sent by this server;
    /// nil from an older one.
    public var yours: Bool?
    /// A session's deck, page by page: sent in a replay's `session` only (a room's decks are in
    /// its `deckAdded` events); absent elsewhere.
    public var pages: [PageInfo]?

    public init(
        id: String, code: String, kind: SessionKind, joinUrl: String, presenterUrl: String?, moderatorUrl: String?,
        projectorUrl: String?, screenUrl: String?, deckId: String?, title: String, presenter: String, hasPasscode: Bool,
        allowDownload: Bool, live: Bool, pageCount: Int, createdAt: Date, startedAt: Date, endedAt: Date?, viewers: Int?,
        unlisted: Bool? = false, passcode: String? = nil, replay: ReplayAccess? = nil, replayUrl: String? = nil,
        yours: Bool? = nil
    ) {
        self.yours = yours
        self.replay = replay
        self.replayUrl = replayUrl
        self.id = id
        self.code = code
        self.kind = kind
        self.joinUrl = joinUrl
        self.presenterUrl = presenterUrl
        self.moderatorUrl = moderatorUrl
        self.projectorUrl = projectorUrl
        self.screenUrl = screenUrl
        self.deckId = deckId
        self.title = title
        self.presenter = presenter
        self.hasPasscode = hasPasscode
        self.allowDownload = allowDownload
        self.live = live
        self.pageCount = pageCount
        self.createdAt = createdAt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.viewers = viewers
        self.unlisted = unlisted
        self.passcode = passcode
    }
}

/// One of the signed-in user's sessions or rooms, live or past (`GET /api/v1/history`), with where
/// its report and exports are.
public struct HistoryEntry: Codable, Sendable, Equatable {
    /// A file of its report, or its slides with their ink.
    public struct Export: Codable, Sendable, Equatable {
        /// `csv` or `pdf`.
        public var format: String
        public var label: String
        public var url: String

        public init(format: String, label: String, url: String) {
            self.format = format
            self.label = label
            self.url = url
        }
    }

    public var id: String
    public var code: String
    public var kind: SessionKind
    public var title: String
    public var live: Bool
    public var hasPasscode: Bool
    public var unlisted: Bool
    public var createdAt: Date
    public var endedAt: Date?
    /// The console, while live: `/present/{code}`, or a room's `/r/{code}/moderate`.
    public var consoleUrl: String?
    /// The report page: attendance, polls, questions.
    public var reportUrl: String
    public var exports: [Export]

    public init(
        id: String, code: String, kind: SessionKind, title: String, live: Bool, hasPasscode: Bool, unlisted: Bool,
        createdAt: Date, endedAt: Date?, consoleUrl: String?, reportUrl: String, exports: [Export]
    ) {
        self.id = id
        self.code = code
        self.kind = kind
        self.title = title
        self.live = live
        self.hasPasscode = hasPasscode
        self.unlisted = unlisted
        self.createdAt = createdAt
        self.endedAt = endedAt
        self.consoleUrl = consoleUrl
        self.reportUrl = reportUrl
        self.exports = exports
    }
}

/// One page of history; pass `next` as `before` for the next, older page (absent on the last).
public struct HistoryPage: Codable, Sendable, Equatable {
    public var sessions: [HistoryEntry]
    public var next: String?

    public init(sessions: [HistoryEntry], next: String?) {
        self.sessions = sessions
        self.next = next
    }
}

/// A co-host: someone besides its presenter who runs the session's console, passcode, end and
/// report as its presenter does.
public struct SessionCoHost: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var email: String
    /// `invited` (added by the presenter or an admin, by email) or `lti-course` (a teacher of the
    /// course the session is placed in: the course decides, so the grant is not taken back here).
    public var reason: String
    public var since: Date

    public init(id: String, name: String, email: String, reason: String, since: Date) {
        self.id = id
        self.name = name
        self.email = email
        self.reason = reason
        self.since = since
    }
}

/// Who hosts a session, for its hosts.
public struct SessionHostList: Codable, Sendable, Equatable {
    public var presenter: Person
    /// Oldest grant first.
    public var coHosts: [SessionCoHost]
    /// Whether the requester may add and remove co-hosts: the presenter or an admin (a co-host
    /// may only leave).
    public var canManage: Bool

    public init(presenter: Person, coHosts: [SessionCoHost], canManage: Bool) {
        self.presenter = presenter
        self.coHosts = coHosts
        self.canManage = canManage
    }
}
