import NIOCore
import PodiumCore

/// Welcomes as frames, their two largest parts kept encoded from the welcome before.
///
/// Every socket's first frame is a welcome, and a hall that arrives at once is sent thousands of
/// them in a row with the same deck and, between two events, the same snapshot. `JSONEncoder`
/// spent about 286,000 instructions on each 2.4 KB welcome of the demo deck, most of them on the
/// deck's pages (`Benchmarks/fanout-instructions.sh`). The session's info and the snapshot are
/// encoded once and reused while they are equal; what is the participant's own (their id, their
/// answers, the counts) is encoded for each. The frame is the same JSON as `Welcome`'s.
struct WelcomeFrames {
    private var session: (info: SessionInfo, json: ByteBuffer)?
    /// The host's and the audience's forms of the snapshot differ (an open poll's answers): two.
    private var snapshots: [(snapshot: SessionSnapshot, json: ByteBuffer)] = []

    mutating func frame(_ welcome: Welcome) -> ByteBuffer {
        let session = sessionJSON(welcome.session)
        let snapshot = snapshotJSON(welcome.snapshot)
        let rest = Frames.encode(WelcomeRest(welcome))
        // `rest` is an object with at least `type`: its members follow the two kept ones.
        guard rest.readableBytesView.first == UInt8(ascii: "{"), rest.readableBytes > 2,
            let session, let snapshot
        else { return Frames.internalErrorFrame }
        var frame = ByteBuffer()
        frame.reserveCapacity(session.readableBytes + snapshot.readableBytes + rest.readableBytes + 24)
        frame.writeStaticString(#"{"session":"#)
        frame.writeImmutableBuffer(session)
        frame.writeStaticString(#","snapshot":"#)
        frame.writeImmutableBuffer(snapshot)
        frame.writeStaticString(",")
        frame.writeImmutableBuffer(rest.getSlice(at: rest.readerIndex + 1, length: rest.readableBytes - 1)!)
        return frame
    }

    private mutating func sessionJSON(_ info: SessionInfo) -> ByteBuffer? {
        if let session, session.info == info { return session.json }
        guard let json = try? Frames.encoded(info) else { return nil }
        session = (info, json)
        return json
    }

    private mutating func snapshotJSON(_ snapshot: SessionSnapshot) -> ByteBuffer? {
        if let kept = snapshots.first(where: { $0.snapshot == snapshot }) { return kept.json }
        guard let json = try? Frames.encoded(snapshot) else { return nil }
        if snapshots.count == 2 { snapshots.removeFirst() }
        snapshots.append((snapshot, json))
        return json
    }
}

/// A welcome's members but its session and snapshot, encoded by ``WelcomeFrames`` after them.
/// Every other member of `Welcome` must be here: a test holds the two lists together.
struct WelcomeRest: Encodable {
    var type: String
    var role: Role
    var seq: Int
    var viewerId: String?
    var events: [SessionEvent]?
    var viewers: Int
    var questions: [QuestionView]?
    var viewerList: [ViewerView]?
    var results: [ResultsMessage]?
    var myAnswers: [String: PollAnswer]?
    var publicQuestions: [PublicQuestion]?
    var myVotes: [String]?
    var leaderboard: LeaderboardMessage?
    var myScore: MyScoreMessage?
    var presenterId: String?
    var connectedPresenters: [String]?

    init(_ welcome: Welcome) {
        type = welcome.type
        role = welcome.role
        seq = welcome.seq
        viewerId = welcome.viewerId
        events = welcome.events
        viewers = welcome.viewers
        questions = welcome.questions
        viewerList = welcome.viewerList
        results = welcome.results
        myAnswers = welcome.myAnswers
        publicQuestions = welcome.publicQuestions
        myVotes = welcome.myVotes
        leaderboard = welcome.leaderboard
        myScore = welcome.myScore
        presenterId = welcome.presenterId
        connectedPresenters = welcome.connectedPresenters
    }
}
