import Foundation
import HTTPTypes
import PodiumStore
import Synchronization
import Testing

@testable import PodiumServer

/// Sessions over REST, ownership, downloads and what survives a restart.
@Suite("Sessions", .timeLimit(.minutes(5)))
struct SessionTests {
    @Test(arguments: TestStores.kinds) func startingListingAndLookingUpASession(_ store: StoreKind) async throws {
        let server = TestServer(store: store) { $0.publicURL = "http://podium.example:8080" }
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let processing = try #require(try await client.upload(TestServer.demoDeck, token: token).object()["id"] as? String)
            let early = try await client.request(.post, "/api/v1/sessions", token: token, json: #"{"deckId":"\#(processing)"}"#)
            if early.status != .created {  // unless ingest already won the race
                #expect(early.errorCode == "deck_not_ready")
            }
            _ = try await client.waitForDeck(processing, token: token)
            #expect(
                try await client.request(.post, "/api/v1/sessions", json: #"{"deckId":"\#(processing)"}"#).status == .unauthorized
            )
            #expect(
                try await client.request(.post, "/api/v1/sessions", token: token, json: #"{"deckId":"d_nope"}"#).status
                    == .notFound)

            let session = try await client.startSession(deckId: processing, token: token, passcode: "1234", allowDownload: false)
            let code = try #require(session["code"] as? String)
            #expect(code.count == 6)
            #expect(session["joinUrl"] as? String == "http://podium.example:8080/s/\(code)")
            #expect(session["hasPasscode"] as? Bool == true)
            // Its host reads the passcode back (to show it in the console); nobody gets the hash.
            #expect(session["passcode"] as? String == "1234" && session["passcodeHash"] == nil)

            let live = try await client.request(.get, "/api/v1/sessions?live=true").array()
            #expect(live.map { $0["code"] as? String } == [code])
            let info = try await client.request(.get, "/api/v1/sessions/\(code.lowercased())").object()
            #expect(info["title"] as? String == "Welcome to Podium")
            #expect(info["presenter"] as? String == "Admin")
            #expect(info["passcode"] == nil && info["passcodeHash"] == nil, "the public never sees the passcode")
            #expect(try await client.request(.get, "/api/v1/sessions/AAAAAA").status == .notFound)

            // Downloads are refused by the server, not just hidden.
            let refused = try await client.request(.get, "/api/v1/sessions/\(code)/download")
            #expect(refused.status == .forbidden)
            #expect(refused.errorCode == "download_not_allowed")

            let allowed = try await client.startSession(deckId: processing, token: token, allowDownload: true)
            let download = try await client.request(.get, "/api/v1/sessions/\(try #require(allowed["code"] as? String))/download")
            #expect(download.status == .ok)
            #expect(download.headers[.contentType] == "application/pdf")
            #expect(download.body.readableBytesView.starts(with: Array("%PDF-".utf8)))

            let ended = try await client.request(.post, "/api/v1/sessions/\(code)/end", token: token).object()
            #expect(ended["live"] as? Bool == false)
            #expect(try await client.request(.post, "/api/v1/sessions/\(code)/end", token: token).status == .ok)
            #expect(try await client.request(.get, "/api/v1/sessions?live=true").array().count == 1)
        }
    }

    @Test(arguments: TestStores.kinds) func onlyTheOwnerPresents(_ kind: StoreKind) async throws {
        let server = TestServer()
        defer { server.removeData() }
        let (store, cleanUp) = try await TestStores.open(kind)
        try await server.run(store: store) { client in
            let token = try await client.login()
            let deckId = try await client.readyDeck(token: token)
            let session = try await client.startSession(deckId: deckId, token: token)
            let code = try #require(session["code"] as? String)

            let accounts = Accounts(store: store, cost: 4, tokenLifetime: 3600, now: { Date() })
            try await store.insertUser(
                UserRecord(
                    id: "u_other", email: "other@example.org", name: "Other", role: .presenter,
                    passwordHash: try await accounts.hash("other-password"), createdAt: Date()))
            let otherToken = try await client.login(email: "other@example.org", password: "other-password")

            let intruder = try await client.socket(code: code)
            #expect(try await intruder.hello(["role": "presenter", "token": otherToken])["code"] as? String == "forbidden")
            #expect(try await client.request(.post, "/api/v1/sessions/\(code)/end", token: otherToken).status == .forbidden)
            #expect(try await client.request(.get, "/api/v1/decks/\(deckId)", token: otherToken).status == .notFound)
            #expect(
                try await client.request(.post, "/api/v1/sessions", token: otherToken, json: #"{"deckId":"\#(deckId)"}"#).status
                    == .notFound)
            #expect(try await client.request(.delete, "/api/v1/decks/\(deckId)", token: otherToken).status == .notFound)
        }
        try await store.close()
        await cleanUp()
    }

    @Test(arguments: TestStores.kinds) func aRestartedServerServesTheSameSessionAndHistory(_ store: StoreKind) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-restart-\(UUID().uuidString)")
        let first = TestServer(dataDirectory: directory, store: store)
        defer { first.removeData() }
        let state = Mutex<(token: String, code: String)?>(nil)
        try await first.run { client in
            let (token, code, presenter) = try await client.presentSession()
            try await presenter.send(#"{"type":"goto","id":"a","page":3}"#)
            try await presenter.send(#"{"type":"blank","id":"b","mode":"black"}"#)
            var acked = 0
            while acked < 2 { if try await presenter.nextDurable()?["type"] as? String == "ack" { acked += 1 } }
            state.withLock { $0 = (token, code) }
        }
        let (token, code) = try #require(state.withLock { $0 })
        try await TestServer(dataDirectory: directory, store: store).run { client in
            #expect(try await client.request(.get, "/api/v1/sessions?live=true").array().map { $0["code"] as? String } == [code])
            let viewer = try await client.socket(code: code)
            let welcome = try await viewer.hello(["role": "viewer", "lastSeq": 1])
            #expect(welcome["seq"] as? Int == 2)
            #expect((welcome["snapshot"] as? [String: Any])?["page"] as? Int == 3)
            #expect((welcome["events"] as? [[String: Any]])?.map { $0["type"] as? String } == ["blank"])
            // The token and the command ids survive too: a retried command takes effect once.
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            try await presenter.send(#"{"type":"goto","id":"a","page":3}"#)
            let ack = try await presenter.nextDurable()
            #expect(ack?["type"] as? String == "ack" && ack?["seq"] as? Int == 1)
        }
    }
}
