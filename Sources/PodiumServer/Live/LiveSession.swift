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
        /// Runs the session: the presenter of a session, the moderator of a room. Hosts see
        /// what viewers may not (answers before reveal, every question, the viewer list).
        let host: Bool
        let viewerId: String?
        /// In a room, the presenter's public id.
        let presenterId: String?
        let name: String?
        /// The attendance row of this visit (viewers only).
        var visit: String?
    }

    /// What the audience contributed before a restart.
    struct Restored {
        var answers: [(pollId: Int, viewerId: String, answer: PollAnswer, at: Date)] = []
        var questions: [AudienceQuestion] = []
        var viewers: [ViewerEntry] = []
        var votes: [(questionId: String, viewerId: String)] = []
    }

    let record: SessionRecord
    let info: SessionInfo
    private(set) var state: SessionState
    private var history: [SessionEvent]
    private var members = SessionMembers()
    /// Every socket's outbox by audience and event loop, for broadcasts, so a broadcast costs one
    /// queue entry per loop instead of a visit to every member. A newcomer is appended; sockets
    /// of members who left stay (a closed outbox takes nothing) until enough have left to build
    /// the groups again: while a hall fills, every join would otherwise start new groups, and a
    /// pass holding broadcasts for the old groups and the new would visit every socket twice.
    private var fanOut: (hosts: OutboxGroups, others: OutboxGroups)?
    /// Members who left since the groups were built.
    private var departed = 0
    private var nextMemberID = 0
    private let gate = SerialGate()
    /// When each poll opened, for quiz speed points.
    private var pollOpenedAt: [Int: Date]
    static let viewerListInterval = Duration.milliseconds(500)
    /// How many members may leave before the broadcast groups are built again (or an eighth of
    /// those still there, if more): their closed sockets cost a check each per broadcast.
    static let departuresBeforeRebuild = 64
    private var lastViewerList: ContinuousClock.Instant?
    private var viewerListFlush: Task<Void, Never>?
    private var viewerListFrames = ViewerListFrames()
    /// The public question list as last sent to viewers.
    private var lastPublicList: [PublicQuestion] = []
    private let store: any PodiumStore
    private let now: @Sendable () -> Date
    private let logger: Logger
    /// Told the viewer count and when the session ends, for the lobby.
    private let onChange: @Sendable (LiveSession, _ viewers: Int) async -> Void

    init(
        record: SessionRecord, info: SessionInfo, history: [StoredEvent], store: any PodiumStore,
        restored: Restored, now: @escaping @Sendable () -> Date, logger: Logger,
        onChange: @escaping @Sendable (LiveSession, Int) async -> Void
    ) throws(SessionError) {
        self.record = record
        self.info = info
        var state = try SessionState(pageCount: info.pageCount, room: record.isRoom, replaying: history)
        state.restoreViewers(restored.viewers)
        var openedAt: [Int: Date] = [:]
        for stored in history {
            if case .pollOpened(let poll) = stored.event.change, let at = stored.at { openedAt[poll.id] = at }
        }
        for answer in restored.answers {
            let elapsed = openedAt[answer.pollId].map { answer.at.timeIntervalSince($0) } ?? QuizScoring.bonusWindow
            state.restoreAnswer(pollId: answer.pollId, answer.answer, viewer: answer.viewerId, after: elapsed)
        }
        self.pollOpenedAt = openedAt
        for question in restored.questions { state.restoreQuestion(question) }
        for vote in restored.votes { state.restoreVote(questionId: vote.questionId, viewer: vote.viewerId) }
        self.state = state
        self.history = history.map(\.event)
        self.store = store
        self.now = now
        self.logger = logger
        self.onChange = onChange
    }

    var viewerCount: Int { members.viewerCount }
    var isEnded: Bool { state.snapshot.ended }

    /// Adds a socket and queues its welcome as the first frame, so no event can overtake it.
    /// Returns the member id to pass to ``leave(_:)``.
    func join(role: Role, viewerId: String?, presenterId: String? = nil, name: String?, lastSeq: Int?, outbox: Outbox) async
        -> Int
    {
        let id = nextMemberID
        nextMemberID += 1
        let host = state.isHost(role)
        var visit: String?
        if role == .viewer, let viewerId {
            let thisVisit = IDs.make("a")
            visit = thisVisit
            do {
                try await store.attendanceStarted(id: thisVisit, sessionId: record.id, viewerId: viewerId, at: now())
            } catch {
                logger.error("could not record attendance in session \(record.code): \(error)")
            }
            let (entry, changed) = state.registerViewer(viewerId, name: name)
            if changed {
                do {
                    try await store.saveViewer(sessionId: record.id, entry, at: now())
                } catch {
                    logger.error("could not store viewer of session \(record.code): \(error)")
                }
            }
        }
        // The socket joins the fan-out only now, with no suspension before its welcome is queued:
        // whatever happened while the store was written is in the welcome, and nothing can
        // reach the socket before it.
        members.add(
            id,
            Member(
                outbox: outbox, role: role, host: host, viewerId: viewerId,
                presenterId: role == .presenter ? presenterId : nil, name: name, visit: visit))
        if host { fanOut?.hosts.append(outbox) } else { fanOut?.others.append(outbox) }
        // A client far behind (cut off for being slow, away for long) takes the snapshot instead:
        // replaying thousands of events would be one huge frame, and the snapshot says it all.
        let missed = lastSeq.flatMap { $0 >= state.seq - Self.maxReplay ? events(after: $0) : nil }
        var welcome = Welcome(
            role: role, seq: state.seq, viewerId: role == .viewer ? viewerId : nil, session: info,
            snapshot: host ? state.snapshot : state.snapshot.forViewers,
            events: host ? missed : missed?.map(\.forViewers), viewers: viewerCount)
        if state.snapshot.room != nil {
            welcome.presenterId = role == .presenter ? presenterId : nil
            welcome.connectedPresenters = connectedPresenters
        }
        if hasScoredQuiz {
            let board = state.leaderboard
            welcome.leaderboard = LeaderboardMessage(entries: Array(board.prefix(LeaderboardMessage.shown)), players: board.count)
        }
        if host {
            welcome.questions = questionViews()
            welcome.viewerList = viewerViews()
            welcome.results = state.snapshot.polls.map { results(for: $0.poll.id, forPresenter: true) }
        } else if role == .viewer {
            welcome.results = state.snapshot.polls.filter(\.resultsVisibleToViewers).map {
                results(for: $0.poll.id, forPresenter: false)
            }
            welcome.myAnswers = viewerId.map(myAnswers(of:))
            if let viewerId, hasScoredQuiz {
                welcome.myScore = myScore(of: viewerId, in: state.leaderboard)
            }
            if state.snapshot.questionMode.isPublic {
                welcome.publicQuestions = publicQuestionViews()
                welcome.myVotes = viewerId.map(votes(of:))
            }
        }
        outbox.push(Frames.encode(welcome))
        if role == .viewer {
            await presenceChanged()
            publishViewerList()
        }
        if presenterId != nil, role == .presenter { publishRoomPresence() }
        return id
    }

    func leave(_ id: Int) async {
        guard let member = members.remove(id) else { return }
        departed += 1
        if departed > max(Self.departuresBeforeRebuild, members.count / 8) {
            fanOut = nil
            departed = 0
        }
        if let visit = member.visit {
            do {
                try await store.attendanceEnded(id: visit, at: now())
            } catch {
                logger.error("could not record attendance in session \(record.code): \(error)")
            }
        }
        if member.role == .viewer {
            await presenceChanged()
            publishViewerList()
        }
        if member.presenterId != nil { publishRoomPresence() }
    }

    /// Sends a frame to one room presenter's sockets, or (nil) to the moderator's.
    func tell(presenterId: String?, _ frame: ByteBuffer) {
        for member in members.all.values
        where presenterId.map({ member.presenterId == $0 }) ?? (member.role == .moderator) {
            member.outbox.push(frame)
        }
    }

    /// The room's presenters with a socket open now.
    private var connectedPresenters: [String] { members.connectedPresenters }

    /// Who of a room's presenters is connected, to everyone: rare (a presenter comes or goes).
    private func publishRoomPresence() {
        let frame = Frames.encode(RoomPresenceMessage(connected: connectedPresenters))
        toEveryone(.replace(.roomPresence, Outbox.Frame(frame)))
    }

    /// The most events a welcome replays, or a `resync` answers at once.
    static let maxReplay = 1000

    /// The durable events after `seq` (at most `limit`), for a reconnect or a client that saw a gap.
    func events(after seq: Int, limit: Int = LiveSession.maxReplay) -> [SessionEvent] {
        // History is dense from seq 1, so the index of seq n+1 is n.
        guard seq < history.count else { return [] }
        let start = max(0, seq)
        return Array(history[start..<min(history.count, start + limit)])
    }

    /// Decides a command, stores what it causes, then sends it to every socket.
    /// - Returns: the seq to acknowledge the command with.
    func perform(_ command: SessionCommand, id: String, role: Role, presenterId: String? = nil) async throws(SessionError)
        -> Int
    {
        await gate.enter()
        defer { gate.leave() }
        var next = state
        let outcome = try next.handle(
            command, id: id, by: role, presenterId: presenterId, at: now().timeIntervalSince1970)
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
        for event in events { broadcast(event) }
        if state.snapshot.ended { await sessionEnded() }
        return outcome.ackSeq
    }

    /// Takes a viewer's answer: stored, then the tally goes to presenters (and to viewers when the
    /// poll shows results) and the answer back to every socket of that viewer.
    func answer(pollId: Int, _ answer: PollAnswer, viewerId: String, role: Role) async throws(SessionError) {
        await gate.enter()
        defer { gate.leave() }
        var next = state
        let elapsed = pollOpenedAt[pollId].map { now().timeIntervalSince($0) } ?? QuizScoring.bonusWindow
        guard try next.answer(pollId: pollId, answer, viewer: viewerId, after: elapsed, by: role),
            let held = next.tallies[pollId]?.answers[viewerId]
        else { return }
        do {
            try await store.saveAnswer(sessionId: record.id, pollId: pollId, viewerId: viewerId, held, at: now())
        } catch {
            logger.error("could not store an answer in session \(record.code): \(error)")
            throw .unavailable
        }
        state = next
        let mine = Frames.encode(MyAnswerMessage(pollId: pollId, answer: held))
        for member in members.sockets(ofViewer: viewerId) { member.outbox.replace(.myAnswer, with: mine) }
        publishResults(pollId)
    }

    /// Takes a viewer's question for the presenter.
    func ask(id: String, text: String, page: Int?, anonymous: Bool, viewerId: String, role: Role) async throws(SessionError) {
        await gate.enter()
        defer { gate.leave() }
        var next = state
        guard
            let question = try next.ask(
                id: id, text: text, page: page, anonymous: anonymous, viewer: viewerId, at: now(), by: role)
        else { return }  // a retry of a question already taken
        do {
            try await store.saveQuestion(sessionId: record.id, question)
        } catch {
            logger.error("could not store a question in session \(record.code): \(error)")
            throw .unavailable
        }
        state = next
        publishQuestions()
        publishViewerList()
    }

    func markQuestion(id: String, answered: Bool, role: Role) async throws(SessionError) {
        await gate.enter()
        defer { gate.leave() }
        var next = state
        guard try next.markQuestion(id: id, answered: answered, by: role) != nil else { return }
        do {
            try await store.setQuestionAnswered(sessionId: record.id, questionId: id, answered: answered)
        } catch {
            logger.error("could not mark a question in session \(record.code): \(error)")
            throw .unavailable
        }
        state = next
        publishQuestions()
    }

    /// Approves a question for the public list, or withdraws it.
    func approveQuestion(id: String, approved: Bool, role: Role) async throws(SessionError) {
        await gate.enter()
        defer { gate.leave() }
        var next = state
        guard try next.approveQuestion(id: id, approved: approved, by: role) != nil else { return }
        do {
            try await store.setQuestionApproved(sessionId: record.id, questionId: id, approved: approved)
        } catch {
            logger.error("could not approve a question in session \(record.code): \(error)")
            throw .unavailable
        }
        state = next
        publishQuestions()
    }

    /// A viewer's upvote of a public question, or its withdrawal.
    func vote(questionId: String, up: Bool, viewerId: String, role: Role) async throws(SessionError) {
        await gate.enter()
        defer { gate.leave() }
        var next = state
        guard try next.vote(questionId: questionId, up: up, viewer: viewerId, by: role) else { return }
        do {
            try await store.saveVote(sessionId: record.id, questionId: questionId, viewerId: viewerId, up: up)
        } catch {
            logger.error("could not store a vote in session \(record.code): \(error)")
            throw .unavailable
        }
        state = next
        let mine = Frames.encode(MyVotesMessage(questionIds: votes(of: viewerId)))
        for member in members.sockets(ofViewer: viewerId) { member.outbox.replace(.myVotes, with: mine) }
        publishQuestions()
    }

    /// Whether any quiz question has closed, so there is a leaderboard to show.
    private var hasScoredQuiz: Bool {
        state.snapshot.polls.contains { $0.poll.quiz && $0.status != .open }
    }

    private func myScore(of viewerId: String, in board: [LeaderboardEntry]) -> MyScoreMessage {
        let mine = board.first { $0.viewerId == viewerId }
        return MyScoreMessage(score: mine?.score ?? 0, rank: mine?.rank, players: board.count)
    }

    /// The leaderboard to everyone (one frame) and each viewer their own score and rank.
    private func publishLeaderboard() {
        let board = state.leaderboard
        let frame = Frames.encode(
            LeaderboardMessage(entries: Array(board.prefix(LeaderboardMessage.shown)), players: board.count))
        toEveryone(.replace(.leaderboard, Outbox.Frame(frame)))
        for member in members.all.values {
            if member.role == .viewer, let viewerId = member.viewerId {
                member.outbox.replace(.myScore, with: Frames.encode(myScore(of: viewerId, in: board)))
            }
        }
    }

    private func votes(of viewerId: String) -> [String] {
        state.votes.filter { $0.value.contains(viewerId) }.map(\.key).sorted()
    }

    private func publicQuestionViews() -> [PublicQuestion] {
        state.publicQuestions.map {
            PublicQuestion($0, asker: state.viewerEntry($0.viewerId), votes: state.votes[$0.id]?.count ?? 0)
        }
    }

    func results(for pollId: Int, forPresenter: Bool) -> ResultsMessage {
        let tally = state.tallies[pollId]
        let choiceCount = state.snapshot.poll(pollId)?.poll.choices.count ?? 0
        return ResultsMessage(
            pollId: pollId, counts: tally?.counts ?? Array(repeating: 0, count: choiceCount),
            answered: tally?.answeredCount ?? 0, connected: viewerCount,
            answers: forPresenter && state.snapshot.poll(pollId)?.poll.kind == .open
                ? Array((tally?.openAnswers ?? []).prefix(ResultsMessage.maxOpenAnswers)) : nil)
    }

    private func myAnswers(of viewerId: String) -> [String: PollAnswer] {
        var mine: [String: PollAnswer] = [:]
        for (pollId, tally) in state.tallies {
            if let answer = tally.answers[viewerId] { mine[String(pollId)] = answer }
        }
        return mine
    }

    func questionViews() -> [QuestionView] {
        state.questions.map { QuestionView($0, asker: state.viewerEntry($0.viewerId), votes: state.votes[$0.id]?.count ?? 0) }
    }

    private func viewerViews() -> [ViewerView] {
        var named: [String: Int] = [:]
        for question in state.questions where !question.anonymous { named[question.viewerId, default: 0] += 1 }
        return state.viewers.map {
            ViewerView(
                id: $0.publicId, name: $0.displayName, connected: members.isConnected(viewer: $0.id),
                questions: named[$0.id] ?? 0)
        }
    }

    /// Tallies are ephemeral: each socket keeps only the newest, so a burst of answers costs a
    /// slow client one frame.
    private func publishResults(_ pollId: Int) {
        guard let poll = state.snapshot.poll(pollId) else { return }
        let presenterFrame = Frames.encode(results(for: pollId, forPresenter: true))
        let viewerFrame = poll.resultsVisibleToViewers ? Frames.encode(results(for: pollId, forPresenter: false)) : nil
        let targets = broadcastTargets()
        Outbox.broadcast(.replace(.results, Outbox.Frame(presenterFrame)), to: targets.hosts)
        if let viewerFrame { Outbox.broadcast(.replace(.results, Outbox.Frame(viewerFrame)), to: targets.others) }
    }

    /// The presenter's list, and the public list for viewers when questions are public (one
    /// frame for all viewers: it says nothing about who voted).
    private func publishQuestions() {
        sendToPresenters(.questions, Frames.encode(QuestionsMessage(questions: questionViews())))
        let list = state.snapshot.questionMode.isPublic ? publicQuestionViews() : []
        // Viewers hear only of changes to the public list, not of every private question.
        guard list != lastPublicList else { return }
        lastPublicList = list
        let frame = Frames.encode(PublicQuestionsMessage(questions: list))
        for member in members.all.values where member.role == .viewer { member.outbox.replace(.publicQuestions, with: frame) }
    }

    /// The viewer list costs O(viewers) to build and send, so while a hall fills up it goes out
    /// at most every ``viewerListInterval`` (the first change at once, the last one always).
    private func publishViewerList() {
        guard members.hasHost else { return }
        guard viewerListFlush == nil else { return }  // a send is scheduled and will see this change
        let clock = ContinuousClock()
        let due = (lastViewerList ?? clock.now - Self.viewerListInterval) + Self.viewerListInterval
        if due <= clock.now {
            sendViewerList()
            return
        }
        viewerListFlush = Task { [weak self] in
            try? await clock.sleep(until: due)
            await self?.sendScheduledViewerList()
        }
    }

    private func sendScheduledViewerList() {
        viewerListFlush = nil
        sendViewerList()
    }

    private func sendViewerList() {
        lastViewerList = ContinuousClock.now
        sendToPresenters(.viewerList, viewerListFrames.frame(viewerViews()))
    }

    private func sendToPresenters(_ kind: Outbox.Ephemeral, _ frame: ByteBuffer) {
        for member in members.hosts { member.outbox.replace(kind, with: frame) }
    }

    /// The stroke being drawn: ephemeral like the pointer, so a slow viewer gets only the newest.
    func inking(_ message: InkingMessage, role: Role, presenterId: String? = nil) throws(SessionError) {
        guard state.drives(role, presenterId: presenterId) else { throw state.snapshot.room == nil ? .forbidden : .notInControl }
        guard !state.snapshot.ended else { throw .ended }
        guard message.isValid(pageCount: state.pageCount) else { throw .invalidStroke }
        var message = message
        message.deck = state.snapshot.room?.deck
        let frame = Frames.encode(message)
        toEveryone(.replace(.inking, Outbox.Frame(frame)))
    }

    /// Moves or hides the laser pointer: ephemeral, never stored, coalesced per socket.
    func pointer(_ point: PagePoint?, role: Role, presenterId: String? = nil) throws(SessionError) {
        let update = try state.pointer(point, by: role, presenterId: presenterId)
        let frame = Outbox.Frame(Frames.encode(PointerMessage(update)))
        toEveryone(.replace(.pointer, frame))
    }

    /// One delivery for every socket of the session, hosts and others alike.
    private func toEveryone(_ delivery: Outbox.Delivery) {
        let targets = broadcastTargets()
        Outbox.broadcast(delivery, to: targets.hosts, targets.others)
    }

    private func broadcastTargets() -> (hosts: OutboxGroups, others: OutboxGroups) {
        if let fanOut { return fanOut }
        let targets = (
            hosts: OutboxGroups(members.all.values.lazy.filter(\.host).map(\.outbox)),
            others: OutboxGroups(members.all.values.lazy.filter { !$0.host }.map(\.outbox))
        )
        fanOut = targets
        return targets
    }

    /// Tells every socket to reconnect (shutdown) and forgets them.
    func closeAll(_ reason: Outbox.CloseReason) {
        for member in members.all.values { member.outbox.close(reason) }
        members.removeAll()
        fanOut = nil
    }

    /// Sends an event to every socket, encoded once per audience: presenters may see more
    /// (a poll's right answer before it is revealed).
    private func broadcast(_ event: SessionEvent) {
        let presenterFrame = Outbox.Frame(Frames.encode(event))
        let viewerEvent = event.forViewers
        let viewerFrame = viewerEvent == event ? presenterFrame : Outbox.Frame(Frames.encode(viewerEvent))
        // A socket too far behind is cut off by its outbox; it leaves when its connection ends.
        let targets = broadcastTargets()
        Outbox.broadcast(.push(presenterFrame), to: targets.hosts)
        Outbox.broadcast(.push(viewerFrame), to: targets.others)
        switch event.change {
        case .pollOpened(let poll):
            pollOpenedAt[poll.id] = now()
            publishResults(poll.id)
        case .pollRevealed(let pollId, _, _):
            publishResults(pollId)
            if state.snapshot.poll(pollId)?.poll.quiz == true { publishLeaderboard() }
        case .pollClosed(let pollId):
            if state.snapshot.poll(pollId)?.poll.quiz == true { publishLeaderboard() }
        case .questionMode:
            publishQuestions()
        default:
            break
        }
    }

    private func presenceChanged() async {
        let count = viewerCount
        // Presenters see the count change at once; viewers get it in their welcome. Sending every
        // join to every viewer would cost O(n²) frames while a hall fills up.
        let frame = Frames.encode(PresenceMessage(viewers: count))
        for member in members.hosts { member.outbox.replace(.presence, with: frame) }
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
