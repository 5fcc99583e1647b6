/// The state machine of one live session: a pure function of state and command.
///
/// The server's hub holds one per live session and is the only thing that mutates it: it calls
/// ``handle(_:id:by:)``, stores the returned events, then fans them out. Clients rebuild the same
/// state from a ``SessionSnapshot`` and the events after it. No I/O, no clocks.
public struct SessionState: Sendable, Equatable {
    public let pageCount: Int
    public private(set) var snapshot: SessionSnapshot
    /// The `seq` of the last durable event; 0 before the first.
    public private(set) var seq: Int
    public private(set) var recentCommands: RecentCommands

    public init(pageCount: Int, snapshot: SessionSnapshot = SessionSnapshot(), seq: Int = 0, commandMemory: Int = 4096) {
        precondition(pageCount >= 1, "a session shows a deck with at least one page")
        self.pageCount = pageCount
        self.snapshot = snapshot
        self.seq = seq
        self.recentCommands = RecentCommands(capacity: commandMemory)
    }

    /// Rebuilds a session from its stored history, e.g. after a restart.
    public init(pageCount: Int, replaying events: [StoredEvent], commandMemory: Int = 4096) throws(SessionError) {
        self.init(pageCount: pageCount, commandMemory: commandMemory)
        for stored in events {
            guard stored.event.seq == seq + 1 else {
                throw SessionError(code: "corrupt_history", message: "event \(stored.event.seq) follows \(seq)")
            }
            apply(stored.event)
            if let id = stored.commandID { recentCommands.remember(id, seq: stored.event.seq) }
        }
    }

    /// Decides a command, and applies what it causes.
    ///
    /// - Parameters:
    ///   - command: what the client asks for.
    ///   - id: the client's id for the command; a repeated id changes nothing.
    ///   - role: who asks.
    /// - Returns: the outcome; `.applied` events are already part of the state.
    /// - Throws: ``SessionError`` when a rule refuses the command; the state is then unchanged.
    public mutating func handle(_ command: SessionCommand, id: String, by role: Role) throws(SessionError) -> CommandOutcome {
        if let seq = recentCommands.seq(for: id) { return .duplicate(seq: seq) }
        let changes = try decide(command, by: role)
        guard !changes.isEmpty else { return .unchanged(seq: seq) }
        var events: [SessionEvent] = []
        for change in changes {
            let event = SessionEvent(seq: seq + 1, change: change)
            apply(event)
            events.append(event)
        }
        recentCommands.remember(id, seq: seq)
        return .applied(events)
    }

    /// Authorises a laser-pointer move. Pointer moves are ephemeral: they change no state.
    public func pointer(_ point: PagePoint?, by role: Role) throws(SessionError) -> PointerUpdate {
        guard role == .presenter else { throw .forbidden }
        guard !snapshot.ended else { throw .ended }
        guard let point else { return PointerUpdate(page: snapshot.page, point: nil) }
        guard point.isValid else { throw .invalidPoint }
        return PointerUpdate(page: snapshot.page, point: point)
    }

    /// The rules. Returns the changes a command causes, or throws why it may not.
    func decide(_ command: SessionCommand, by role: Role) throws(SessionError) -> [SessionChange] {
        if case .goto(let page) = command, role == .viewer {
            // A viewer's own navigation never changes the session for anyone else.
            guard (1...pageCount).contains(page) else { throw .invalidPage }
            guard !snapshot.locked else { throw .followingPresenter }
            return []
        }
        guard role == .presenter else { throw .forbidden }
        guard !snapshot.ended else { throw .ended }
        switch command {
        case .goto(let page):
            guard (1...pageCount).contains(page) else { throw .invalidPage }
            let unchanged = page == snapshot.page && snapshot.viewport == .fullPage
            return unchanged ? [] : [.page(page)]
        case .zoom(let viewport):
            guard viewport.isValid else { throw .invalidViewport }
            return viewport == snapshot.viewport ? [] : [.zoom(viewport)]
        case .blank(let mode):
            return mode == snapshot.blank ? [] : [.blank(mode)]
        case .lock(let locked):
            return locked == snapshot.locked ? [] : [.lock(locked)]
        case .end:
            return [.ended]
        }
    }

    mutating func apply(_ event: SessionEvent) {
        snapshot.apply(event.change)
        seq = event.seq
    }
}

/// Where the laser pointer is now; `point` nil hides it.
public struct PointerUpdate: Sendable, Equatable {
    public var page: Int
    public var point: PagePoint?
}

/// A durable event as the store keeps it: with the id of the command that caused it, so
/// deduplication survives a restart.
public struct StoredEvent: Sendable, Equatable {
    public var event: SessionEvent
    public var commandID: String?

    public init(event: SessionEvent, commandID: String?) {
        self.event = event
        self.commandID = commandID
    }
}
