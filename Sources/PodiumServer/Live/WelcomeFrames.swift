import NIOCore
import PodiumCore

/// Welcomes as frames, their two largest parts kept encoded from the welcome before.
///
/// Every socket's first frame is a welcome, and a hall that arrives at once is sent thousands of
/// them in a row with the same deck and, between two events, the same snapshot. `JSONEncoder`
/// spent about 286,000 instructions on each 2.4 KB welcome of the demo deck, most of them on the
/// deck's pages (`Benchmarks/fanout-instructions.sh`). The session's info and the snapshot are
/// encoded once and reused while they are equal; what is the participant's own (their id, their
/// answers, the counts) is written for each. The frame says what `Welcome`'s JSON says.
struct WelcomeFrames {
    private var session: (info: SessionInfo, json: ByteBuffer)?
    /// The host's and the audience's forms of the snapshot differ (an open poll's answers): two.
    private var snapshots: [(snapshot: SessionSnapshot, json: ByteBuffer)] = []

    /// Every member of `Welcome`, each written by ``frame(_:)``: a test holds this list and
    /// `Welcome`'s together, so a member added there is not left out here.
    static let members: Set<String> = [
        "type", "role", "seq", "viewerId", "session", "snapshot", "events", "viewers", "questions", "viewerList",
        "results", "myAnswers", "publicQuestions", "myVotes", "leaderboard", "myScore", "presenterId",
        "connectedPresenters",
    ]

    /// The welcome's frame: the kept parts, then the participant's own members
    /// (``JSONObjectWriter``: scalars and empty lists by hand, the rest by `JSONEncoder`).
    mutating func frame(_ welcome: Welcome) -> ByteBuffer {
        guard let session = sessionJSON(welcome.session), let snapshot = snapshotJSON(welcome.snapshot) else {
            return Frames.internalErrorFrame
        }
        var object = JSONObjectWriter(capacity: session.readableBytes + snapshot.readableBytes + 256)
        object.raw("session", session)
        object.raw("snapshot", snapshot)
        object.string("type", welcome.type)
        object.string("role", welcome.role.rawValue)
        object.int("seq", welcome.seq)
        object.string("viewerId", welcome.viewerId)
        object.int("viewers", welcome.viewers)
        object.string("presenterId", welcome.presenterId)
        guard object.array("events", welcome.events), object.array("questions", welcome.questions),
            object.array("viewerList", welcome.viewerList), object.array("results", welcome.results),
            object.dictionary("myAnswers", welcome.myAnswers), object.array("publicQuestions", welcome.publicQuestions),
            object.array("myVotes", welcome.myVotes), object.encoded("leaderboard", welcome.leaderboard),
            object.encoded("myScore", welcome.myScore), object.array("connectedPresenters", welcome.connectedPresenters)
        else { return Frames.internalErrorFrame }
        return object.finished()
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
