import Foundation
import PodiumCore
import Testing

@testable import PodiumServer
@testable import PodiumStore

/// The audience's records as a sequence of their own (issue #39): the store numbers every
/// answer, question, mark, vote and viewer's entry per session, densely, under writers on several
/// nodes; a node applies another node's records by reading only those after its own record seq.
@Suite("Audience record log", .timeLimit(.minutes(2)))
struct AudienceLogTests {
    static let t0 = StoreTests.t0

    // MARK: The store

    /// Two nodes write one session's records at once (answers as commands with records only,
    /// questions, viewers arriving): every change gets a number of its own, 1...N without a gap,
    /// and reading after n gives exactly the later ones, in order.
    @Test(arguments: TestStores.kinds) func concurrentWritersGetDenseDistinctRecordSeqs(_ kind: StoreKind) async throws {
        let (first, second, close) = try await TestStores.openNodes(kind)
        do {
            _ = try await StoreTests.seed(first)
            #expect(try await first.audienceRecordSeq(sessionId: "s1") == 0)
            let writers = 40
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<writers {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask {
                        switch index % 4 {
                        case 0, 1:
                            // An answer, stored with its command id (no event): one record.
                            try await store.append(
                                sessionId: "s1",
                                CommandWrite(
                                    commandKey: "v\(index)/a", events: [],
                                    records: [.answer(pollId: 1, viewerId: "v\(index)", .choices([index % 2]))], seq: 0),
                                at: Self.t0)
                        case 2:
                            // A question and a vote in one write: two records.
                            let question = AudienceQuestion(
                                id: "q\(index)", text: "Why \(index)?", page: nil, anonymous: true, viewerId: "v\(index)",
                                name: nil, askedAt: Self.t0)
                            try await store.append(
                                sessionId: "s1",
                                CommandWrite(
                                    commandKey: nil, events: [],
                                    records: [
                                        .question(question), .vote(questionId: "q\(index)", viewerId: "v\(index)", up: true),
                                    ],
                                    seq: 0),
                                at: Self.t0)
                        default:
                            // A viewer arriving: their visit and entry.
                            try await store.visitStarted(
                                id: "visit\(index)", sessionId: "s1", viewerId: "v\(index)",
                                saving: ViewerEntry(id: "v\(index)", number: 1, name: nil), at: Self.t0)
                        }
                    }
                }
                try await group.waitForAll()
            }
            // 20 answers, 10 questions with their votes, 10 viewers.
            let total = 20 + 2 * 10 + 10
            #expect(try await second.audienceRecordSeq(sessionId: "s1") == total)
            let all = try await first.audienceRecords(sessionId: "s1", afterRecordSeq: 0, limit: 1000)
            #expect(all.map(\.rseq) == Array(1...total))
            // Each change once, as written.
            let answers = all.compactMap { stored -> String? in
                guard case .record(.answer(_, let viewer, _)) = stored.change else { return nil }
                return viewer
            }
            #expect(Set(answers).count == 20)
            #expect(all.filter { $0.commandID != nil }.count == 20)
            let viewers = all.compactMap { stored -> ViewerEntry? in
                guard case .viewer(let entry) = stored.change else { return nil }
                return entry
            }
            #expect(viewers.map(\.number).sorted() == Array(1...10))
            // A question's vote follows its question, in its write's order.
            for (index, stored) in all.enumerated() {
                if case .record(.question(let question)) = stored.change {
                    #expect(
                        all[index + 1].change == .record(.vote(questionId: question.id, viewerId: question.viewerId, up: true)))
                }
            }
            // After n: exactly the later ones, in order, at most `limit`.
            let later = try await second.audienceRecords(sessionId: "s1", afterRecordSeq: 37, limit: 1000)
            #expect(later == Array(all[37...]))
            let page = try await second.audienceRecords(sessionId: "s1", afterRecordSeq: 10, limit: 5)
            #expect(page.map(\.rseq) == [11, 12, 13, 14, 15])
            #expect(try await first.audienceRecords(sessionId: "s1", afterRecordSeq: total, limit: 10).isEmpty)
        } catch {
            await close()
            throw error
        }
        await close()
    }

    /// Every kind of change comes back as it was written, with its time and its command.
    @Test(arguments: TestStores.kinds) func everyKindOfChangeComesBackAsWritten(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            _ = try await StoreTests.seed(store)
            let question = AudienceQuestion(
                id: "q1", text: "Tea or coffee?", page: 2, anonymous: false, viewerId: "ada", name: "Ada",
                askedAt: Self.t0)
            let records: [AudienceRecord] = [
                .answer(pollId: 3, viewerId: "ada", .choices([0, 2])), .answer(pollId: 4, viewerId: "ada", .text("Tea")),
                .question(question), .questionAnswered(questionId: "q1", true), .questionApproved(questionId: "q1", false),
                .vote(questionId: "q1", viewerId: "bob", up: true), .vote(questionId: "q1", viewerId: "bob", up: false),
            ]
            try await store.append(
                sessionId: "s1", CommandWrite(commandKey: "ada/c1", events: [], records: records, seq: 0), at: StoreTests.t1)
            let saved = try await store.saveViewer(
                sessionId: "s1", ViewerEntry(id: "ada", number: 7, name: "Ada"), at: StoreTests.t2)
            let read = try await store.audienceRecords(sessionId: "s1", afterRecordSeq: 0, limit: 100)
            #expect(read.map(\.change) == records.map(AudienceChange.record) + [.viewer(saved)])
            #expect(read.map(\.at) == Array(repeating: StoreTests.t1, count: records.count) + [StoreTests.t2])
            // The command's id on its last record only.
            #expect(read.map(\.commandID) == Array(repeating: nil, count: records.count - 1) + ["ada/c1", nil])
            #expect(read[records.count - 1].commandSeq == 0)
            // A command with events keeps its id on its event, not in the record log.
            try await store.append(
                sessionId: "s1",
                CommandWrite(
                    commandKey: "host/r1", events: [StoreTests.event(1, page: 2)],
                    records: [.questionAnswered(questionId: "q1", false)], seq: 1), at: StoreTests.t2)
            let last = try await store.audienceRecords(sessionId: "s1", afterRecordSeq: read.count, limit: 100)
            #expect(last.map(\.change) == [.record(.questionAnswered(questionId: "q1", false))])
            #expect(last.first?.commandID == nil && last.first?.rseq == read.count + 1)
        }
    }

    /// A viewer's entry is logged by hand (a hello's write): it reads back as the encoder's form
    /// does, whatever the name holds, and is the encoder's very text for a plain one.
    @Test(arguments: [
        nil, "Ada", "Zoë \"the\" <best>", "back\\slash/and/slash", "tab\tnew\nline\r\u{8}\u{c}", "\u{1}\u{1f}\u{7f}",
        "🎤 ünïcødé",
    ])
    func aViewersLoggedBodyReadsAsTheEncodersDoes(_ name: String?) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for entry in [ViewerEntry(id: "v_3f9a-b", number: 12, name: name), ViewerEntry(id: "odd\"/id", number: 0, name: name)] {
            let byHand = LoggedChange.viewerBody(entry)
            let decoded = try JSONDecoder().decode(LoggedChange.self, from: Data(byHand.utf8))
            #expect(try decoded.change == .viewer(entry))
            let encoded = String(decoding: try encoder.encode(LoggedChange(.viewer(entry))), as: UTF8.self)
            if name == nil || name == "Ada" || name == "🎤 ünïcødé", entry.number == 12 { #expect(byHand == encoded) }
            #expect(try LoggedChange.body(of: .viewer(entry)) == byHand)
        }
    }

    // MARK: Two nodes

    /// Viewers on node A answer, ask and vote; the host is on node B. B applies A's records
    /// step by step from the record log: it never reads the session's whole answers, questions,
    /// votes or viewers again after the session started there, and its host's views converge.
    @Test(arguments: ClusterBusTests.transports)
    func aNodeAppliesAnotherNodesRecordsStepByStep(transport: ClusterBusTests.Transport) async throws {
        let first = TestServer()
        let second = first.nodeBeside()
        defer {
            first.removeData()
            second.removeData()
        }
        let (store, cleanUp) = try await ClusterBusTests.sharedStore(transport)
        let local = LocalSessionBus()
        let channel = ClusterBusTests.channel()
        let busA = try ClusterBusTests.bus(transport, shared: local, channel: channel)
        let busB = try ClusterBusTests.bus(transport, shared: local, channel: channel)
        let counted = CountedAudienceReads(store)
        var countedParts = Stores(store)
        countedParts.interaction = counted
        let countedStores = countedParts
        try await closing(store, then: cleanUp) {
            try await first.run(store: store, bus: busA) { nodeA in
                try await second.run(stores: countedStores, bus: busB) { nodeB in
                    try await waitUntil("both buses listen") {
                        [busA, busB].allSatisfy { ($0 as? PostgresSessionBus)?.isListening ?? true }
                    }
                    // The session starts on B with its host: B reads the audience's tables once.
                    let (_, code, presenter) = try await ClusterBusTests.presentSession(nodeB, store: store)
                    let readsAtStart = counted.wholeRecordReads.load(ordering: .relaxed)
                    #expect(readsAtStart > 0)

                    var viewers: [TestSocket] = []
                    for identity in 1...4 {
                        viewers.append(try await ClusterBusTests.viewer(nodeA, code: code, identity: identity))
                    }
                    try await presenter.send(
                        #"{"type":"openPoll","id":"p1","poll":{"kind":"choice","question":"Tea?","choices":["Yes","No"]}}"#)
                    let poll = try #require(try await presenter.next(ofType: "pollOpened")?["poll"] as? [String: Any])
                    let pollId = try #require(poll["id"] as? Int)
                    for (viewer, choice) in zip(viewers, [0, 1, 0, 0]) {
                        // The poll reaches the viewers' node first.
                        _ = try await viewer.next(ofType: "pollOpened")
                        try await viewer.send(#"{"type":"answer","id":"a","pollId":\#(pollId),"choices":[\#(choice)]}"#)
                        #expect(try await viewer.next(ofType: "ack")?["id"] as? String == "a")
                    }
                    // One changes their mind: B applies the change, not the whole poll again.
                    try await viewers[3].send(#"{"type":"answer","id":"b","pollId":\#(pollId),"choices":[1]}"#)
                    _ = try await viewers[3].next(ofType: "ack")
                    try await viewers[0].send(#"{"type":"ask","id":"q","text":"Milk first?"}"#)
                    _ = try await viewers[0].next(ofType: "ack")

                    var tally: [String: Any]?
                    repeat {
                        tally = try await presenter.next(ofType: "results")
                    } while tally != nil && (tally?["answered"] as? Int != 4 || tally?["counts"] as? [Int] != [2, 2])
                    #expect(tally?["counts"] as? [Int] == [2, 2])
                    while let list = try await presenter.next(ofType: "questions"),
                        (list["questions"] as? [[String: Any]])?.first?["text"] as? String != "Milk first?"
                    {}
                    let list = try await ViewerListTests.latestList(presenter) { $0.count == 4 }
                    #expect(Set(list.compactMap { $0["name"] as? String }) == Set((1...4).map { "Guest \($0)" }))
                    // Converged with no read of the whole audience since the start.
                    #expect(counted.wholeRecordReads.load(ordering: .relaxed) == readsAtStart)
                    for viewer in viewers { await viewer.close() }
                }
            }
        }
    }
}
