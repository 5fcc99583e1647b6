import Foundation
import PodiumClient
import Testing

/// The Swift SDK against the real server.
@Suite("Swift SDK", .timeLimit(.minutes(3)))
struct ClientSDKTests {
    @Test func signsInUploadsAndStartsASession() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            var api = PodiumAPI(baseURL: URL(string: "http://127.0.0.1:\(client.port)/")!)
            await #expect(throws: PodiumAPI.APIErrorDetail.self) { try await api.signIn(email: "admin", password: "wrong") }
            try await api.signIn(email: "admin", password: TestServer.adminPassword)
            let uploaded = try await api.upload(pdf: try Data(contentsOf: TestServer.demoDeck), title: "From Swift")
            #expect(uploaded.status == "processing")
            let deck = try await api.waitUntilProcessed(deckId: uploaded.id)
            #expect(deck.status == "ready")
            #expect(deck.pages?.count == deck.pageCount)
            let session = try await api.startSession(deckId: deck.id, passcode: "42")
            #expect(session.hasPasscode)
            #expect(try await api.liveSessions().map(\.code) == [session.code])
            #expect(
                api.liveURL(code: session.code).absoluteString
                    == "ws://127.0.0.1:\(client.port)/api/v1/sessions/\(session.code)/live")
            do {
                _ = try await api.upload(pdf: Data("hello".utf8))
                Issue.record("a text file was accepted as a PDF")
            } catch let error as PodiumAPI.APIErrorDetail {
                #expect(error.code == "unsupported_type")
            }
        }
    }
}
