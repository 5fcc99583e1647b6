import Foundation

/// A realtime document: something many people change at once through one ordered log of durable
/// events, each with the next `seq` (a live session, a room, a storyboard).
///
/// The document is pure: it decides a command from someone at an instant into a ``LiveDecision``
/// (events to store and send, records to store, actions to carry out, the `seq` to acknowledge)
/// or refuses it with a typed ``Failure``, and it applies the events another node stored
/// (``catchUp(with:)``). It does no I/O and reads no clock. The server's live engine (`LiveLog`)
/// does the rest, the same way for every kind: one gate, decide on a copy, encode, append, adopt,
/// fan out, hint the bus, catch up.
///
/// A repeated command id takes effect once: the engine asks ``recentCommands`` (keyed by
/// ``commandKey(_:from:)``) before it decides, and remembers the key of every command it stored
/// (``rememberCommand(_:seq:)``); ``catchUp(with:)`` remembers those of other nodes' events.
public protocol LiveDocument: Sendable {
    /// What a client asks for.
    associatedtype Command: Sendable
    /// Who sends a command (a role and identity for a session, a user for a storyboard).
    associatedtype Sender: Sendable
    /// What a command causes.
    associatedtype Decision: LiveDecision
    /// Why a command is refused: a rule, or one of the engine's own (``LiveFailure``).
    associatedtype Failure: LiveFailure

    /// A durable event as decided and sent (for a session, ``SessionEvent``).
    typealias Event = Decision.Event
    /// A durable event as the store keeps it and gives it back (for a session, ``StoredEvent``).
    typealias Stored = Decision.Stored
    /// What the server does after an event besides sending it (for a session, ``SessionAction``).
    typealias Action = Decision.Action

    /// The `seq` of the last durable event applied; 0 before the first.
    var seq: Int { get }

    /// The ids of the commands taken recently, with the `seq` each was acknowledged with.
    var recentCommands: RecentCommands { get }

    /// The key a command id is remembered by: scoped by who sends it where two senders may choose
    /// the same id.
    func commandKey(_ id: String, from sender: Sender) -> String

    /// Remembers a stored command's key, so a retry counts once.
    mutating func rememberCommand(_ key: String, seq: Int)

    /// Decides a command and applies what it causes. On a throw the document is unchanged.
    /// - Parameter time: now, in seconds since 1970.
    mutating func take(_ command: Command, id: String, from sender: Sender, at time: Double) throws(Failure) -> Decision

    /// Applies an event another node stored (read back from the store, in `seq` order).
    /// - Returns: what to carry out besides sending it, as if this node had taken its command.
    mutating func catchUp(with stored: Stored) throws(Failure) -> [Action]

    /// Takes from `current` what changed outside the log while a decision taken on an older copy
    /// was being stored (a session's viewers arrive without a command). By default, nothing.
    mutating func carryOver(from current: Self)
}

extension LiveDocument {
    public mutating func carryOver(from current: Self) {}
}

/// Everything one command causes, already applied to the document that decided it.
public protocol LiveDecision: Sendable {
    associatedtype Event: Sendable
    associatedtype Stored: Sendable
    associatedtype Action: Sendable

    /// Whether there is anything to store (new events, or records beside them).
    var changesSomething: Bool { get }
    /// The new durable events, numbered from the document's `seq` + 1.
    var events: [Event] { get }
    /// The `seq` to acknowledge the command with.
    var ackSeq: Int { get }
    /// What to carry out once the events are stored and sent.
    var actions: [Action] { get }
    /// The events as the store gives them back, stored at `time` (the last one with the command's key).
    func storedEvents(at time: Date) -> [Stored]
}

/// The refusals the live engine makes on its own, whatever the document.
public protocol LiveFailure: Error {
    /// An event could not be encoded for the clients: refused before anything was stored.
    static var unencodable: Self { get }
    /// The store could not save the command or read the log; nothing changed.
    static var unavailable: Self { get }
    /// Other nodes kept storing first, every attempt: nothing changed, the client may send it again.
    static var contended: Self { get }
}

// MARK: - The live session

extension SessionError: LiveFailure {
    /// A session answers a command other nodes kept beating with `unavailable`, as it always has.
    public static var contended: SessionError { .unavailable }
}

extension SessionDecision: LiveDecision {
    public var ackSeq: Int { outcome.ackSeq }

    public func storedEvents(at time: Date) -> [StoredEvent] {
        let last = events.last?.seq
        return events.map { StoredEvent(event: $0, commandID: $0.seq == last ? commandKey : nil, at: time) }
    }
}

extension SessionState: LiveDocument {
    public func commandKey(_ id: String, from sender: Actor) -> String { sender.scoped(id) }

    public mutating func rememberCommand(_ key: String, seq: Int) { restoreCommand(key, seq: seq) }

    /// Viewers may have arrived while a command was stored (a join does not wait for the
    /// command gate): the new state keeps them.
    public mutating func carryOver(from current: SessionState) { keepViewers(of: current) }
}
