import Foundation
import NIOCore
import PodiumCore
import PodiumStore
import Testing

@testable import PodiumServer

/// The presenters' viewer list and count, kept by indexes (``SessionMembers``) and sent as a
/// frame whose unchanged entries are reused (``ViewerListFrames``).
@Suite("Viewer list", .timeLimit(.minutes(2)))
struct ViewerListTests {
    static func decoded(_ frame: ByteBuffer) throws -> ViewerListMessage {
        try JSONDecoder().decode(ViewerListMessage.self, from: Data(buffer: frame))
    }

    @Test func theFrameSaysWhatTheMessageSaysAsEntriesChange() throws {
        var frames = ViewerListFrames()
        var views = (1...5).map { ViewerView(id: "g\($0)", name: "Guest \($0)", connected: true, questions: 0) }
        #expect(try Self.decoded(frames.frame(views)) == ViewerListMessage(viewers: views))
        views[2].connected = false
        views[4].name = "Zoë \"the\" <best>"
        views.append(ViewerView(id: "g6", name: "Six", connected: true, questions: 2))
        let frame = frames.frame(views)
        #expect(try Self.decoded(frame) == ViewerListMessage(viewers: views))
        #expect(String(buffer: frame).hasPrefix(#"{"type":"viewerList","viewers":[{"#))
        // A shorter list (not one a session makes) starts over rather than reusing the wrong ones.
        let other = [ViewerView(id: "g1", name: "Other", connected: false, questions: 1)]
        #expect(try Self.decoded(frames.frame(other)) == ViewerListMessage(viewers: other))
        #expect(try Self.decoded(frames.frame([])) == ViewerListMessage(viewers: []))
    }

    /// The newest viewer list a presenter has, skipping older ones.
    static func latestList(_ presenter: TestSocket, until done: ([[String: Any]]) -> Bool) async throws -> [[String: Any]] {
        while true {
            let list = try #require(try await presenter.next(ofType: "viewerList")?["viewers"] as? [[String: Any]])
            if done(list) { return list }
        }
    }

    static func entry(_ list: [[String: Any]], _ id: String) -> [String: Any]? { list.first { $0["id"] as? String == id } }

    /// Another node stored a viewer just after this node read the session's viewers: the store
    /// gives the newcomer the next number, and this node shows that one, not the one its own
    /// roster would have picked.
    @Test func aNewcomerIsShownWithTheNumberTheStoreGave() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let sqlite = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
        let audience = CountedAudienceReads(sqlite)
        var stores = Stores(sqlite)
        stores.interaction = audience
        try await server.run(stores: stores) { client in
            let (_, code, presenter) = try await client.presentSession()
            let session = try #require(try await sqlite.session(code: code))
            _ = try await sqlite.saveViewer(
                sessionId: session.id, ViewerEntry(id: "on-another-node", number: 1, name: nil), at: Date())
            audience.staleViewerReads.store(true, ordering: .relaxed)
            _ = try await InteractionTests().viewer(client, code: code, identity: InteractionTests.identity(1))
            let list = try await Self.latestList(presenter) { $0.count == 1 }
            #expect(list.first?["name"] as? String == "Guest 2")
        }
        try await sqlite.close()
    }

    /// A viewer who arrives while a command waits for the store is in the roster after the
    /// command is stored: the command's new state does not drop a newcomer it did not know of.
    @Test func aViewerWhoArrivesWhileACommandIsStoredStaysInTheList() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let sqlite = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
        let (arrived, arrival) = AsyncStream.makeStream(of: Void.self)
        let gate = StoreGate(arrived: arrival)
        var stores = Stores(sqlite)
        stores.sessions = HeldAppends(stores.sessions, gate: gate)
        try await server.run(stores: stores) { client in
            let (_, code, presenter) = try await client.presentSession()
            let tests = InteractionTests()
            let bob = try await tests.viewer(client, code: code, identity: InteractionTests.identity(2), name: "Bob")
            _ = try await Self.latestList(presenter) { $0.count == 1 }
            gate.holdNextAppend.store(true, ordering: .relaxed)
            try await presenter.send(#"{"type":"goto","id":"g","page":2}"#)
            for await _ in arrived { break }  // the command waits for the store
            let ada = try await tests.viewer(client, code: code, identity: InteractionTests.identity(1), name: "Ada")
            gate.release()
            #expect(try await presenter.next(ofType: "ack")?["id"] as? String == "g")

            // Bob (guest 1, the first to come) leaves: the list sent then still has Ada (guest 2).
            await bob.close()
            let list = try await Self.latestList(presenter) { Self.entry($0, "g1")?["connected"] as? Bool == false }
            #expect(Self.entry(list, "g2")?["name"] as? String == "Ada")
            #expect(Self.entry(list, "g2")?["connected"] as? Bool == true)
            await ada.close()
        }
        try await sqlite.close()
    }

    @Test func aViewerWithTwoTabsIsConnectedUntilTheLastClosesAndARenameShows() async throws {
        try await TestServer.withLiveSession { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let tests = InteractionTests()
            let adaTab = try await tests.viewer(client, code: code, identity: InteractionTests.identity(1), name: "Ada")
            let adaOtherTab = try await tests.viewer(client, code: code, identity: InteractionTests.identity(1))
            let bob = try await tests.viewer(client, code: code, identity: InteractionTests.identity(2), name: "Bob")
            var list = try await Self.latestList(presenter) { $0.count == 2 }
            #expect(Self.entry(list, "g1")?["name"] as? String == "Ada")
            #expect(Self.entry(list, "g1")?["connected"] as? Bool == true)
            #expect(Self.entry(list, "g2")?["connected"] as? Bool == true)

            // An answer reaches both of Ada's tabs, and not Bob.
            try await presenter.send(#"{"type":"openPoll","id":"p","poll":{"kind":"choice","question":"Q","choices":["A","B"]}}"#)
            #expect(try await presenter.next(ofType: "ack")?["id"] as? String == "p")  // open before anyone answers
            try await adaTab.send(#"{"type":"answer","id":"a","pollId":1,"choices":[1]}"#)
            #expect(try await adaTab.next(ofType: "myAnswer")?["pollId"] as? Int == 1)
            #expect(try await adaOtherTab.next(ofType: "myAnswer")?["pollId"] as? Int == 1)
            let results = try #require(try await presenter.next(ofType: "results"))
            #expect(results["connected"] as? Int == 3)  // sockets in the viewer role

            await adaTab.close()
            #expect(try await presenter.next(ofType: "presence")?["viewers"] as? Int == 2)
            await adaOtherTab.close()
            list = try await Self.latestList(presenter) { Self.entry($0, "g1")?["connected"] as? Bool == false }
            #expect(Self.entry(list, "g2")?["connected"] as? Bool == true)

            // Ada comes back under another name: the list shows it (her entry is encoded again).
            let renamed = try await tests.viewer(client, code: code, identity: InteractionTests.identity(1), name: "Ada L.")
            list = try await Self.latestList(presenter) { Self.entry($0, "g1")?["name"] as? String == "Ada L." }
            #expect(Self.entry(list, "g1")?["connected"] as? Bool == true)
            await renamed.close()
            await bob.close()
        }
    }
}
