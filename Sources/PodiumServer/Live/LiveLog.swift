import CoreMetrics
import Foundation
import Logging
import PodiumCore
import PodiumStore

/// Where a live log keeps its events: a document kind's table, as the engine sees it.
///
/// A session's events and a storyboard's edits are both rows of (document, seq, command key);
/// one adapter per kind turns a decision into the kind's write and reads the rows back.
protocol LiveLogStore<Document>: Sendable {
    associatedtype Document: LiveDocument

    /// Stores what a decision keeps (its events, and what the kind keeps beside them) in one write,
    /// as the next after `seq`.
    /// - Throws: ``SeqConflict`` when the store is ahead of `seq`, or already holds the command's
    ///   key (another node stored first: the engine catches up and decides again); any other
    ///   error when the store failed.
    func append(_ decision: Document.Decision, after seq: Int, at time: Date) async throws

    /// The stored events after `seq`, in order.
    func events(after seq: Int) async throws -> [Document.Stored]
}

/// What owns a live log: the actor that holds a document's sockets (``LiveSession``), and sends
/// what the log stored or read.
///
/// Every requirement runs on the owner's own executor: the engine's functions are isolated to the
/// owner they are given, so nothing here crosses an actor.
protocol LiveLogOwner<Document>: _Concurrency.Actor {
    associatedtype Document: LiveDocument
    /// An event encoded once for each audience (for a session, hosts and everyone else): the same
    /// buffers then go to every socket.
    associatedtype EncodedEvent

    /// Encodes a decided event, before it is stored: a throw refuses the command (an event that
    /// could not be sent is never kept).
    func frames(for event: Document.Event) throws -> EncodedEvent
    /// Encodes an event read back from the store.
    func frames(forStored stored: Document.Stored) throws -> EncodedEvent
    /// This node's fan-out of a decision just stored: its events' frames to the sockets, then its
    /// actions (the views it changed).
    func deliver(_ decision: Document.Decision, frames: [EncodedEvent]) async
    /// This node's fan-out of an event another node stored (nil frames: it could not be encoded),
    /// and what it causes here.
    func deliver(caughtUp stored: Document.Stored, frames: EncodedEvent?, actions: [Document.Action]) async
    /// Tells the other nodes (the bus) what a decision stored, after this node's fan-out.
    func announce(_ decision: Document.Decision) async
    /// The store refused an append for the command's key, and had no new event: the command was
    /// stored by another node with no event (a session's records). The gate is held.
    func conflictBroughtNoEvents() async throws(Document.Failure)
}

extension LiveLogOwner {
    func conflictBroughtNoEvents() async throws(Document.Failure) {}
}

/// The live engine: one ordered log of a realtime document, the same for every kind.
///
/// A command takes one path, ``perform(_:id:from:for:)``: the ``SerialGate`` (one command at a
/// time across the store's suspension) → a repeated command id is answered as before
/// (``LiveDocument/recentCommands``) → the document decides on a copy
/// (``LiveDocument/take(_:id:from:at:)``, pure) → its events are encoded once per audience
/// (before they are stored: what cannot be sent is refused) → the store appends them → the copy
/// becomes the document → the owner fans the frames out and carries out the actions → the owner
/// hints the bus. When another node stored first (``SeqConflict``) the log catches up from the
/// store and decides again, after a jittered back-off, at most ``appendAttempts`` times.
/// Another node's events arrive by ``catchUp(to:for:)``.
///
/// The log is not `Sendable`: its owner (an actor) holds it, and every function that suspends
/// takes the owner as its isolation, so the log only ever runs on the owner's executor. The owner
/// may change ``document`` meanwhile (outside the log, e.g. a session's arrivals): a decision taken
/// on an older copy keeps those changes (``LiveDocument/carryOver(from:)``).
final class LiveLog<Document: LiveDocument> {
    /// The document as stored, with what changed outside the log since.
    var document: Document
    /// The stored events this node holds, in `seq` order: those after `historyBase`.
    private(set) var history: [Document.Stored]
    /// The `seq` just before the first event in ``history``.
    private(set) var historyBase: Int
    /// At most this many events are kept in ``history`` (nil: every one, e.g. a session, whose
    /// state is rebuilt from it).
    let historyLimit: Int?
    /// Held by a command from before it decides until its events are sent, and by a catch-up.
    let gate = SerialGate()
    /// How often a command is decided again after another node stored events first.
    let appendAttempts: Int
    /// Names the document in log messages ("session ABC123").
    let name: String
    private let store: any LiveLogStore<Document>
    private let now: @Sendable () -> Date
    private let logger: Logger

    /// - Parameters:
    ///   - document: the document as of its last stored event.
    ///   - history: the stored events that led to it, the last one at `document.seq` (may be empty).
    init(
        document: Document, history: [Document.Stored] = [], historyLimit: Int? = nil, store: any LiveLogStore<Document>,
        name: String, appendAttempts: Int = 12, now: @escaping @Sendable () -> Date, logger: Logger
    ) {
        self.document = document
        self.history = history
        self.historyBase = document.seq - history.count
        self.historyLimit = historyLimit
        self.store = store
        self.name = name
        self.appendAttempts = appendAttempts
        self.now = now
        self.logger = logger
        trimHistory()
    }

    /// The stored events after `seq` (at most `limit`), for a reconnect or a client that saw a
    /// gap; nil when this log no longer holds the event after `seq`.
    func stored(after seq: Int, limit: Int) -> ArraySlice<Document.Stored>? {
        guard seq >= historyBase else { return nil }
        let start = seq - historyBase
        guard start < history.count else { return [] }
        return history[start..<min(history.count, start + limit)]
    }

    /// Decides a command, stores what it causes, and has the owner send it.
    /// - Returns: the seq to acknowledge the command with.
    func perform<Owner: LiveLogOwner>(
        _ command: Document.Command, id: String, from sender: Document.Sender, for owner: isolated Owner
    ) async throws(Document.Failure) -> Int where Owner.Document == Document {
        await gate.enter()
        defer { gate.leave() }
        if CommandPathTrace.enabled { CommandPathTrace.stamp("gate", id) }
        for attempt in 0..<appendAttempts {
            let key = document.commandKey(id, from: sender)
            if let seq = document.recentCommands.seq(for: key) { return seq }
            var next = document
            let decision = try next.take(command, id: id, from: sender, at: now().timeIntervalSince1970)
            guard decision.changesSomething else { return decision.ackSeq }
            next.rememberCommand(key, seq: decision.ackSeq)
            // Encoded before it is stored: an event that could not be sent is refused, not kept.
            var frames: [Owner.EncodedEvent] = []
            frames.reserveCapacity(decision.events.count)
            do {
                for event in decision.events { frames.append(try owner.frames(for: event)) }
            } catch {
                logger.error("refused a command in \(name): \(error)")
                throw .unencodable
            }
            let traced = CommandPathTrace.enabled && !decision.events.isEmpty
            if traced { CommandPathTrace.note("decided", id, decision.ackSeq, CommandPathTrace.now) }
            do {
                try await store.append(decision, after: document.seq, at: now())
                if traced { CommandPathTrace.stamp("stored", decision.ackSeq) }
            } catch is SeqConflict {
                // Another node stored events first, or (a retried command) stored this command's
                // key: take what it stored, then decide again on the new document.
                logger.debug("\(name): another node appended first; catching up")
                PodiumMetrics.shared.appendRetries.increment()
                let head = document.seq
                try await catchUpHoldingGate(for: owner)
                if document.seq == head { try await owner.conflictBroughtNoEvents() }
                // Two nodes busy with one document must not keep colliding: the loser waits a
                // random moment, longer each time, before it decides again.
                try? await Task.sleep(for: .microseconds(Int.random(in: 0...(500 << min(attempt, 6)))))
                continue
            } catch {
                logger.error("could not store a command of \(name): \(error)")
                throw .unavailable
            }
            next.carryOver(from: document)
            document = next
            if !decision.events.isEmpty { remember(decision.storedEvents(at: now())) }
            await owner.deliver(decision, frames: frames)
            if traced { CommandPathTrace.stamp("delivered", decision.ackSeq) }
            await owner.announce(decision)
            return decision.ackSeq
        }
        logger.error("\(name): gave up after \(appendAttempts) conflicting appends")
        throw .contended
    }

    /// Another node stored events up to `seq`: read what this node lacks and have the owner send
    /// it on. Without a `seq` (a lost hint is possible), reads whatever the store has beyond this
    /// node.
    func catchUp<Owner: LiveLogOwner>(to seq: Int? = nil, for owner: isolated Owner) async
    where Owner.Document == Document {
        if let seq, seq <= document.seq { return }
        await gate.enter()
        defer { gate.leave() }
        do {
            try await catchUpHoldingGate(for: owner)
        } catch {
            logger.error("\(name): could not catch up to \(seq.map(String.init) ?? "the store"): \(error)")
        }
    }

    /// Applies the stored events after this node's seq, one by one, each sent on before the next
    /// is applied. The caller holds the ``gate``.
    func catchUpHoldingGate<Owner: LiveLogOwner>(for owner: isolated Owner) async throws(Document.Failure)
    where Owner.Document == Document {
        let stored: [Document.Stored]
        do {
            stored = try await store.events(after: document.seq)
        } catch {
            logger.error("could not read events of \(name): \(error)")
            throw .unavailable
        }
        for event in stored {
            let actions = try document.catchUp(with: event)
            remember(CollectionOfOne(event))
            let frames: Owner.EncodedEvent?
            do {
                frames = try owner.frames(forStored: event)
            } catch {
                logger.error("\(name): a stored event could not be sent: \(error)")
                frames = nil
            }
            await owner.deliver(caughtUp: event, frames: frames, actions: actions)
        }
    }

    private func remember(_ events: some Collection<Document.Stored>) {
        history.append(contentsOf: events)
        trimHistory()
    }

    /// Trims back to the limit once it is half as much again over it, so trimming is rare.
    private func trimHistory() {
        guard let historyLimit, history.count > historyLimit + historyLimit / 2 else { return }
        let dropped = history.count - historyLimit
        history.removeFirst(dropped)
        historyBase += dropped
    }
}
