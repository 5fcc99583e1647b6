import Foundation
import PodiumCore
import Synchronization
import Testing

@testable import PodiumClient

/// Sessions and rooms through the SDK, live socket included: reconnection with `lastSeq` resume,
/// commands retried that count once, reports and exports.
@Suite("Swift SDK: sessions, rooms and the live socket", .timeLimit(.minutes(3)))
struct SDKLiveTests {
    /// A ready deck and a session of it, by the admin.
    static func session(_ podium: PodiumClient, passcode: String? = nil) async throws -> LiveSessionInfo {
        let deck = try await podium.uploadDeck(file: TestServer.demoDeck).item
        _ = try await podium.waitUntilReady(deck: deck.id)
        return try await podium.startSession(deckId: deck.id, passcode: passcode, allowDownload: true)
    }

    @Test(arguments: TestStores.kinds) func aViewerThatLostItsSocketGetsWhatItMissedOnce(_ store: StoreKind) async throws {
        let server = TestServer(store: store)
        defer { server.removeData() }
        try await server.run { client in
            let podium = try await client.adminSDK()
            let info = try await Self.session(podium, passcode: "1234")
            #expect(info.hasPasscode)
            #expect(try await podium.liveSessions().map(\.code) == [info.code])

            // A wrong passcode is the server's no, at connect.
            do {
                _ = try await client.sdk().connect(code: info.code, as: .viewer(passcode: "0000"))
                Issue.record("a wrong passcode got in")
            } catch let error as PodiumError {
                #expect(error.code == "passcode_wrong")
            }

            let presenter = try await podium.connect(code: info.code, as: .presenter, reconnect: immediately)
            let gate = Gate()
            let viewer = try await client.sdk().connect(
                code: info.code, as: .viewer(name: "Ada", passcode: "1234"), reconnect: gate.policy)
            let seen = Updates(viewer)
            try await seen.waitFor("the welcome") { $0.contains { if case .welcome = $0 { true } else { false } } }
            let viewerWelcome = await viewer.welcome
            #expect(viewerWelcome?.session.code == info.code)

            let first = try await presenter.send(.goto(page: 2))
            try await seen.waitFor("page 2") { _ in seen.pages == [2] }
            #expect(await viewer.lastSeq == first)

            // The socket dies; while the viewer waits to come back, the presenter moves on.
            await viewer.dropConnection()
            try await seen.waitFor("the drop") { $0.contains { if case .disconnected = $0 { true } else { false } } }
            try await waitUntil("waiting at the gate") { await gate.waits == 1 }
            let second = try await presenter.send(.goto(page: 3))
            let third = try await presenter.send(.goto(page: 4))
            #expect(second == first + 1 && third == first + 2)
            #expect(seen.pages == [2])

            await gate.open()
            try await seen.waitFor("the resume") { $0.contains { if case .resumed = $0 { true } else { false } } }
            #expect(seen.pages == [2, 3, 4])
            #expect(seen.events.map(\.seq) == [first, second, third])
            let resumed = seen.all.compactMap { if case .resumed(_, let replayed) = $0 { replayed } else { nil } }
            #expect(resumed == [2])
            #expect(await viewer.connections == 2)
            #expect(await viewer.lastSeq == third)

            // Live again: the next event comes the ordinary way, once.
            _ = try await presenter.send(.goto(page: 5))
            try await seen.waitFor("page 5") { _ in seen.pages == [2, 3, 4, 5] }

            // The REST end reaches the viewer as the durable `ended`.
            try await podium.endSession(code: info.code)
            try await seen.waitFor("ended") { _ in seen.events.contains { $0.change == .ended } }
            await viewer.close()
            await presenter.close()
        }
    }

    @Test func aCommandRetriedCountsOnce() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let podium = try await client.adminSDK()
            let info = try await Self.session(podium)
            let presenter = try await podium.connect(code: info.code, as: .presenter, reconnect: immediately)
            let viewer = try await client.sdk().connect(code: info.code, as: .viewer())
            let seen = Updates(viewer)

            // The same id twice: one event, the same seq answered both times.
            let once = try await presenter.send(.goto(page: 2), id: "retry-1")
            let again = try await presenter.send(.goto(page: 2), id: "retry-1")
            #expect(once == again)

            // A lost ack: the socket drops right after the command goes out; the session
            // reconnects and sends it again with its id; the server counts it once.
            await presenter.dropAfterNextCommandIsSent()
            let lost = try await presenter.send(.goto(page: 3), id: "lost-ack")
            #expect(lost == once + 1)
            // Its ack may have come on the old socket just before the cut, or on the new one.
            try await waitUntil("the reconnection") { await presenter.connections == 2 }
            let after = try await presenter.send(.goto(page: 4))
            #expect(after == lost + 1)
            try await seen.waitFor("page 4") { _ in seen.pages.last == 4 }
            #expect(seen.pages == [2, 3, 4])

            // A refused command carries the socket's code.
            do {
                try await presenter.send(.goto(page: 999))
                Issue.record("page 999 was accepted")
            } catch let error as PodiumError {
                #expect(error.code == "invalid_page" && error.status == 0)
            }
            do {
                try await viewer.send(.lock(true))
                Issue.record("a viewer locked the session")
            } catch let error as PodiumError {
                #expect(error.code == "forbidden")
            }
            await viewer.close()
            await presenter.close()
        }
    }

    @Test(arguments: TestStores.kinds) func pollsReportsAndExports(_ store: StoreKind) async throws {
        let server = TestServer(store: store)
        defer { server.removeData() }
        try await server.run { client in
            let podium = try await client.adminSDK()
            let info = try await Self.session(podium)
            let presenter = try await podium.connect(code: info.code, as: .presenter)
            let presenterSeen = Updates(presenter)
            let viewer = try await client.sdk().connect(code: info.code, as: .viewer(name: "Ada"))
            let viewerSeen = Updates(viewer)

            let poll = Poll(kind: .choice, question: "Tea or coffee?", choices: ["Tea", "Coffee"])
            let opened = try await presenter.send(.openPoll(poll))
            try await viewerSeen.waitFor("the poll") { _ in viewerSeen.events.contains { $0.seq == opened } }
            try await viewer.send(.answer(pollId: opened, .choices([1])))
            try await presenterSeen.waitFor("the tally") { updates in
                updates.contains { if case .message(.results(let results)) = $0 { results.answered == 1 } else { false } }
            }
            try await viewer.send(.ask(id: "q-1", text: "Milk first?", page: nil, anonymous: false), id: "q-1")
            try await presenter.send(
                .stroke(
                    Stroke(
                        id: "s1", page: 1, tool: .pen, color: "#ff0000", width: 0.01,
                        points: [[0.1, 0.1, 0.5], [0.2, 0.2, 0.5]])))
            // The lobby lists the session, typed.
            let lobby = try await podium.lobby()
            var listed: LobbySession?
            for await update in lobby {
                listed = update.sessions.first { $0.code == info.code }
                if listed != nil { break }
            }
            #expect(listed?.kind == .session && listed?.hasPasscode == false && listed?.viewers == 1)
            try await podium.endSession(code: info.code)

            let report = try await podium.report(code: info.code)
            #expect(report.uniqueViewers == 1)
            #expect(report.polls.count == 1)
            let tally = try #require(report.polls.first)
            #expect(tally.question == "Tea or coffee?" && tally.kind == "choice" && tally.choices == ["Tea", "Coffee"])
            #expect(tally.counts == [0, 1] && tally.answered == 1 && tally.answers == nil)
            #expect(report.questions.map(\.text) == ["Milk first?"])
            #expect(report.questions.first?.name == "Ada" && report.questions.first?.answered == false)
            #expect(report.clips.isEmpty && report.presenters.isEmpty && report.endedAt != nil)
            #expect(try await podium.reportCSV(code: info.code, .questions).contains("Milk first?"))
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sdk-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let csv = directory.appendingPathComponent("polls.csv")
            try await podium.downloadReport(code: info.code, .polls, to: csv)
            #expect(try String(contentsOf: csv, encoding: .utf8).contains("Tea or coffee?"))
            let pdf = directory.appendingPathComponent("export.pdf")
            let progress = Mutex<[TransferProgress]>([])
            try await podium.downloadExportPDF(code: info.code, to: pdf) { value in progress.withLock { $0.append(value) } }
            #expect(try Data(contentsOf: pdf).starts(with: Data("%PDF".utf8)))
            #expect(!progress.withLock { $0 }.isEmpty)
            let history = try await podium.history()
            #expect(history.sessions.map(\.code) == [info.code])
            #expect(history.sessions.first?.live == false)
            await viewer.close()
            await presenter.close()
        }
    }

    @Test func aRoomWithAModeratorAndAPresenterByName() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let podium = try await client.adminSDK()
            let deck = try await podium.uploadDeck(file: TestServer.demoDeck).item
            _ = try await podium.waitUntilReady(deck: deck.id)
            let room = try await podium.openRoom(title: "Tuesday seminar")
            #expect(room.kind == .room)
            #expect(room.presenterUrl != nil)
            let moderator = try await podium.connect(code: room.code, as: .moderator)
            let moderatorSeen = Updates(moderator)
            let moderatorWelcome = await moderator.welcome
            #expect(moderatorWelcome?.role == .moderator)
            let added = try await podium.addDeckToRoom(code: room.code, deckId: deck.id)
            #expect(added.status == "ready")

            try await moderator.send(.showDeck(deckId: deck.id, page: 1))
            let presenter = try await client.sdk().connect(code: room.code, as: .roomPresenter(name: "Ann"))
            let presenterSeen = Updates(presenter)
            let presenterWelcome = await presenter.welcome
            let presenterId = try #require(presenterWelcome?.presenterId)
            #expect(presenterWelcome?.snapshot.room?.deck != nil)
            try await presenter.send(.room(.request))
            try await moderatorSeen.waitFor("the request") { _ in
                moderatorSeen.events.contains { if case .room(.requested, _) = $0.change { true } else { false } }
            }
            try await moderator.send(.room(.grant(presenterId: presenterId)))
            // Ann drives now: her page reaches the moderator.
            try await presenter.send(.goto(page: 2))
            try await moderatorSeen.waitFor("Ann's page") { _ in moderatorSeen.pages.contains(2) }
            try await presenterSeen.waitFor("her own page") { _ in presenterSeen.pages.contains(2) }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sdk-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let pdf = directory.appendingPathComponent("room.pdf")
            try await podium.downloadExportPDF(code: room.code, to: pdf)
            #expect(try Data(contentsOf: pdf).starts(with: Data("%PDF".utf8)))
            try await podium.endSession(code: room.code)
            await presenter.close()
            await moderator.close()
        }
    }
}
