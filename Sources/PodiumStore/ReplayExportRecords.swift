import Foundation

/// One MP4 export of a session's replay (issue #44): what the `replay-export` job fills in, and,
/// once published, the channel video it became.
public struct ReplayExportRecord: Sendable, Equatable, Codable {
    public enum Status: String, Sendable, Codable, CaseIterable {
        case queued, running, ready, failed
    }

    public var id: String
    public var sessionId: String
    /// Who asked for it (a host of the session).
    public var ownerId: String
    public var status: Status
    /// The video's length in milliseconds, once made.
    public var durationMs: Int?
    /// The MP4's blob name, once made.
    public var blob: String?
    public var bytes: Int
    public var errorCode: String?
    public var errorMessage: String?
    /// The channel video it was published as (nil: not published).
    public var channelVideoId: String?
    public var createdAt: Date

    public init(
        id: String, sessionId: String, ownerId: String, status: Status = .queued, durationMs: Int? = nil,
        blob: String? = nil, bytes: Int = 0, errorCode: String? = nil, errorMessage: String? = nil,
        channelVideoId: String? = nil, createdAt: Date
    ) {
        self.id = id
        self.sessionId = sessionId
        self.ownerId = ownerId
        self.status = status
        self.durationMs = durationMs
        self.blob = blob
        self.bytes = bytes
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.channelVideoId = channelVideoId
        self.createdAt = createdAt
    }
}

/// The MP4 exports of replays.
public protocol ReplayExportStore: Sendable {
    func insertReplayExport(_ export: ReplayExportRecord) async throws
    func replayExport(id: String) async throws -> ReplayExportRecord?
    /// A session's exports, newest first.
    func replayExports(sessionId: String) async throws -> [ReplayExportRecord]
    /// Stores everything but the id, session, owner and creation time.
    func updateReplayExport(_ export: ReplayExportRecord) async throws
}
