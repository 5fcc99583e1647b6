import Foundation
import Logging
import NIOCore
import PodiumCore
import PodiumStore

/// One live session in memory: its state machine, its history and its sockets.
///
/// The only path that changes a session: ``perform(_:id:role:)`` decides with ``SessionState``,
/// stores the events, then fans them out. A ``SerialGate`` keeps commands strictly in order across
/// the store's suspension point; joins may run meanwhile and see the state before the command,
/// then receive its events like everyone else.
actor LiveSession {
    struct Member {
        let outbox: Outbox
        let role: Role
        let viewerId: String?
        let name: String?
    }

    let record: SessionRecord
    let info: SessionInfo
    private(set) var state: SessionState
    private var history: [SessionEvent]
    private var members: [Int: Member] = [:]
    private var nextMemberID = 0
    private let gate = SerialGate()
    private let store: any SessionStore
    private let now: @Sendable () -> Date
    private let logger: Logger
    /// Told the viewer count and when the session ends, for the lobby.
    private let onChange: @Sendable (LiveSession, _ viewers: Int) async -> Void

    init(
        record: SessionRecord, info: SessionInfo, history: [StoredEvent], store: any SessionStore,
        now: @escaping @Sendable () -> Date, logger: Logger,
        onChange: @escaping @Sendable (LiveSession, Int) async -> Void
    ) throws(SessionError) {
        self.record = record
        self.info = info
        self.state = try SessionState(pageCount: info.pageCount, replaying: history)
        self.history = history.map(\.event)
        self.store = store
        self.now = now
        self.logger = logger
        self.onChange = onChange
    }

    var viewerCount: Int { members.values.count { $0.role == .viewer } }
    var isEnded: Bool { state.snapshot.ended }

    /// Adds a socket and queues its welcome as the first frame, so no event can overtake it.
    /// Returns the member id to pass to ``leave(_:)``.
    func join(role: Role, viewerId: String?, name: String?, lastSeq: Int?, outbox: Outbox) async -> Int {
        let id = nextMemberID
        nextMemberID += 1
        members[id] = Member(outbox: outbox, role: role, viewerId: viewerId, name: name)
        let missed = lastSeq.map { events(after: $0) }
        let welcome = Welcome(
            role: role, seq: state.seq, viewerId: role == .viewer ? viewerId : nil, session: info,
            snapshot: state.snapshot, events: missed, viewers: viewerCount)
        outbox.push(Frames.encode(welcome))
        if role == .viewer { await presenceChanged() }
        return id
    }

    func leave(_ id: Int) async {
        guard let member = members.removeValue(forKey: id) else { return }
        if member.role == .viewer { await presenceChanged() }
    }

    /// The durable events after `seq`, for a reconnect or a client that saw a gap.
    func events(after seq: Int) -> [SessionEvent] {
        // History is dense from seq 1, so the index of seq n+1 is n.
        guard seq < history.count else { return [] }
        return Array(history[max(0, seq)...])
    }

    /// Decides a command, stores what it causes, then sends it to every socket.
    /// - Returns: the seq to acknowledge the command with.
    func perform(_ command: SessionCommand, id: String, role: Role) async throws(SessionError) -> Int {
        await gate.enter()
        defer { gate.leave() }
        var next = state
        let outcome = try next.handle(command, id: id, by: role)
        guard case .applied(let events) = outcome else {
            // Duplicates and no-ops change nothing, but a no-op still records nothing new.
            return outcome.ackSeq
        }
        do {
            try await store.appendEvents(
                sessionId: record.id, events.map { StoredEvent(event: $0, commandID: id) }, at: now())
        } catch {
            logger.error("could not store events of session \(record.code): \(error)")
            throw .unavailable
        }
        state = next
        history += events
        for event in events { broadcast(Frames.encode(event)) }
        if state.snapshot.ended { await sessionEnded() }
        return outcome.ackSeq
    }

    /// Moves or hides the laser pointer: ephemeral, never stored, coalesced per socket.
    func pointer(_ point: PagePoint?, role: Role) throws(SessionError) {
        let update = try state.pointer(point, by: role)
        let frame = Frames.encode(PointerMessage(update))
        for member in members.values { member.outbox.replace(.pointer, with: frame) }
    }

    /// Tells every socket to reconnect (shutdown) and forgets them.
    func closeAll(_ reason: Outbox.CloseReason) {
        for member in members.values { member.outbox.close(reason) }
        members.removeAll()
    }

    private func broadcast(_ frame: ByteBuffer) {
        for (id, member) in members where !member.outbox.push(frame) {
            // Too far behind: the outbox closed itself and the client will resume by lastSeq.
            members[id] = nil
        }
    }

    private func presenceChanged() async {
        let count = viewerCount
        // Presenters see the count change at once; viewers get it in their welcome. Sending every
        // join to every viewer would cost O(n²) frames while a hall fills up.
        let frame = Frames.encode(PresenceMessage(viewers: count))
        for member in members.values where member.role == .presenter { member.outbox.replace(.presence, with: frame) }
        await onChange(self, count)
    }

    private func sessionEnded() async {
        do {
            try await store.markSessionEnded(id: record.id, at: now())
        } catch {
            // The `ended` event is stored, which is what counts; the flag is rebuilt at start.
            logger.error("could not mark session \(record.code) ended: \(error)")
        }
        await onChange(self, viewerCount)
    }
}
