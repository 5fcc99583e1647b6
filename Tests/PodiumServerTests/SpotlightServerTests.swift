import Foundation
import HTTPTypes
import Synchronization
import Testing

/// What the host puts on screen for everyone (the spotlight), through the real server: viewers
/// get the tally it shows (and an open poll's answers while its word cloud is on screen), late
/// joiners find it in the welcome, and a restarted server shows it again.
@Suite("Spotlight on the live socket", .timeLimit(.minutes(3)))
struct SpotlightServerTests {
    static func viewer(_ n: Int) -> HTTPFields { [.cookie: "podium_viewer=\(InteractionTests.identity(n))"] }

    /// A live session with its presenter and one viewer, Ada, both said hello.
    static func withPresenterAndAda(
        _ body: @escaping @Sendable (Client, String, TestSocket, TestSocket) async throws -> Void
    ) async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let code = try #require(
                try await client.startSession(deckId: try await client.readyDeck(token: token), token: token)["code"] as? String)
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let ada = try await client.socket(code: code, headers: Self.viewer(1))
            _ = try await ada.hello(["role": "viewer", "name": "Ada"])
            try await body(client, code, presenter, ada)
        }
    }

    @Test func viewersGetThePollsTallyWhileItIsOnScreen() async throws {
        try await Self.withPresenterAndAda { client, code, presenter, ada in

            // Results hidden from the audience: viewers get no tally.
            try await presenter.send(
                #"{"type":"openPoll","id":"p","poll":{"kind":"choice","question":"Tea?","choices":["Yes","No"],"correct":[0]}}"#)
            let pollId = try #require((try await ada.next(ofType: "pollOpened")?["poll"] as? [String: Any])?["id"] as? Int)
            try await ada.send(#"{"type":"answer","id":"a","pollId":\#(pollId),"choices":[1]}"#)
            _ = try await ada.next(ofType: "ack")
            try await ada.barrier()

            // On screen: the event, then the tally, to viewers too (no right answer before the reveal).
            try await presenter.send(
                #"{"type":"spotlight","id":"s1","spotlight":{"kind":"pollResults","pollId":\#(pollId)}}"#)
            let event = try #require(try await ada.next(ofType: "spotlight"))
            #expect((event["spotlight"] as? [String: Any])?["kind"] as? String == "pollResults")
            let tally = try #require(try await ada.next(ofType: "results"))
            #expect(tally["counts"] as? [Int] == [0, 1])
            #expect(tally["answers"] == nil)

            // A late joiner finds it in the welcome, with the tally.
            let bob = try await client.socket(code: code, headers: Self.viewer(2))
            let welcome = try await bob.hello(["role": "viewer", "name": "Bob"])
            let snapshot = try #require(welcome["snapshot"] as? [String: Any])
            #expect((snapshot["spotlight"] as? [String: Any])?["pollId"] as? Int == pollId)
            #expect((welcome["results"] as? [[String: Any]])?.map { $0["pollId"] as? Int } == [pollId])
            let polls = try #require(snapshot["polls"] as? [[String: Any]])
            #expect((polls.first?["poll"] as? [String: Any])?["correct"] == nil, "the right answer stays hidden")

            // Bob's answer reaches Ada's screen live.
            try await bob.send(#"{"type":"answer","id":"b","pollId":\#(pollId),"choices":[0]}"#)
            var counts: [Int]? = nil
            while counts != [1, 1] { counts = try await ada.next(ofType: "results")?["counts"] as? [Int] }

            // Off screen: gone from the snapshot; the results stay on the phones (a newcomer gets
            // the tally) until the host hides them, and then a newcomer gets none.
            try await presenter.send(#"{"type":"spotlight","id":"s2","spotlight":null}"#)
            let off = try #require(try await ada.next(ofType: "spotlight"))
            #expect(off["spotlight"] is NSNull)
            let cleo = try await client.socket(code: code, headers: Self.viewer(3))
            let later = try await cleo.hello(["role": "viewer"])
            #expect((later["snapshot"] as? [String: Any])?["spotlight"] == nil)
            #expect((later["results"] as? [[String: Any]])?.map { $0["pollId"] as? Int } == [pollId])
            try await presenter.send(#"{"type":"showResults","id":"h","pollId":\#(pollId),"shown":false}"#)
            let hidden = try #require(try await ada.next(ofType: "resultsShown"))
            #expect(hidden["shown"] as? Bool == false)
            let dan = try await client.socket(code: code, headers: Self.viewer(4))
            let hiddenWelcome = try await dan.hello(["role": "viewer"])
            #expect((hiddenWelcome["results"] as? [[String: Any]])?.isEmpty == true)

            // A viewer may not decide what is on screen; an unknown poll is a clear error.
            try await ada.send(#"{"type":"spotlight","id":"s3","spotlight":{"kind":"leaderboard"}}"#)
            #expect(try await ada.next(ofType: "error")?["code"] as? String == "forbidden")
            try await presenter.send(#"{"type":"spotlight","id":"s4","spotlight":{"kind":"pollResults","pollId":999}}"#)
            #expect(try await presenter.next(ofType: "error")?["code"] as? String == "poll_not_found")
            try await presenter.send(#"{"type":"spotlight","id":"s5","spotlight":{"kind":"wordCloud","pollId":\#(pollId)}}"#)
            #expect(try await presenter.next(ofType: "error")?["code"] as? String == "invalid_spotlight")
        }
    }

    @Test func theWordCloudSendsViewersTheAnswersWithoutNames() async throws {
        try await Self.withPresenterAndAda { client, code, presenter, ada in
            try await presenter.send(#"{"type":"openPoll","id":"p","poll":{"kind":"open","question":"One word?"}}"#)
            let pollId = try #require((try await ada.next(ofType: "pollOpened")?["poll"] as? [String: Any])?["id"] as? Int)
            try await ada.send(#"{"type":"answer","id":"a","pollId":\#(pollId),"text":"Curious"}"#)
            _ = try await ada.next(ofType: "ack")
            try await presenter.send(#"{"type":"spotlight","id":"s","spotlight":{"kind":"wordCloud","pollId":\#(pollId)}}"#)
            let tally = try #require(try await ada.next(ofType: "results"))
            let answers = try #require(tally["answers"] as? [[String: Any]])
            #expect(answers.map { $0["text"] as? String } == ["Curious"])
            #expect(answers.allSatisfy { Set($0.keys) == ["answerId", "text"] }, "nothing says who wrote it")
        }
    }

    @Test func aRestartedServerShowsTheSameSpotlight() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let code = Mutex<String>("")
        try await server.run { client in
            let token = try await client.login()
            let started = try #require(
                try await client.startSession(deckId: try await client.readyDeck(token: token), token: token)["code"] as? String)
            code.withLock { $0 = started }
            let presenter = try await client.socket(code: started)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let ada = try await client.socket(code: started, headers: Self.viewer(1))
            _ = try await ada.hello(["role": "viewer", "name": "Ada"])
            try await ada.send(#"{"type":"ask","id":"q1","text":"Will this be recorded?","anonymous":false}"#)
            _ = try await ada.next(ofType: "ack")
            try await presenter.send(#"{"type":"spotlight","id":"s","spotlight":{"kind":"question","questionId":"q1"}}"#)
            let shown = try #require((try await ada.next(ofType: "spotlight"))?["spotlight"] as? [String: Any])
            #expect(shown["text"] as? String == "Will this be recorded?")
            #expect(shown["name"] as? String == "Ada")
        }
        try await server.run { client in
            let again = try await client.socket(code: code.withLock { $0 }, headers: Self.viewer(2))
            let welcome = try await again.hello(["role": "viewer"])
            let spotlight = try #require((welcome["snapshot"] as? [String: Any])?["spotlight"] as? [String: Any])
            #expect(spotlight["kind"] as? String == "question")
            #expect(spotlight["text"] as? String == "Will this be recorded?")
        }
    }
}
