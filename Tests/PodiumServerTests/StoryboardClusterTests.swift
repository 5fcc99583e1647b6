import Foundation
import PodiumCore
import PodiumStore
import Testing

@testable import PodiumServer

/// One storyboard edited on two nodes of one store, through the session bus (``LocalSessionBus``
/// always, the real ``PostgresSessionBus`` when `PODIUM_TEST_DATABASE_URL` is set): an idle editor
/// sees the other node's edits live and in order; edits on both nodes at once are all stored, none
/// refused; every read (a newcomer's welcome, REST) is as new as the table, even when no hint came;
/// a reconnecting editor gets what it missed; an edit that keeps losing to other nodes is decided
/// again, and only then answered `retry`.
@Suite("Several nodes, one storyboard", .serialized, .timeLimit(.minutes(1)))
struct StoryboardClusterTests {
    typealias Transport = ClusterBusTests.Transport

    struct Project {
        let token: String
        let id: String
        let shot: String
        let layer: String
    }

    /// Signs in on `client` and makes a project there.
    static func project(_ client: Client) async throws -> Project {
        let token = try await client.login()
        let project = try await StoryboardServerTests.create(client, token: token)
        let (_, shot, layer) = try StoryboardServerTests.firstShot(project)
        return Project(token: token, id: try #require(project["id"] as? String), shot: shot, layer: layer)
    }

    static func editor(_ client: Client, _ project: Project, lastSeq: Int? = nil) async throws -> (TestSocket, [String: Any]) {
        let socket = try await TestSocket.connect(port: client.port, path: "/api/v1/storyboards/\(project.id)/live")
        var hello: [String: Any] = ["token": project.token]
        if let lastSeq { hello["lastSeq"] = lastSeq }
        let welcome = try await socket.hello(hello)
        #expect(welcome["type"] as? String == "welcome", "\(welcome)")
        return (socket, welcome)
    }

    static func draw(_ socket: TestSocket, _ project: Project, id: String, x: Double = 0.1) async throws {
        try await socket.send([
            "type": "edit", "id": id,
            "edit": [
                "op": "addStrokes", "shot": project.shot, "layer": project.layer,
                "strokes": [StoryboardServerTests.stroke("st-\(id)", x: x)],
            ],
        ])
    }

    /// The next `count` `edited` frames of `socket` (everything else skipped).
    static func edited(_ socket: TestSocket, count: Int) async throws -> [[String: Any]] {
        var edited: [[String: Any]] = []
        while edited.count < count, let message = try await socket.next(ofType: "edited") { edited.append(message) }
        return edited
    }

    /// The answers (`ack` or `error`) to `count` commands, by id.
    static func answers(_ socket: TestSocket, count: Int) async throws -> [String: [String: Any]] {
        var answers: [String: [String: Any]] = [:]
        while answers.count < count, let message = try await socket.next() {
            guard ["ack", "error"].contains(message["type"] as? String), let id = message["id"] as? String else { continue }
            answers[id] = message
        }
        return answers
    }

    /// What `socket` receives until `done` holds for it (nil: the socket closed first).
    static func collect(_ socket: TestSocket, until done: ([[String: Any]]) -> Bool) async throws -> [[String: Any]] {
        var messages: [[String: Any]] = []
        while !done(messages) {
            guard let message = try await socket.next() else { break }
            messages.append(message)
        }
        return messages
    }

    static func ofType(_ type: String, _ messages: [[String: Any]]) -> [[String: Any]] {
        messages.filter { $0["type"] as? String == type }
    }

    /// The answers (`ack` or `error`) among `messages`.
    static func answers(in messages: [[String: Any]]) -> [[String: Any]] {
        messages.filter { ["ack", "error"].contains($0["type"] as? String) && $0["id"] is String }
    }

    static func strokes(in content: [String: Any]?) -> [String] {
        let scenes = content?["scenes"] as? [[String: Any]] ?? []
        let shots = scenes.flatMap { $0["shots"] as? [[String: Any]] ?? [] }
        let layers = shots.flatMap { $0["layers"] as? [[String: Any]] ?? [] }
        return layers.flatMap { ($0["strokes"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } }
    }

    // MARK: Tests

    @Test(arguments: ClusterBusTests.transports)
    func anIdleEditorOnBSeesTheEditsOfAInOrderAndItsCursor(transport: Transport) async throws {
        try await ClusterBusTests.twoNodes(transport) { nodeA, nodeB, store, _ in
            let project = try await Self.project(nodeA)
            let (ada, adaWelcome) = try await Self.editor(nodeA, project)
            let (bob, bobWelcome) = try await Self.editor(nodeB, project)
            let adaNumber = try #require((adaWelcome["you"] as? [String: Any])?["editor"] as? Int)
            let bobNumber = try #require((bobWelcome["you"] as? [String: Any])?["editor"] as? Int)
            #expect(adaNumber != bobNumber, "editor numbers of two nodes collide")

            let count = 20
            for index in 0..<count { try await Self.draw(ada, project, id: "a\(index)", x: Double(index) / 40) }
            let seen = try await Self.edited(bob, count: count)
            #expect(seen.map { $0["seq"] as? Int } == Array(1...count))
            #expect(seen.map { $0["by"] as? String } == (0..<count).map { "a\($0)" })
            #expect(try await store.storyboardEdits(storyboardId: project.id, afterSeq: 0, throughSeq: nil).count == count)

            // A cursor crosses too, named by its editor's number.
            try await ada.send(["type": "cursor", "shot": project.shot, "x": 0.25, "y": 0.75])
            let cursor = try #require(try await bob.next(ofType: "cursor"))
            #expect(cursor["editor"] as? Int == adaNumber && cursor["x"] as? Double == 0.25, "\(cursor)")
        }
    }

    @Test(arguments: ClusterBusTests.transports)
    func theEditorsListShowsTheEditorsOfEveryNode(transport: Transport) async throws {
        try await ClusterBusTests.twoNodes(transport) { nodeA, nodeB, _, _ in
            let project = try await Self.project(nodeA)
            let (ada, adaWelcome) = try await Self.editor(nodeA, project)
            let adaNumber = try #require((adaWelcome["you"] as? [String: Any])?["editor"] as? Int)
            let (bob, bobWelcome) = try await Self.editor(nodeB, project)
            let bobNumber = try #require((bobWelcome["you"] as? [String: Any])?["editor"] as? Int)
            func numbers(_ message: [String: Any]?) -> Set<Int> {
                Set((message?["editors"] as? [[String: Any]] ?? []).compactMap { $0["editor"] as? Int })
            }
            func editors(_ socket: TestSocket, until wanted: Set<Int>) async throws -> Set<Int> {
                while let message = try await socket.next(ofType: "editors") {
                    if numbers(message) == wanted { return wanted }
                }
                return []
            }
            // Each node's editor sees the other's, whichever joined first.
            #expect(try await editors(ada, until: [adaNumber, bobNumber]) == [adaNumber, bobNumber])
            #expect(try await editors(bob, until: [adaNumber, bobNumber]) == [adaNumber, bobNumber])
            // Bob leaves: Ada's list loses him.
            await bob.close()
            #expect(try await editors(ada, until: [adaNumber]) == [adaNumber])
        }
    }

    @Test(arguments: ClusterBusTests.transports)
    func aProjectDeletedOnADisconnectsItsEditorsOnB(transport: Transport) async throws {
        try await ClusterBusTests.twoNodes(transport) { nodeA, nodeB, _, _ in
            let project = try await Self.project(nodeA)
            let (bob, _) = try await Self.editor(nodeB, project)
            let deleted = try await nodeA.request(.delete, "/api/v1/storyboards/\(project.id)", token: project.token)
            #expect(deleted.status == .noContent)
            let error = try #require(try await bob.next(ofType: "error"))
            #expect(error["code"] as? String == "not_found", "\(error)")
            try await bob.waitForClose()
        }
    }

    @Test(arguments: ClusterBusTests.transports)
    func editsOnBothNodesAtOnceAreAllStoredAndNoneIsRefused(transport: Transport) async throws {
        try await ClusterBusTests.twoNodes(transport) { nodeA, nodeB, store, _ in
            let project = try await Self.project(nodeA)
            let (ada, _) = try await Self.editor(nodeA, project)
            let (bob, _) = try await Self.editor(nodeB, project)
            let perNode = 15
            // Both draw as fast as they can: the two nodes decide at the same moment.
            for index in 0..<perNode {
                try await Self.draw(ada, project, id: "a\(index)", x: 0.01 * Double(index))
                try await Self.draw(bob, project, id: "b\(index)", x: 0.5 + 0.01 * Double(index))
            }
            func allOf(_ socket: TestSocket) async throws -> [[String: Any]] {
                try await Self.collect(socket) {
                    // Every answer, and every edit; or stop at a refusal (it fails below).
                    Self.answers(in: $0).count >= perNode
                        && (Self.ofType("edited", $0).count >= 2 * perNode || !Self.ofType("error", $0).isEmpty)
                }
            }
            let onA = try await allOf(ada)
            let onB = try await allOf(bob)
            let answers = Self.answers(in: onA) + Self.answers(in: onB)
            #expect(answers.count == 2 * perNode)
            #expect(answers.allSatisfy { $0["type"] as? String == "ack" }, "\(answers.filter { $0["type"] as? String != "ack" })")
            #expect(Set(answers.compactMap { $0["seq"] as? Int }) == Set(1...(2 * perNode)))

            let table = try await store.storyboardEdits(storyboardId: project.id, afterSeq: 0, throughSeq: nil)
            #expect(table.map(\.seq) == Array(1...(2 * perNode)))
            // Both editors saw every edit once, in the table's order.
            let order = table.map(\.entry.commandID)
            #expect(Self.ofType("edited", onA).map { $0["by"] as? String } == order)
            #expect(Self.ofType("edited", onB).map { $0["by"] as? String } == order)
            #expect(Self.ofType("edited", onA).map { $0["seq"] as? Int } == Array(1...(2 * perNode)))
        }
    }

    @Test(arguments: ClusterBusTests.transports)
    func aNewcomerAndRESTOnBAreAsNewAsTheTableWithoutAHint(transport: Transport) async throws {
        try await ClusterBusTests.twoNodes(transport) { nodeA, nodeB, store, _ in
            let project = try await Self.project(nodeA)
            // B holds the project open.
            let (bob, _) = try await Self.editor(nodeB, project)
            // Another node stores three edits and its hints are lost: written to the table directly.
            let author = try #require(try await store.user(email: "admin")).id
            for seq in 1...3 {
                let edit = StoryboardEdit.addStrokes(
                    shot: project.shot, layer: project.layer,
                    strokes: [
                        SketchStroke(
                            id: "lost-\(seq)", author: author, tool: .pen, color: "#222222", width: 0.004,
                            points: [[0.1, 0.1, 0.5], [0.2, 0.2, 0.5]])
                    ])
                try await store.appendStoryboardEdits(
                    [
                        StoryboardEditRecord(
                            storyboardId: project.id, seq: seq, authorId: author, commandKey: "\(author):lost-\(seq)",
                            shotId: project.shot,
                            edit: String(decoding: try StoryboardDesk.encoder.encode(edit), as: UTF8.self), createdAt: Date())
                    ], summary: StoryboardSummaryChange(sceneCount: 1, shotCount: 1))
            }
            let shown = try await nodeB.request(.get, "/api/v1/storyboards/\(project.id)", token: project.token).object()
            #expect(shown["seq"] as? Int == 3)
            #expect(Self.strokes(in: shown["content"] as? [String: Any]) == ["lost-1", "lost-2", "lost-3"])
            let (_, welcome) = try await Self.editor(nodeB, project)
            #expect(welcome["seq"] as? Int == 3)
            #expect(Self.strokes(in: welcome["storyboard"] as? [String: Any]) == ["lost-1", "lost-2", "lost-3"])
            // The editor already there was sent them, in order, as they were read.
            let seen = try await Self.edited(bob, count: 3)
            #expect(seen.map { $0["seq"] as? Int } == [1, 2, 3])
            #expect(seen.map { $0["by"] as? String } == ["lost-1", "lost-2", "lost-3"])
        }
    }

    @Test(arguments: ClusterBusTests.transports)
    func aReconnectingEditorGetsTheEditsItMissed(transport: Transport) async throws {
        try await ClusterBusTests.twoNodes(transport) { nodeA, nodeB, _, _ in
            let project = try await Self.project(nodeA)
            let (ada, _) = try await Self.editor(nodeA, project)
            for index in 1...3 { try await Self.draw(ada, project, id: "a\(index)", x: 0.1 * Double(index)) }
            #expect(try await Self.answers(ada, count: 3).count == 3)

            let (_, resumed) = try await Self.editor(nodeA, project, lastSeq: 1)
            #expect(resumed["seq"] as? Int == 3)
            let missed = try #require(resumed["missed"] as? [[String: Any]], "\(resumed)")
            #expect(missed.map { $0["seq"] as? Int } == [2, 3])
            #expect(missed.map { $0["type"] as? String } == ["edited", "edited"])
            #expect(missed.map { $0["by"] as? String } == ["a2", "a3"])
            #expect(Self.strokes(in: resumed["storyboard"] as? [String: Any]) == ["st-a1", "st-a2", "st-a3"])

            let (_, current) = try await Self.editor(nodeA, project, lastSeq: 3)
            #expect((current["missed"] as? [Any])?.isEmpty == true, "\(current)")
            let (_, fresh) = try await Self.editor(nodeA, project)
            #expect(fresh["missed"] == nil)
            // A seq this project never had: take the content whole.
            let (_, ahead) = try await Self.editor(nodeA, project, lastSeq: 9)
            #expect(ahead["missed"] == nil && ahead["seq"] as? Int == 3)

            // On the other node, which opens the project now (from the store).
            let (_, elsewhere) = try await Self.editor(nodeB, project, lastSeq: 0)
            #expect((elsewhere["missed"] as? [[String: Any]])?.map { $0["seq"] as? Int } == [1, 2, 3], "\(elsewhere)")
        }
    }

    @Test(arguments: TestStores.kinds)
    func anEditThatLosesToOtherNodesIsDecidedAgainAndOnlyThenAnsweredRetry(kind: StoreKind) async throws {
        let server = TestServer()
        defer { server.removeData() }
        let (base, cleanUp) = try await TestStores.open(kind)
        let rivals = RivalStoryboards(base)
        var stores = Stores(base)
        stores.storyboards = rivals
        try await closing(base, then: cleanUp) {
            try await server.run(stores: stores) { client in
                let project = try await Self.project(client)
                let (ada, _) = try await Self.editor(client, project)
                // Three other nodes' edits land first, one before each attempt: the fourth stores it.
                rivals.rivalAppends(3)
                try await Self.draw(ada, project, id: "a1")
                let received = try await Self.collect(ada) { Self.ofType("edited", $0).count >= 4 }
                let ack = try #require(Self.answers(in: received).first)
                #expect(ack["type"] as? String == "ack" && ack["seq"] as? Int == 4, "\(ack)")
                let seen = Self.ofType("edited", received)
                #expect(seen.map { $0["seq"] as? Int } == [1, 2, 3, 4])
                #expect(seen.map { $0["by"] as? String } == [nil, nil, nil, "a1"])

                // Others win every attempt: nothing is stored, and the editor is asked to send it again.
                rivals.rivalAppends(1000)
                try await Self.draw(ada, project, id: "a2", x: 0.5)
                let refused = try #require(try await Self.answers(ada, count: 1)["a2"])
                #expect(refused["type"] as? String == "error" && refused["code"] as? String == "retry", "\(refused)")
                rivals.rivalAppends(0)
                try await Self.draw(ada, project, id: "a2", x: 0.5)
                let stored = try #require(try await Self.answers(ada, count: 1)["a2"])
                #expect(stored["type"] as? String == "ack", "\(stored)")
                let shown = try await client.request(.get, "/api/v1/storyboards/\(project.id)", token: project.token).object()
                #expect(Self.strokes(in: shown["content"] as? [String: Any]) == ["st-a1", "st-a2"])
            }
        }
    }
}
