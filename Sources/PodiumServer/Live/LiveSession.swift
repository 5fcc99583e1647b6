import CoreMetrics
import Foundation
import Logging
import NIOCore
import PodiumCore
import PodiumStore

/// One live session in memory: its state machine, its history and its sockets.
///
/// Every command takes one path, ``perform(_:id:actor:)``, through the session's ``LiveLog`` (the
/// live engine every realtime document shares): the ``SerialGate`` (commands strictly in order
/// across the store's suspension point) → ``SessionState/take(_:id:from:at:)`` decides (pure, in
/// PodiumCore) → the store appends its events and records in one write → the events go to every
/// socket, the actions refresh the views that changed (``carryOut(_:)``), and the bus hints other
/// nodes (this actor is the log's ``LiveLogOwner``). Joins may run meanwhile and see the state
/// before the command, then receive its events like everyone else. Events another node stored
/// arrive by ``catchUp(to:)``.
actor LiveSession {
    struct Member {
        let outbox: Outbox
        let role: Role
        /// Sees what viewers may not (answers before reveal, questions, the viewer list): the
        /// presenter of a session, the moderator and the presenters of a room.
        let host: Bool
        let viewerId: String?
        /// In a room, the presenter's public id.
        let presenterId: String?
        let name: String?
        /// The attendance row of this visit (viewers only).
        var visit: String?
        /// A big screen (a session's screen, a room's projector): it sees what viewers see, but is
        /// nobody in the audience (not counted, not listed, no attendance).
        var screen = false
    }

    /// What the store kept beside the events, to rebuild a session after a restart.
    struct Restored {
        var answers: [(pollId: Int, viewerId: String, answer: PollAnswer, at: Date)] = []
        var questions: [AudienceQuestion] = []
        var viewers: [ViewerEntry] = []
        var votes: [(questionId: String, viewerId: String)] = []
        /// Ids of commands that stored records but no event, with their seq.
        var commands: [(key: String, seq: Int)] = []
        /// The session's record seq when it was read: every record up to it is in the lists above
        /// (later ones may be too; applying them again from the record log changes nothing).
        var recordSeq = 0

        /// What the store holds for the session at a (re)start. Read before the events: a
        /// record the tables hold up to `recordSeq` was stored after the events it refers to (the
        /// poll it answers), so those are in the history read next; a later one is read again from
        /// the record log, after the events (``LiveSession/reloadRecords()``).
        static func load(from stores: LiveStores, sessionId: String) async throws -> Restored {
            let audience = stores.audience
            let recordSeq = try await audience.audienceRecordSeq(sessionId: sessionId)
            return Restored(
                answers: try await audience.answers(sessionId: sessionId),
                questions: try await audience.questions(sessionId: sessionId),
                viewers: try await audience.viewers(sessionId: sessionId), votes: try await audience.votes(sessionId: sessionId),
                commands: try await stores.sessions.recordedCommands(sessionId: sessionId, limit: SessionState.commandMemory),
                recordSeq: recordSeq)
        }
    }

    /// The most events a welcome replays, or a `resync` answers at once.
    static let maxReplay = 1000
    static let viewerListInterval = Duration.milliseconds(500)
    /// How often a command is decided again after another node stored events first.
    static let appendAttempts = 12
    /// The most audience records read from the record log at once.
    static let recordBatch = 500

    let record: SessionRecord
    let info: SessionInfo
    /// The session's live log (``LiveLog``): its state, its stored events and its command gate.
    private let log: LiveLog<SessionState>
    /// The state machine, as the log holds it (changed in place: a join registers a viewer).
    private(set) var state: SessionState {
        _read { yield log.document }
        _modify { yield &log.document }
    }
    /// Every durable event, dense from seq 1, as stored (with its command id and time).
    private var history: [StoredEvent] { log.history }
    /// The session's record seq this node has applied: a `records` note (and the periodic
    /// check) reads only the audience records stored after it.
    private var recordSeq: Int
    var fanOut = SessionFanOut()
    var published = PublishedViews()
    private var nextMemberID = 0
    /// The signed-in users of its host sockets (a session's presenter console, a room's
    /// moderator), by member id: a co-host taken off the session loses an open console at once
    /// (``recheckHosts(_:)``), not only at their next hello.
    private var hostUsers: [Int: UserRecord] = [:]
    /// The paused reference this node made while the room's projector buffered (see
    /// `projectorBuffering`); nil when it holds nothing.
    var heldForProjector: Playback?
    /// The log's gate: commands, catch-ups and record reloads one at a time.
    private var gate: SerialGate { log.gate }
    private let stores: LiveStores
    private let bus: any SessionBus
    private let node: String
    private let now: @Sendable () -> Date
    private let logger: Logger
    /// The pointer's side log while the presenter records (replay): noted without waiting.
    let replayRecorder: ReplayRecorder

    init(
        record: SessionRecord, info: SessionInfo, history: [StoredEvent], stores: LiveStores, restored: Restored,
        bus: any SessionBus, node: String, now: @escaping @Sendable () -> Date, logger: Logger
    ) throws(SessionError) {
        self.record = record
        self.info = info
        self.log = LiveLog(
            document: try Self.rebuild(pageCount: info.pageCount, room: record.isRoom, history: history, restored: restored),
            history: history, store: SessionLogStore(store: stores.sessions, sessionId: record.id),
            name: "session \(record.code)", appendAttempts: Self.appendAttempts, now: now, logger: logger)
        self.recordSeq = restored.recordSeq
        self.stores = stores
        self.bus = bus
        self.node = node
        self.now = now
        self.logger = logger
        self.replayRecorder = ReplayRecorder(sessionId: record.id, store: stores.replay, now: now, logger: logger)
    }

    /// The state a restart would build: the events replayed, then the audience's records.
    static func rebuild(pageCount: Int, room: Bool, history: [StoredEvent], restored: Restored) throws(SessionError)
        -> SessionState
    {
        var state = try SessionState(pageCount: pageCount, room: room, replaying: history)
        state.restoreViewers(restored.viewers)
        for answer in restored.answers {
            state.restore(
                .answer(pollId: answer.pollId, viewerId: answer.viewerId, answer.answer), at: answer.at.timeIntervalSince1970)
        }
        for question in restored.questions { state.restore(.question(question), at: question.askedAt.timeIntervalSince1970) }
        for vote in restored.votes { state.restore(.vote(questionId: vote.questionId, viewerId: vote.viewerId, up: true), at: 0) }
        for command in restored.commands { state.restoreCommand(command.key, seq: command.seq) }
        return state
    }

    var viewerCount: Int { fanOut.members.viewerCount }
    var isEnded: Bool { state.snapshot.ended }

    /// Adds a socket and queues its welcome as the first frame, so no event can overtake it.
    /// Returns the member id to pass to ``leave(_:)``.
    func join(
        role: Role, viewerId: String?, presenterId: String? = nil, name: String?, lastSeq: Int?, screen: Bool = false,
        hostUser: UserRecord? = nil, outbox: Outbox
    ) async -> Int {
        let id = nextMemberID
        nextMemberID += 1
        if let hostUser { hostUsers[id] = hostUser }
        var visit: String?
        // A big screen is nobody in the audience: no identity, no visit, no count.
        let viewerId = screen ? nil : viewerId
        let screen = screen && role == .viewer
        if role == .viewer, let viewerId {
            let thisVisit = IDs.make("a")
            visit = thisVisit
            // A newcomer to this node is numbered by the store: a new number, given once across
            // every node, or the one they already have if they arrived through another node
            // first. Only their own row is written and read (reading the whole audience on every
            // arrival made a hall of n arrive in n²); the other nodes' viewers come with their
            // notes (`reloadRecords`, from the record log, where this row is numbered too). A
            // viewer known here is stored again only with a new name.
            let newcomer = state.viewerEntry(viewerId) == nil
            var saving: ViewerEntry?
            if newcomer {
                saving = state.viewers.proposedEntry(viewerId, name: name)
            } else if state.registerViewer(viewerId, name: name).changed {
                saving = state.viewerEntry(viewerId)
            }
            do {
                // The visit and the viewer in one transaction: one trip to the store per hello.
                let stored = try await stores.attendance.visitStarted(
                    id: thisVisit, sessionId: record.id, viewerId: viewerId, saving: saving, at: now())
                if newcomer, let stored { state.restoreViewers([stored]) }
                if saving != nil {
                    await bus.note(SessionNote(node: node, sessionId: record.id, code: record.code, kind: .records))
                }
            } catch {
                logger.error("could not record the arrival of a viewer in session \(record.code): \(error)")
            }
            // Known now (unless the store failed: then numbered by this node alone); a name
            // given now replaces the one another node knew.
            if newcomer { _ = state.registerViewer(viewerId, name: name) }
        }
        if let lastSeq, lastSeq > state.seq {
            // The client comes from a node that was ahead of this one: read what it has seen
            // first, or the welcome would be behind the client and those events would then reach
            // it a second time, as this node catches up.
            await catchUp(to: lastSeq)
        }
        // The socket joins the fan-out only now, with no suspension before its welcome is queued:
        // whatever happened while the store was written is in the welcome, and nothing can
        // reach the socket before it.
        fanOut.add(
            id,
            Member(
                outbox: outbox, role: role, host: state.seesHostViews(role), viewerId: viewerId,
                presenterId: role == .presenter ? presenterId : nil, name: screen ? nil : name, visit: visit, screen: screen))
        // A client far behind (cut off for being slow, away for long) takes the snapshot instead:
        // replaying thousands of events would be one huge frame, and the snapshot says it all.
        let missed = lastSeq.flatMap { $0 >= state.seq - Self.maxReplay ? events(after: $0) : nil }
        outbox.push(
            published.welcomeFrames.frame(
                views.welcome(info: info, role: role, viewerId: viewerId, presenterId: presenterId, missed: missed),
                host: state.seesHostViews(role)))
        if role == .viewer, !screen {
            await presenceChanged()
            publishViewerList()
        }
        if presenterId != nil, role == .presenter { publishRoomPresence() }
        return id
    }

    func leave(_ id: Int) async {
        hostUsers[id] = nil
        guard let member = fanOut.remove(id) else { return }
        if let visit = member.visit {
            do {
                try await stores.attendance.attendanceEnded(id: visit, at: now())
            } catch {
                logger.error("could not record attendance in session \(record.code): \(error)")
            }
        }
        if member.role == .viewer, !member.screen {
            await presenceChanged()
            publishViewerList()
        }
        if member.presenterId != nil { publishRoomPresence() }
    }

    /// Closes the host sockets whose user no longer hosts the session (a co-host taken off it):
    /// each client reconnects, and its hello is refused as anyone else's would be.
    func recheckHosts(_ hosts: SessionHosts) async {
        for (id, user) in hostUsers {
            let stillHosts: Bool
            do {
                stillHosts = try await hosts.isHost(user, of: record)
            } catch {
                // Kept until the next change or their next hello: the store, not the grant, failed.
                logger.error("could not check the hosts of session \(record.code): \(error)")
                continue
            }
            guard !stillHosts, hostUsers[id] != nil else { continue }
            hostUsers[id] = nil
            fanOut.members.all[id]?.outbox.close(.finished)
        }
    }

    /// Sends a frame to one room presenter's sockets, or (nil) to the moderator's.
    func tell(presenterId: String?, _ frame: ByteBuffer) {
        fanOut.toPresenter(presenterId, frame)
    }

    /// The durable events after `seq` (at most `limit`), for a reconnect or a client that saw a gap.
    func events(after seq: Int, limit: Int = LiveSession.maxReplay) -> [SessionEvent] {
        // The log holds every event from seq 1.
        log.stored(after: max(0, seq), limit: limit)?.map(\.event) ?? []
    }

    /// Decides a command, stores what it causes, sends its events and refreshes what it changed.
    /// - Returns: the seq to acknowledge the command with.
    func perform(_ command: SessionCommand, id: String, actor: Actor) async throws(SessionError) -> Int {
        let seq = try await log.perform(command, id: id, from: actor, for: self)
        // Recording stopped: the pointer's side log is stored whole before the answer (rare).
        if command == .recording(false) || command == .end { await replayRecorder.flush() }
        return seq
    }

    /// Another node stored events up to `seq`: read what this node lacks and send it on.
    /// Without a `seq` (a lost hint is possible), reads whatever the store has beyond this node.
    func catchUp(to seq: Int? = nil) async {
        await log.catchUp(to: seq, for: self)
    }

    /// Another node stored audience records (answers, questions, votes, viewers), or the periodic
    /// check: apply those stored after this node's record seq, one by one, and refresh only the
    /// views they changed. Never a reload of the whole audience.
    func reloadRecords() async {
        await gate.enter()
        defer { gate.leave() }
        do {
            try await reloadRecordsFromStore()
        } catch {
            logger.error("session \(record.code): could not read the audience's records: \(error)")
        }
    }

    /// Reads the record log after ``recordSeq`` and applies it in order (this node's own records
    /// come back too: applied again, they change nothing). The gate is held.
    private func reloadRecordsFromStore() async throws(SessionError) {
        while true {
            let batch: [StoredAudienceRecord]
            do {
                batch = try await stores.audience.audienceRecords(
                    sessionId: record.id, afterRecordSeq: recordSeq, limit: Self.recordBatch)
            } catch {
                logger.error("could not read the records of session \(record.code): \(error)")
                throw .unavailable
            }
            guard !batch.isEmpty else { return }
            // The events first: a record read now was stored after the events it refers to (the
            // poll it answers), and those are in the store by now.
            try await catchUpFromStore()
            var actions: [SessionAction] = []
            for stored in batch {
                if stored.rseq != recordSeq + 1 {
                    // Numbers are given without gaps: this would be a store out of order.
                    logger.error("session \(record.code): audience record \(stored.rseq) follows \(recordSeq)")
                }
                actions += state.catchUp(with: stored)
                recordSeq = stored.rseq
            }
            await carryOut(actions)
            if batch.count < Self.recordBatch { return }
        }
    }

    /// Applies and sends the stored events after this node's seq. The gate is held.
    private func catchUpFromStore() async throws(SessionError) {
        try await log.catchUpHoldingGate(for: self)
    }

    /// The stroke being drawn: ephemeral like the pointer, so a slow viewer gets only the newest.
    func inking(_ message: InkingMessage, role: Role, presenterId: String? = nil) async throws(SessionError) {
        let message = try state.inking(message, by: role, presenterId: presenterId)
        if state.snapshot.recording { replayRecorder.inking(message) }
        await relay(.inking, Frames.encode(message))
    }

    /// Moves or hides the laser pointer: ephemeral, never stored, coalesced per socket.
    func pointer(_ point: PagePoint?, role: Role, presenterId: String? = nil) async throws(SessionError) {
        let update = try state.pointer(point, by: role, presenterId: presenterId)
        if state.snapshot.recording { replayRecorder.pointer(update.point, page: update.page, deck: update.content.deck) }
        await relay(.pointer, Frames.encode(PointerMessage(update)))
    }

    /// The stage's frames other nodes relay to their sockets as they are.
    static let relayedKeys: [String: EphemeralKey] = [EphemeralKey.pointer.name: .pointer, EphemeralKey.inking.name: .inking]

    /// A newest-wins frame to every socket here, and through the bus to the other nodes' sockets.
    private func relay(_ key: EphemeralKey, _ frame: ByteBuffer) async {
        fanOut.toEveryone(.replace(key, Outbox.Frame(frame)))
        await bus.note(
            SessionNote(
                node: node, sessionId: record.id, code: record.code, kind: .ephemeral(key: key.name, frame: frame)
            ))
    }

    /// Another node's pointer or ink in progress, for this node's sockets.
    func relayed(key name: String, frame: ByteBuffer) {
        guard let key = Self.relayedKeys[name] else {
            logger.debug("session \(record.code): ignored a relayed frame of unknown kind \(name)")
            return
        }
        fanOut.toEveryone(.replace(key, Outbox.Frame(frame)))
    }

    /// Tells every socket to reconnect (shutdown) and forgets them.
    func closeAll(_ reason: Outbox.CloseReason) {
        fanOut.closeAll(reason)
    }

    /// This node's viewers of the session, and whether it is live, for every node's lobby.
    func announcePresence() async {
        await bus.presence(
            PresenceUpdate(node: node, sessionId: record.id, code: record.code, viewers: viewerCount, live: !isEnded))
    }

    func sessionEnded() async {
        do {
            try await stores.sessions.markSessionEnded(id: record.id, at: now())
        } catch {
            // The `ended` event is stored, which is what counts; the flag is rebuilt at start.
            logger.error("could not mark session \(record.code) ended: \(error)")
        }
        await announcePresence()
    }
}

/// The session on the live engine: how its log's decisions and caught-up events reach the sockets
/// here and the other nodes.
extension LiveSession: LiveLogOwner {
    typealias Document = SessionState
    typealias EncodedEvent = EventFrames

    func frames(for event: SessionEvent) throws(FrameEncodingError) -> EventFrames { try EventFrames(event) }

    func frames(forStored stored: StoredEvent) throws(FrameEncodingError) -> EventFrames { try EventFrames(stored.event) }

    func deliver(_ decision: SessionDecision, frames: [EventFrames]) async {
        PodiumMetrics.shared.eventsAppended.increment(by: decision.events.count)
        let started = ContinuousClock.now
        if CommandPathTrace.enabled, let seq = decision.events.last?.seq {
            // Each loop's queue says which of its passes will write this seq.
            CommandPathTrace.withSeq(seq) { for frame in frames { fanOut.broadcast(frame) } }
        } else {
            for frame in frames { fanOut.broadcast(frame) }
        }
        await carryOut(decision.actions)
        PodiumMetrics.shared.fanOut.recordDuration(since: started)
    }

    func deliver(caughtUp stored: StoredEvent, frames: EventFrames?, actions: [SessionAction]) async {
        if let frames { fanOut.broadcast(frames) }
        await carryOut(actions)
    }

    func announce(_ decision: SessionDecision) async {
        if let last = decision.events.last {
            await bus.appended(AppendedHint(node: node, sessionId: record.id, code: record.code, seq: last.seq))
        }
        if !decision.records.isEmpty {
            await bus.note(SessionNote(node: node, sessionId: record.id, code: record.code, kind: .records))
        }
    }

    /// The command's id was stored with records only (no event): read the audience's records.
    func conflictBroughtNoEvents() async throws(SessionError) {
        try await reloadRecordsFromStore()
    }
}

/// A session's events in the store, for its ``LiveLog``: one write per command (its events and
/// the audience's records), read back in order.
struct SessionLogStore: LiveLogStore {
    typealias Document = SessionState

    let store: any SessionStore
    let sessionId: String

    func append(_ decision: SessionDecision, after seq: Int, at time: Date) async throws {
        try await store.append(
            sessionId: sessionId,
            CommandWrite(
                commandKey: decision.commandKey, events: decision.events, records: decision.records,
                seq: decision.outcome.ackSeq),
            at: time)
    }

    func events(after seq: Int) async throws -> [StoredEvent] {
        try await store.events(sessionId: sessionId, afterSeq: seq)
    }
}

/// The stage's newest-wins frames: the laser pointer and the stroke being drawn.
extension EphemeralKey {
    static let pointer = EphemeralKey("pointer")
    static let inking = EphemeralKey("inking")
}
