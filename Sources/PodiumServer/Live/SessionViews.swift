import PodiumCore

/// What each audience sees of a session's state: the projections the welcome and the
/// refreshes are made of. Pure reads of the state and the members; no sockets, no encoding.
struct SessionViews {
    let state: SessionState
    let members: SessionMembers

    var connectedViewers: Int { members.viewerCount }

    /// A poll's tally. Open answers go to hosts, and to viewers only while the poll's word cloud
    /// is on screen (their text, never who wrote them).
    func results(for pollId: Int, forHosts: Bool) -> ResultsMessage {
        let tally = state.polls.tallies[pollId]
        let poll = state.snapshot.poll(pollId)?.poll
        let withAnswers = poll?.kind == .open && (forHosts || state.snapshot.viewersSeeOpenAnswers(of: pollId))
        return ResultsMessage(
            pollId: pollId, counts: tally?.counts ?? Array(repeating: 0, count: poll?.choices.count ?? 0),
            answered: tally?.answeredCount ?? 0, connected: connectedViewers,
            answers: withAnswers ? Array((tally?.openAnswers ?? []).prefix(ResultsMessage.maxOpenAnswers)) : nil)
    }

    func myAnswers(of viewerId: String) -> [String: PollAnswer] {
        var mine: [String: PollAnswer] = [:]
        for (pollId, tally) in state.polls.tallies {
            if let answer = tally.answers[viewerId] { mine[String(pollId)] = answer }
        }
        return mine
    }

    func leaderboard(_ board: [LeaderboardEntry]) -> LeaderboardMessage {
        LeaderboardMessage(entries: Array(board.prefix(LeaderboardMessage.shown)), players: board.count)
    }

    func myScore(of viewerId: String, in board: [LeaderboardEntry]) -> MyScoreMessage {
        let mine = board.first { $0.viewerId == viewerId }
        return MyScoreMessage(score: mine?.score ?? 0, rank: mine?.rank, players: board.count)
    }

    /// The hosts' list of every question.
    func questionViews() -> [QuestionView] { questionViews(state.questions.all) }

    /// The questions one participant sees: all for the host, a room's presenter those of their turns.
    func questionViews(for role: Role, presenterId: String?) -> [QuestionView] {
        questionViews(state.questions(visibleTo: role, presenterId: presenterId))
    }

    private func questionViews(_ questions: [AudienceQuestion]) -> [QuestionView] {
        questions.map {
            QuestionView($0, asker: state.viewerEntry($0.viewerId), votes: state.questions.votes[$0.id]?.count ?? 0)
        }
    }

    /// The audience's list, when questions are public: it says nothing about who voted.
    func publicQuestionViews() -> [PublicQuestion] {
        state.publicQuestions.map {
            PublicQuestion($0, asker: state.viewerEntry($0.viewerId), votes: state.questions.votes[$0.id]?.count ?? 0)
        }
    }

    func viewerViews() -> [ViewerView] {
        var named: [String: Int] = [:]
        for question in state.questions.all where !question.anonymous { named[question.viewerId, default: 0] += 1 }
        return state.viewers.all.map {
            ViewerView(
                id: $0.publicId, name: $0.displayName, connected: members.isConnected(viewer: $0.id),
                questions: named[$0.id] ?? 0)
        }
    }

    /// The first frame of a socket: everything this participant may see, or the events they
    /// missed after `missed`'s start.
    func welcome(
        info: SessionInfo, role: Role, viewerId: String?, presenterId: String?, missed: [SessionEvent]?
    ) -> Welcome {
        let host = state.seesHostViews(role)
        var welcome = Welcome(
            role: role, seq: state.seq, viewerId: role == .viewer ? viewerId : nil, session: info,
            snapshot: host ? state.snapshot : state.snapshot.forViewers,
            events: host ? missed : missed?.map(\.forViewers), viewers: connectedViewers)
        if state.snapshot.room != nil {
            welcome.presenterId = role == .presenter ? presenterId : nil
            welcome.connectedPresenters = members.connectedPresenters
        }
        let board = state.hasScoredQuiz ? state.leaderboard : nil
        if let board { welcome.leaderboard = leaderboard(board) }
        if host {
            welcome.questions = questionViews(for: role, presenterId: presenterId)
            welcome.viewerList = viewerViews()
            welcome.results = state.snapshot.polls.map { results(for: $0.poll.id, forHosts: true) }
        } else {
            // A room's presenters see what the room sees: the tallies on screen or shown.
            let shown = state.snapshot.polls.filter { state.snapshot.viewersSeeTally(of: $0.poll.id) }.map {
                results(for: $0.poll.id, forHosts: false)
            }
            if role == .viewer || !shown.isEmpty { welcome.results = shown }
        }
        if role == .viewer {
            welcome.myAnswers = viewerId.map(myAnswers(of:))
            if let viewerId, let board { welcome.myScore = myScore(of: viewerId, in: board) }
            if state.snapshot.questionMode.isPublic {
                welcome.publicQuestions = publicQuestionViews()
                welcome.myVotes = viewerId.map(state.questions.votes(of:))
            }
        }
        return welcome
    }
}
