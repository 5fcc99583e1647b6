import Foundation
import NIOCore
import Synchronization

/// The seam between appending a session's events and fanning them out, and what the lobby lists.
///
/// A node that stored a command's events fans them out to its own sockets at once (so an
/// acknowledgement never overtakes its events) and tells the bus, which hints every other node
/// (session and `seq`); a node that gets a hint reads the events after what it has from the
/// store, in order, and fans them out to its sockets (``LiveSession/catchUp(to:)``). A hint that
/// is lost only delays: the next command on that node finds the store ahead (``SeqConflict``) and
/// catches up first. Presence (viewers per session per node) and sessions starting and ending go
/// through the bus too, so the lobby of every node lists every session with all its viewers.
///
/// What is not an event crosses too, as ``SessionNote``s: the audience's records changed (answers,
/// questions, votes and viewers are stored beside the events, so other nodes re-read them), a
/// session's access changed, and ephemeral frames (the pointer, ink in progress).
///
/// Storyboards open for editing share the bus (``BusDocumentKind/storyboard`` on a hint or a
/// note): ``StoryboardHub`` subscribes beside ``LiveHub`` under the node's name.
///
/// ``LocalSessionBus`` carries it within one process; ``PostgresSessionBus`` (`pg_notify` on one
/// channel, coalesced, with a periodic check) implements the same protocol for several processes.
public protocol SessionBus: Sendable {
    /// Adds a node's receiver: hints of other nodes' appends, and everyone's presence.
    func subscribe(_ node: any SessionBusNode) async
    /// A node stored a session's events up to `seq`.
    func appended(_ hint: AppendedHint) async
    /// A session's viewers on a node changed, or it started or ended.
    func presence(_ update: PresenceUpdate) async
    /// Something other nodes serving the session should know that is not an event. A bus may
    /// coalesce notes of one session and kind (newest wins).
    func note(_ note: SessionNote) async
}

/// What a node does with what the bus carries.
public protocol SessionBusNode: AnyObject, Sendable {
    /// This node's name on the bus.
    var nodeName: String { get }
    /// Another node stored a session's events up to `seq`.
    func appended(_ hint: AppendedHint) async
    /// Any node's presence for a session (this node's own included).
    func presence(_ update: PresenceUpdate) async
    /// Another node's note about a session.
    func note(_ note: SessionNote) async
    /// Hints may have been lost (the bus reconnected, or it is time for the periodic check):
    /// every live session this node serves reads the events the store has beyond it, and with
    /// `records` (after a reconnection, and at the periodic check: notes may be lost too) the
    /// audience's records after the node's record seq.
    func resynchronize(records: Bool) async
}

/// "Session `sessionId` has events up to `seq` in the store" (from `node`).
public struct AppendedHint: Sendable, Equatable {
    public let node: String
    public let sessionId: String
    public let code: String
    public let seq: Int
    /// When the hint was sent (the hint lag metric: from here to the catch-up done).
    public var sentAt = Date()
    /// Which kind of live document `sessionId` names (a storyboard: its id, with `code` the same).
    public var kind = BusDocumentKind.session
}

/// The kinds of live document that share the bus: each has its own table of numbered events and
/// its own ids, so a hint or a note says which it is about. A message without one (from a node
/// of an older version) is about a session.
public enum BusDocumentKind: String, Sendable, Equatable {
    /// A live session or a room (``LiveSession``).
    case session
    /// A storyboard project open for editing (``StoryboardDesk``).
    case storyboard
}

/// A session's state on one node, for the lobby.
public struct PresenceUpdate: Sendable, Equatable {
    public let node: String
    public let sessionId: String
    public let code: String
    /// Viewers connected to this session on that node.
    public let viewers: Int
    /// False once the session has ended.
    public let live: Bool
}

/// What a node tells the others about a session besides its events.
public struct SessionNote: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The session's audience records (answers, questions, votes, viewers) changed in the store.
        case records
        /// Its passcode or listing changed in the store.
        case access
        /// A newest-wins frame for every socket of the session (`key`: ``EphemeralKey`` name). The
        /// frame as encoded for the sockets: a bus within one process copies nothing.
        case ephemeral(key: String, frame: ByteBuffer)
    }

    public let node: String
    public let sessionId: String
    public let code: String
    public let kind: Kind
    /// Which kind of live document `sessionId` names.
    public let document: BusDocumentKind

    public init(node: String, sessionId: String, code: String, kind: Kind, document: BusDocumentKind = .session) {
        self.node = node
        self.sessionId = sessionId
        self.code = code
        self.kind = kind
        self.document = document
    }

    /// Notes with the same key replace each other while they wait to be sent.
    var coalescingKey: String {
        let prefix = document == .session ? "" : "\(document.rawValue)|"
        return switch kind {
        case .records: "\(prefix)r|\(sessionId)"
        case .access: "\(prefix)x|\(sessionId)"
        case .ephemeral(let key, _): "\(prefix)e|\(sessionId)|\(key)"
        }
    }
}

/// The bus within one process: a single server, or several nodes of a test on one store.
public final class LocalSessionBus: SessionBus {
    private let nodes = Mutex<[any SessionBusNode]>([])

    public init() {}

    public func subscribe(_ node: any SessionBusNode) async {
        nodes.withLock { $0.append(node) }
    }

    /// Hints are delivered on a task of their own: the appending node holds its session's
    /// command gate while it tells the bus, and the receiving node takes its own to catch up.
    public func appended(_ hint: AppendedHint) async {
        for node in nodes.withLock({ $0 }) where node.nodeName != hint.node {
            Task { await node.appended(hint) }
        }
    }

    public func presence(_ update: PresenceUpdate) async {
        for node in nodes.withLock({ $0 }) { await node.presence(update) }
    }

    public func note(_ note: SessionNote) async {
        for node in nodes.withLock({ $0 }) where node.nodeName != note.node {
            Task { await node.note(note) }
        }
    }
}
