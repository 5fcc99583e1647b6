import NIOCore
import PodiumCore

/// Welcomes as frames, their two largest parts kept encoded for the session's state of the moment.
///
/// Every socket's first frame is a welcome, and a hall that arrives at once is sent thousands of
/// them in a row with the same deck and, between two events, the same snapshot. `JSONEncoder`
/// spent about 286,000 instructions on each 2.4 KB welcome of the demo deck, most of them on the
/// deck's pages (`Benchmarks/fanout-instructions.sh`). The session's info and the snapshot are
/// encoded once per state version: per `seq`, for each of the snapshot's two forms (the hosts'
/// and the audience's: an open poll's answers). That is enough to know them by: a live session's
/// info never changes (``LiveSession/info`` is a constant), and only events change the snapshot,
/// each with the next `seq` of one dense history. What is the participant's own (their id, their
/// answers, the counts) is written for each. The frame says what `Welcome`'s JSON says.
///
/// Comparing the kept parts with the welcome's instead (as up to #42) cost about 12,000
/// instructions a join; debug builds still compare them, so every test that joins checks that
/// the `seq` knows them.
struct WelcomeFrames {
    /// `{"session":…,"snapshot":…` for one `seq` and form.
    private struct Head {
        let seq: Int
        let host: Bool
        let json: ByteBuffer
        #if DEBUG
            let session: SessionInfo
            let snapshot: SessionSnapshot
        #endif
    }

    /// At most one head per form: a new `seq` replaces the form's old one.
    private var heads: [Head] = []

    /// Every member of `Welcome`, each written by ``frame(_:host:)``: a test holds this list and
    /// `Welcome`'s together, so a member added there is not left out here.
    static let members: Set<String> = [
        "type", "role", "seq", "viewerId", "session", "snapshot", "events", "viewers", "questions", "viewerList",
        "results", "myAnswers", "publicQuestions", "myVotes", "leaderboard", "myScore", "presenterId",
        "connectedPresenters",
    ]

    /// The welcome's frame: the kept head, then the participant's own members
    /// (``JSONObjectWriter``: scalars and empty lists by hand, the rest by `JSONEncoder`).
    /// - Parameter host: whether `welcome.snapshot` is the hosts' form (``SessionState/seesHostViews(_:)``).
    mutating func frame(_ welcome: Welcome, host: Bool) -> ByteBuffer {
        guard let head = head(welcome, host: host) else { return Frames.internalErrorFrame }
        var object = JSONObjectWriter(continuing: head, capacity: head.readableBytes + 256)
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

    private mutating func head(_ welcome: Welcome, host: Bool) -> ByteBuffer? {
        if let kept = heads.first(where: { $0.seq == welcome.seq && $0.host == host }) {
            #if DEBUG
                assert(
                    kept.session == welcome.session && kept.snapshot == welcome.snapshot,
                    "a welcome of seq \(welcome.seq) with another session or snapshot than the one kept for it")
            #endif
            return kept.json
        }
        guard let session = try? Frames.encoded(welcome.session), let snapshot = try? Frames.encoded(welcome.snapshot)
        else { return nil }
        var object = JSONObjectWriter(capacity: session.readableBytes + snapshot.readableBytes + 32)
        object.raw("session", session)
        object.raw("snapshot", snapshot)
        let json = object.unfinished()
        heads.removeAll { $0.host == host }
        #if DEBUG
            heads.append(Head(seq: welcome.seq, host: host, json: json, session: welcome.session, snapshot: welcome.snapshot))
        #else
            heads.append(Head(seq: welcome.seq, host: host, json: json))
        #endif
        return json
    }
}
