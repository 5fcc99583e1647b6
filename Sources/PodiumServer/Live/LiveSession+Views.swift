import Foundation
import NIOCore
import PodiumCore

/// At most one run per interval: the first change at once, the last one always (a run is
/// scheduled when a change comes too soon, and it sees every change until it runs).
struct Throttle {
    let interval: Duration
    private var last: ContinuousClock.Instant?
    private var scheduled = false

    init(interval: Duration) { self.interval = interval }

    enum Next {
        case now
        /// Schedule a run at this instant.
        case at(ContinuousClock.Instant)
        /// A run is scheduled already and will see this change.
        case pending
    }

    mutating func next(now: ContinuousClock.Instant = .now) -> Next {
        guard !scheduled else { return .pending }
        let due = (last ?? now - interval) + interval
        if due <= now { return .now }
        scheduled = true
        return .at(due)
    }

    mutating func ran(at instant: ContinuousClock.Instant = .now) {
        last = instant
        scheduled = false
    }
}

/// What the session keeps to send views cheaply.
struct PublishedViews {
    /// The public question list as last sent: viewers hear only of changes to it.
    var lastPublicList: [PublicQuestion] = []
    var viewerListFrames = ViewerListFrames()
    var welcomeFrames = WelcomeFrames()
    /// The viewer list costs O(viewers) to build and send, so while a hall fills up it goes out
    /// at most this often.
    var viewerList = Throttle(interval: LiveSession.viewerListInterval)
}

/// Carrying out what the core decided besides the events: each action refreshes a view for the
/// sockets that see it, as newest-wins frames.
extension LiveSession {
    var views: SessionViews { SessionViews(state: state, members: fanOut.members) }

    func carryOut(_ actions: [SessionAction]) async {
        var done = Set<SessionAction>()
        for action in actions where done.insert(action).inserted {
            switch action {
            case .refreshResults(let pollId): publishResults(pollId)
            case .refreshLeaderboard: publishLeaderboard()
            case .refreshQuestions: publishQuestions()
            case .refreshViewerList: publishViewerList()
            case .tellAnswer(let pollId, let viewerId):
                guard let held = state.polls.tallies[pollId]?.answers[viewerId] else { continue }
                fanOut.toViewer(viewerId, .myAnswer, Frames.encode(MyAnswerMessage(pollId: pollId, answer: held)))
            case .tellVotes(let viewerId):
                fanOut.toViewer(
                    viewerId, .myVotes, Frames.encode(MyVotesMessage(questionIds: state.questions.votes(of: viewerId))))
            case .ended: await sessionEnded()
            }
        }
    }

    /// Tallies are ephemeral: each socket keeps only the newest, so a burst of answers costs a
    /// slow client one frame.
    /// Viewers get them while the poll shows its results or while it is on screen (spotlight).
    func publishResults(_ pollId: Int) {
        guard state.snapshot.poll(pollId) != nil else { return }
        let views = views
        fanOut.replace(
            .results, hosts: Frames.encode(views.results(for: pollId, forHosts: true)),
            others: state.snapshot.viewersSeeTally(of: pollId)
                ? Frames.encode(views.results(for: pollId, forHosts: false)) : nil)
    }

    /// The leaderboard to everyone (one frame) and each viewer their own score and rank.
    func publishLeaderboard() {
        let board = state.leaderboard
        let views = views
        fanOut.toEveryone(.replace(.leaderboard, Outbox.Frame(Frames.encode(views.leaderboard(board)))))
        for member in fanOut.members.all.values {
            if member.role == .viewer, let viewerId = member.viewerId {
                member.outbox.replace(.myScore, with: Frames.encode(views.myScore(of: viewerId, in: board)))
            }
        }
    }

    /// The hosts' list, and the public list for viewers when questions are public (one frame
    /// for all viewers: it says nothing about who voted).
    func publishQuestions() {
        let views = views
        let all = Frames.encode(QuestionsMessage(questions: views.questionViews()))
        if state.snapshot.room == nil {
            fanOut.toHosts(.questions, all)
        } else {
            // A room's presenters see the questions of their own turns; the moderator sees all.
            for member in fanOut.members.hosts {
                let frame =
                    member.role == .presenter
                    ? Frames.encode(
                        QuestionsMessage(questions: views.questionViews(for: .presenter, presenterId: member.presenterId)))
                    : all
                member.outbox.replace(.questions, with: frame)
            }
        }
        let list = state.snapshot.questionMode.isPublic ? views.publicQuestionViews() : []
        // Viewers hear only of changes to the public list, not of every private question.
        guard list != published.lastPublicList else { return }
        published.lastPublicList = list
        fanOut.toViewers(.publicQuestions, Frames.encode(PublicQuestionsMessage(questions: list)))
    }

    /// The viewer list for hosts, at most every ``viewerListInterval`` (see ``Throttle``).
    func publishViewerList() {
        guard fanOut.members.hasHost else { return }
        switch published.viewerList.next() {
        case .pending: return
        case .now: sendViewerList()
        case .at(let due):
            Task { [weak self] in
                try? await ContinuousClock().sleep(until: due)
                await self?.sendViewerList()
            }
        }
    }

    private func sendViewerList() {
        published.viewerList.ran()
        fanOut.toHosts(.viewerList, published.viewerListFrames.frame(views.viewerViews()))
    }

    /// Who of a room's presenters is connected, to everyone: rare (a presenter comes or goes).
    func publishRoomPresence() {
        let frame = Frames.encode(RoomPresenceMessage(connected: fanOut.members.connectedPresenters))
        fanOut.toEveryone(.replace(.roomPresence, Outbox.Frame(frame)))
    }

    /// The viewer count: hosts see it change at once; viewers get it in their welcome (sending
    /// every join to every viewer would cost O(n²) frames while a hall fills up). The lobby
    /// hears it through the bus.
    func presenceChanged() async {
        let count = fanOut.members.viewerCount
        if fanOut.members.hasHost { fanOut.toHosts(.presence, Self.presenceFrame(viewers: count)) }
        await announcePresence()
    }
}

/// The views' newest-wins frames.
extension EphemeralKey {
    /// Polls: tallies, a viewer's own answer, the quiz leaderboard and a viewer's own score.
    static let results = EphemeralKey("results")
    static let myAnswer = EphemeralKey("myAnswer")
    static let leaderboard = EphemeralKey("leaderboard")
    static let myScore = EphemeralKey("myScore")
    /// Questions: the hosts' list, the public list, a viewer's own votes.
    static let questions = EphemeralKey("questions")
    static let publicQuestions = EphemeralKey("publicQuestions")
    static let myVotes = EphemeralKey("myVotes")
    /// Who is here: the viewer count and the viewer list for hosts; a room's connected presenters.
    static let presence = EphemeralKey("presence")
    static let viewerList = EphemeralKey("viewerList")
    static let roomPresence = EphemeralKey("roomPresence")
}

extension LiveSession {
    /// `PresenceMessage`'s JSON, written by hand: it goes to the hosts on every arrival.
    static func presenceFrame(viewers: Int) -> ByteBuffer {
        var object = JSONObjectWriter(capacity: 40)
        object.string("type", "presence")
        object.int("viewers", viewers)
        return object.finished()
    }
}
