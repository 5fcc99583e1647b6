import Foundation
import PodiumCore
import PodiumStore
import Synchronization
import Testing

@testable import PodiumClient

/// The SDK's one live stream under both of its live types: the storyboard socket resumes after a
/// drop with `lastSeq` as the session socket does (SDKLiveTests), sends again what was not
/// acknowledged, and sends again an edit the server answers `retry`.
@Suite("Swift SDK: one live stream for sessions and storyboards", .timeLimit(.minutes(2)))
struct SDKLiveStreamTests {
    /// A new project of the admin's, with its first scene's and shot's ids.
    static func project(_ podium: PodiumClient) async throws -> (id: String, scene: String, shot: String) {
        let board = try await podium.createStoryboard(title: "Chase", aspectRatio: "16:9")
        let content = try #require(board.content)
        return (board.id, try #require(content.scenes.first?.id), try #require(content.scenes.first?.shots.first?.id))
    }

    @Test func bothLiveTypesRideOnTheOneStream() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let podium = try await client.adminSDK()
            let deck = try await podium.uploadDeck(file: TestServer.demoDeck).item
            _ = try await podium.waitUntilReady(deck: deck.id)
            let info = try await podium.startSession(deckId: deck.id)
            let session = try await podium.connect(code: info.code, as: .presenter)
            let project = try await Self.project(podium)
            let editor = try await podium.editStoryboard(id: project.id)
            #expect(type(of: session.stream) == LiveStream<SessionSocketKind>.self)
            #expect(type(of: editor.stream) == LiveStream<StoryboardSocketKind>.self)
            #expect(await session.connections == 1)
            #expect(await editor.connections == 1)
            #expect(await editor.lastSeq == editor.welcome.seq)
            await session.close()
            await editor.close()
            // Closed means closed: an edit now is refused at once, not kept.
            await #expect(throws: PodiumTransportError.self) { try await editor.edit(.renumberShots(numbers: nil)) }
        }
    }

    /// The storyboard socket's documented frames read as the stream acts on them: none as a
    /// type the SDK does not know, the resumed welcome with its `missed` edits.
    @Test func everyStoryboardServerExampleIsAFrameTheStreamReads() throws {
        let examples = try ProtocolDocumentTests.examples().filter { $0.side == .server && $0.name.hasPrefix("storyboard") }
        #expect(examples.count >= 8)
        var missed: [Int] = []
        for example in examples {
            for text in SDKDriftTests.objects(example.text) {
                switch try StoryboardSocketKind.frame(text) {
                case .message(.other(let type, _)): Issue.record("\(example.name): \(type) read as a type the SDK does not know")
                case .welcome(let welcome, let seq, let edits?):
                    #expect(seq == welcome.seq)
                    missed += edits.map(\.seq)
                default: break
                }
            }
        }
        #expect(missed == [1])
    }

    @Test(arguments: TestStores.kinds) func aStoryboardEditorThatLostItsSocketGetsTheMissedEditsOnce(_ store: StoreKind)
        async throws
    {
        let server = TestServer(store: store)
        defer { server.removeData() }
        try await server.run { client in
            let podium = try await client.adminSDK()
            let project = try await Self.project(podium)
            let gate = Gate()
            let ada = try await podium.editStoryboard(id: project.id, reconnect: gate.policy)
            let seen = EditorMessages(ada)
            let ben = try await podium.editStoryboard(id: project.id, reconnect: immediately)

            let first = try await ada.commit(.renameScene(scene: project.scene, title: "Opening"), id: "e-1")
            #expect(first == ada.welcome.seq + 1)
            try await seen.waitFor("her own edit") { _ in seen.editedSeqs == [first] }
            #expect(await ada.lastSeq == first)

            // Her socket dies; while she waits to come back, Ben edits twice.
            await ada.dropConnection()
            try await seen.waitFor("the drop") { $0.contains { if case .disconnected = $0 { true } else { false } } }
            try await waitUntil("waiting at the gate") { await gate.waits == 1 }
            let second = try await ben.commit(.updateShot(shot: project.shot, dialogue: "Hold on!"), id: "e-2")
            let third = try await ben.commit(.renameScene(scene: project.scene, title: "Chase"), id: "e-3")
            #expect(second == first + 1 && third == first + 2)
            #expect(seen.editedSeqs == [first])

            // Back with lastSeq: the welcome brings what she missed, handed on as edits, once.
            await gate.open()
            try await seen.waitFor("the resume") { $0.contains { if case .resumed = $0 { true } else { false } } }
            #expect(seen.editedSeqs == [first, second, third])
            let resumed = seen.all.compactMap {
                if case .resumed(let welcome, let replayed) = $0 { (welcome, replayed) } else { nil }
            }
            #expect(resumed.map(\.1) == [2])
            #expect(resumed.first?.0.seq == third)
            #expect(resumed.first?.0.storyboard.scenes.first?.title == "Chase")
            #expect(!seen.all.contains { if case .welcome = $0 { true } else { false } }, "a fresh start instead of a resume")
            #expect(await ada.connections == 2)
            #expect(await ada.lastSeq == third)

            // Live again: the next edit comes the ordinary way, once.
            let fourth = try await ben.commit(.updateShot(shot: project.shot, action: "Runs"), id: "e-4")
            try await seen.waitFor("the next edit") { _ in seen.editedSeqs.last == fourth }
            #expect(seen.editedSeqs == [first, second, third, fourth])
            await ada.close()
            await ben.close()
        }
    }

    @Test func anEditWhoseAckWasLostIsSentAgainAndStoredOnce() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let podium = try await client.adminSDK()
            do {
                _ = try await podium.editStoryboard(id: "sb_nothing")
                Issue.record("a project that does not exist opened")
            } catch let error as PodiumError {
                #expect(error.code == "not_found" && error.status == 0)
            }
            let project = try await Self.project(podium)
            let ada = try await podium.editStoryboard(id: project.id, reconnect: immediately)
            let seen = EditorMessages(ada)

            // The socket drops right after the edit goes out; the stream comes back and sends it
            // again, same id; the server stores it once.
            await ada.stream.dropAfterNextCommandIsSent()
            let lost = try await ada.commit(.renameScene(scene: project.scene, title: "Opening"), id: "lost-ack")
            #expect(lost == ada.welcome.seq + 1)
            try await waitUntil("the reconnection") { await ada.connections == 2 }
            // Posted without waiting, answered on the messages.
            try await ada.edit(.updateShot(shot: project.shot, dialogue: "Hold on!"), id: "after")
            try await seen.waitFor("its ack") { updates in
                updates.contains { if case .ack("after", let seq) = $0 { seq == lost + 1 } else { false } }
            }
            let stored = try await podium.storyboard(id: project.id)
            #expect(stored.seq == lost + 1)
            #expect(stored.content?.scenes.first?.title == "Opening")
            #expect(seen.editedSeqs.filter { $0 == lost }.count <= 1 && seen.editedSeqs.last == lost + 1)

            // A refusal is the command's error, thrown to its sender.
            do {
                try await ada.commit(.renameScene(scene: "sc_nothing", title: "?"))
                Issue.record("an unknown scene was renamed")
            } catch let error as PodiumError {
                #expect(error.code == "unknown_scene" && error.status == 0)
            }
            await ada.close()
        }
    }

    @Test func anEditTheServerAnswersRetryIsSentAgainWithItsId() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let sqlite = try await SQLStore.openSQLite(path: nil, logger: TestServer.logger())
        let storyboards = RivalStoryboards(sqlite)
        var stores = Stores(sqlite)
        stores.storyboards = storyboards
        try await server.run(stores: stores) { client in
            let podium = try await client.adminSDK()
            let project = try await Self.project(podium)
            let ada = try await podium.editStoryboard(id: project.id, reconnect: immediately)
            let seen = EditorMessages(ada)

            // Other nodes keep storing first: more times than the server decides an edit again,
            // so it answers `retry`, and the stream sends the edit again until it is stored.
            let rivals = 20
            storyboards.rivalAppends(rivals)
            let seq = try await ada.commit(.renameScene(scene: project.scene, title: "Opening"), id: "contested")
            #expect(await ada.stream.retried >= 1)
            #expect(seq == ada.welcome.seq + rivals + 1)
            try await seen.waitFor("every edit") { _ in seen.editedSeqs.last == seq }
            #expect(seen.editedSeqs == Array(ada.welcome.seq + 1...seq))
            #expect(!seen.all.contains { if case .error = $0 { true } else { false } }, "\(seen.all)")
            #expect(try await podium.storyboard(id: project.id).content?.scenes.first?.title == "Opening")
            await ada.close()
        }
        try await sqlite.close()
    }
}

/// The stream's rules against a socket the test answers frame by frame (`LiveStream` takes its
/// connection from outside): what a real server seldom does on cue, a gap, a `retry` that does
/// not stop.
@Suite("Swift SDK: the live stream on a scripted socket", .timeLimit(.minutes(1)))
struct LiveStreamScriptTests {
    static let welcome =
        ##"{"type":"welcome","seq":SEQ,"storyboard":{"scenes":[]},"you":{"editor":1,"userId":"u_1","name":"Ada","color":"#e8590c"},"editors":[]MISSED}"##

    static func welcome(seq: Int, missed: [Int]? = nil) -> String {
        welcome.replacingOccurrences(of: "SEQ", with: "\(seq)").replacingOccurrences(
            of: "MISSED", with: missed.map { #","missed":["# + $0.map { edited($0) }.joined(separator: ",") + "]" } ?? "")
    }

    static func edited(_ seq: Int, by: String? = nil) -> String {
        #"{"type":"edited","seq":\#(seq),"author":"u_2","by":\#(by.map { "\"\($0)\"" } ?? "null"),"edit":{"op":"renumberShots"}}"#
    }

    @Test func aGapOnTheStoryboardSocketIsMendedByComingBackWithLastSeq() async throws {
        let server = ScriptedServer { socket, message in
            guard message["type"]?.string == "hello" else { return }
            if socket.number == 1 {
                socket.reply(Self.welcome(seq: 0))
                socket.reply(Self.edited(1))
                socket.reply(Self.edited(3))  // 2 never came
            } else {
                socket.reply(Self.welcome(seq: 3, missed: [2, 3]))
            }
        }
        let editor = try await StoryboardLiveSession.open(
            url: URL(string: "ws://scripted")!, token: nil, reconnect: immediately, connect: { _, _ in server.open() })
        let seen = EditorMessages(editor)
        try await seen.waitFor("the resume") { $0.contains { if case .resumed = $0 { true } else { false } } }
        #expect(seen.editedSeqs == [1, 2, 3])
        #expect(seen.all.contains { if case .resumed(_, replayed: 2) = $0 { true } else { false } })
        #expect(await editor.connections == 2)
        #expect(await editor.lastSeq == 3)
        let hellos = server.sent.filter { $0.message["type"]?.string == "hello" }
        #expect(hellos.map(\.message["lastSeq"]) == [nil, .number(1)])
        await editor.close()
    }

    @Test func anEditAnsweredRetryIsSentAgainWithItsIdAndGivenUpOnAtLast() async throws {
        let server = ScriptedServer { socket, message in
            switch (message["type"]?.string, message["id"]?.string) {
            case ("hello", _): socket.reply(Self.welcome(seq: 0))
            case ("edit", "once"?) where socket.server?.sent.filter({ $0.message["id"]?.string == "once" }).count == 1:
                socket.reply(#"{"type":"error","id":"once","code":"retry","message":"Send it again."}"#)
            case ("edit", "once"?):
                socket.reply(#"{"type":"ack","id":"once","seq":1}"#)
                socket.reply(Self.edited(1, by: "once"))
            case ("edit", let id?):
                socket.reply(#"{"type":"error","id":"\#(id)","code":"retry","message":"Send it again."}"#)
            default: break
            }
        }
        let editor = try await StoryboardLiveSession.open(
            url: URL(string: "ws://scripted")!, token: nil, reconnect: immediately, connect: { _, _ in server.open() })
        let seen = EditorMessages(editor)
        #expect(try await editor.commit(.renumberShots(), id: "once") == 1)
        let sentOnce = server.sent.filter { $0.message["id"]?.string == "once" }
        #expect(sentOnce.count == 2 && Set(sentOnce.map(\.text)).count == 1)
        #expect(await editor.stream.retried == 1)

        // One the server never takes: sent again up to the limit, then its sender hears why.
        do {
            try await editor.commit(.renumberShots(), id: "never")
            Issue.record("an edit never stored was acknowledged")
        } catch let error as PodiumError {
            #expect(error.code == "retry")
        }
        let limit = LiveStream<StoryboardSocketKind>.maxRetries
        #expect(server.sent.filter { $0.message["id"]?.string == "never" }.count == 1 + limit)
        #expect(await editor.connections == 1)
        try await seen.waitFor("the edit") { _ in seen.editedSeqs == [1] }
        #expect(!seen.all.contains { if case .error(_, "retry", _) = $0 { true } else { false } })
        await editor.close()
    }
}

/// Opens ``ScriptedSocket``s, numbered from 1, and keeps what the SDK sent on them.
final class ScriptedServer: Sendable {
    typealias Script = @Sendable (ScriptedSocket, JSONValue) -> Void
    private let script: Script
    private let state = Mutex<(opened: Int, sent: [(socket: Int, text: String, message: JSONValue)])>((0, []))

    init(_ script: @escaping Script) { self.script = script }

    var sent: [(socket: Int, text: String, message: JSONValue)] { state.withLock { $0.sent } }

    func open() -> ScriptedSocket {
        let number = state.withLock { state in
            state.opened += 1
            return state.opened
        }
        return ScriptedSocket(number: number, server: self)
    }

    func received(_ text: String, on socket: ScriptedSocket) {
        let message = (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) ?? .null
        state.withLock { $0.sent.append((socket.number, text, message)) }
        script(socket, message)
    }
}

/// One connection of a ``ScriptedServer``: what the SDK sends goes to the script, which answers
/// with ``reply(_:)``.
final class ScriptedSocket: LiveTransport {
    let number: Int
    let messages: AsyncStream<String>
    private let incoming: AsyncStream<String>.Continuation
    weak let server: ScriptedServer?

    init(number: Int, server: ScriptedServer) {
        self.number = number
        self.server = server
        (messages, incoming) = AsyncStream.makeStream(of: String.self)
    }

    var closeReason: String { "closed by the test" }

    func reply(_ text: String) { incoming.yield(text) }

    func send(_ text: String) async throws { server?.received(text, on: self) }

    func close(abruptly: Bool) async { incoming.finish() }
}

/// Everything a storyboard session handed its reader, collected as it comes.
final class EditorMessages: Sendable {
    private final class Box: Sendable {
        let list = Mutex<[StoryboardMessage]>([])
    }
    private let box = Box()
    private let task: Task<Void, Never>

    init(_ session: StoryboardLiveSession) {
        let box = self.box
        task = Task {
            for await message in session.messages { box.list.withLock { $0.append(message) } }
        }
    }

    var all: [StoryboardMessage] { box.list.withLock { $0 } }

    var editedSeqs: [Int] {
        all.compactMap { if case .edited(let seq, _, _, _) = $0 { seq } else { nil } }
    }

    func waitFor(_ what: String, _ condition: @escaping ([StoryboardMessage]) -> Bool) async throws {
        try await waitUntil(what) { condition(self.all) }
    }

    deinit { task.cancel() }
}
