import Foundation
import HTTPTypes
import Testing

@testable import PodiumServer

/// Polls, answers, reveal, audience questions and the viewer list over the real socket.
@Suite("Audience interaction", .timeLimit(.minutes(3)))
struct InteractionTests {
    func withSession(
        on store: StoreKind = .sqlite, _ body: @escaping @Sendable (Client, String, String) async throws -> Void
    ) async throws {
        try await TestServer.withLiveSession(store: store) { client, token, code in
            try await body(client, token, code)
        }
    }

    /// A viewer with their own identity cookie, as a browser would have.
    func viewer(_ client: Client, code: String, identity: String, name: String? = nil) async throws -> TestSocket {
        let socket = try await client.socket(code: code, headers: [.cookie: "podium_viewer=\(identity)"])
        var hello: [String: Any] = ["role": "viewer"]
        if let name { hello["name"] = name }
        #expect(try await socket.hello(hello)["type"] as? String == "welcome")
        return socket
    }

    /// A valid `podium_viewer` value for viewer `n`. A valid one is exactly 26 characters; the
    /// server ignores any other and gives that socket a fresh random identity.
    static func identity(_ n: Int) -> String {
        let digits = String(n)
        return "v_" + String(repeating: "a", count: 24 - digits.count) + digits
    }

    @Test(arguments: TestStores.kinds) func aPollFromOpenToRevealWithOneAnswerPerIdentity(_ store: StoreKind) async throws {
        try await withSession(on: store) { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let ada = try await viewer(client, code: code, identity: Self.identity(1), name: "Ada")
            let bob = try await viewer(client, code: code, identity: Self.identity(2))
            let poll =
                #"{"kind":"choice","question":"Best planet?","choices":["Mars","Earth","Venus"],"correct":[1],"showResults":false}"#
            try await presenter.send(#"{"type":"openPoll","id":"p1","poll":\#(poll)}"#)

            let opened = try #require(try await ada.nextDurable())
            #expect(opened["type"] as? String == "pollOpened")
            let sent = try #require(opened["poll"] as? [String: Any])
            let pollId = try #require(sent["id"] as? Int)
            #expect(sent["correct"] == nil)  // the right answer is not given away, not even as []
            let presenterView = try #require(try await presenter.next(ofType: "pollOpened"))
            #expect((presenterView["poll"] as? [String: Any])?["correct"] as? [Int] == [1])

            try await ada.send(#"{"type":"answer","id":"a1","pollId":\#(pollId),"choices":[0]}"#)
            #expect(try await ada.nextDurable()?["type"] as? String == "ack")
            try await ada.send(#"{"type":"answer","id":"a2","pollId":\#(pollId),"choices":[1]}"#)  // changes her mind
            try await bob.send(#"{"type":"answer","id":"b1","pollId":\#(pollId),"choices":[1]}"#)
            try await bob.send(#"{"type":"answer","id":"b1","pollId":\#(pollId),"choices":[1]}"#)  // a retry
            var results: [String: Any] = [:]
            while results["answered"] as? Int != 2 || results["counts"] as? [Int] != [0, 2, 0] {
                results = try #require(try await presenter.next(ofType: "results"))
            }
            #expect(results["connected"] as? Int == 2)
            // Results are hidden from viewers: Bob sees acks and his own answer, no tally.
            var bobSaw: [String] = []
            try await bob.send(#"{"type":"ping"}"#)
            while let message = try await bob.next(), message["type"] as? String != "pong" {
                bobSaw.append(message["type"] as? String ?? "")
            }
            #expect(!bobSaw.contains("results"))
            #expect(bobSaw.contains("myAnswer"))

            try await presenter.send(#"{"type":"revealPoll","id":"r1","pollId":\#(pollId),"results":true}"#)
            let revealed = try #require(try await ada.next(ofType: "pollRevealed"))
            #expect(revealed["correct"] as? [Int] == [1])
            #expect(revealed["results"] as? Bool == true)
            let shown = try #require(try await ada.next(ofType: "results"))
            #expect(shown["counts"] as? [Int] == [0, 2, 0])
            #expect(shown["answers"] == nil)

            try await bob.send(#"{"type":"answer","id":"b2","pollId":\#(pollId),"choices":[0]}"#)
            #expect(try await bob.next(ofType: "error")?["code"] as? String == "poll_closed")

            // A late joiner sees the revealed poll and its chart; a reconnecting Ada her own answer.
            let late = try await client.socket(code: code, headers: [.cookie: "podium_viewer=\(Self.identity(1))"])
            let welcome = try await late.hello(["role": "viewer"])
            let polls = try #require((welcome["snapshot"] as? [String: Any])?["polls"] as? [[String: Any]])
            #expect(polls.first?["status"] as? String == "revealed")
            #expect((polls.first?["poll"] as? [String: Any])?["correct"] as? [Int] == [1])
            #expect((welcome["results"] as? [[String: Any]])?.first?["counts"] as? [Int] == [0, 2, 0])
            #expect((welcome["myAnswers"] as? [String: Any])?["\(pollId)"] as? [String: [Int]] == ["choices": [1]])
        }
    }

    @Test func openAnswersArriveForThePresenterWhoSharesOne() async throws {
        try await withSession { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let ada = try await viewer(client, code: code, identity: Self.identity(1), name: "Ada")
            try await presenter.send(#"{"type":"openPoll","id":"p","poll":{"kind":"open","question":"One word?"}}"#)
            let pollId = try #require((try await ada.next(ofType: "pollOpened")?["poll"] as? [String: Any])?["id"] as? Int)
            try await ada.send(#"{"type":"answer","id":"a","pollId":\#(pollId),"text":"Brilliant"}"#)
            var answers: [[String: Any]] = []
            while answers.isEmpty { answers = try await presenter.next(ofType: "results")?["answers"] as? [[String: Any]] ?? [] }
            #expect(answers.first?["text"] as? String == "Brilliant")
            let answerId = try #require(answers.first?["answerId"] as? String)
            try await presenter.send(#"{"type":"shareAnswer","id":"s","pollId":\#(pollId),"answerId":"\#(answerId)"}"#)
            let shared = try #require(try await ada.next(ofType: "answerShared"))
            #expect(shared["text"] as? String == "Brilliant")
            #expect(shared["name"] == nil && shared["viewerId"] == nil)
        }
    }

    @Test(arguments: TestStores.kinds) func anAnonymousQuestionReachesThePresenterWithoutItsAsker(_ store: StoreKind)
        async throws
    {
        try await withSession(on: store) { client, token, code in
            let presenter = try await client.socket(code: code)
            let welcome = try await presenter.hello(["role": "presenter", "token": token])
            #expect((welcome["questions"] as? [Any])?.isEmpty == true)
            let ada = try await viewer(client, code: code, identity: Self.identity(1), name: "Ada")
            let list = try #require(try await presenter.next(ofType: "viewerList")?["viewers"] as? [[String: Any]])
            #expect(list.first?["name"] as? String == "Ada")
            #expect(list.first?["id"] as? String == "g1")
            #expect(list.first?["connected"] as? Bool == true)

            try await ada.send(#"{"type":"ask","id":"q-secret","text":"Is this recorded?","page":2,"anonymous":true}"#)
            #expect(try await ada.nextDurable()?["type"] as? String == "ack")
            try await ada.send(#"{"type":"ask","id":"q-open","text":"Slides afterwards?","anonymous":false}"#)
            var questions: [[String: Any]] = []
            while questions.count < 2 {
                questions = try await presenter.next(ofType: "questions")?["questions"] as? [[String: Any]] ?? []
            }
            let anonymous = try #require(questions.first { $0["id"] as? String == "q-secret" })
            #expect(anonymous["name"] == nil && anonymous["viewerId"] == nil)
            #expect(anonymous["page"] as? Int == 2)
            let named = try #require(questions.first { $0["id"] as? String == "q-open" })
            #expect(named["name"] as? String == "Ada" && named["viewerId"] as? String == "g1")
            // Not even the raw frame mentions Ada next to the anonymous question.

            try await ada.send(#"{"type":"markQuestion","id":"m","questionId":"q-open","answered":true}"#)
            #expect(try await ada.next(ofType: "error")?["code"] as? String == "forbidden")
            try await presenter.send(#"{"type":"markQuestion","id":"m","questionId":"q-open","answered":true}"#)
            var marked = false
            while !marked {
                let list = try await presenter.next(ofType: "questions")?["questions"] as? [[String: Any]] ?? []
                marked = list.first { $0["id"] as? String == "q-open" }?["answered"] as? Bool == true
            }
            // A presenter who reconnects gets the list in the welcome, still without the asker.
            let again = try await client.socket(code: code)
            let rejoin = try await again.hello(["role": "presenter", "token": token])
            let kept = try #require(rejoin["questions"] as? [[String: Any]])
            #expect(kept.count == 2)
            #expect(kept.first { $0["id"] as? String == "q-secret" }?["name"] == nil)
            let viewers = try #require(rejoin["viewerList"] as? [[String: Any]])
            #expect(viewers.first?["questions"] as? Int == 1)  // the anonymous one is not counted
        }
    }
}

@Suite("Question bank", .timeLimit(.minutes(3)))
struct QuestionBankTests {
    @Test(arguments: TestStores.kinds) func prepareEditAndDeleteQuestionsOfADeck(_ store: StoreKind) async throws {
        let server = TestServer(store: store)
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let deckId = try await client.readyDeck(token: token)
            let path = "/api/v1/decks/\(deckId)/questions"
            let first = try await client.request(
                .post, path, token: token,
                json: #"{"poll":{"kind":"choice","question":"2+2?","choices":["3","4"],"correct":[1]}}"#)
            #expect(first.status == .created)
            let id = try #require(try first.object()["id"] as? String)
            #expect(
                try await client.request(.post, path, token: token, json: #"{"poll":{"kind":"open","question":"Why?"}}"#).status
                    == .created)
            let bad = try await client.request(
                .post, path, token: token, json: #"{"poll":{"kind":"choice","question":"?","choices":["one"]}}"#)
            #expect(bad.status == .badRequest)
            #expect(bad.errorCode == "invalid_poll")

            var bank = try await client.request(.get, path, token: token).array()
            #expect(bank.map { ($0["poll"] as? [String: Any])?["question"] as? String } == ["2+2?", "Why?"])
            let edited = try await client.request(
                .patch, "\(path)/\(id)", token: token,
                json: #"{"poll":{"kind":"choice","question":"2+2=?","choices":["3","4","5"],"correct":[1]},"position":9}"#)
            #expect(edited.status == .ok)
            bank = try await client.request(.get, path, token: token).array()
            #expect(bank.map { ($0["poll"] as? [String: Any])?["question"] as? String } == ["Why?", "2+2=?"])
            #expect(try await client.request(.delete, "\(path)/\(id)", token: token).status == .noContent)
            #expect(try await client.request(.get, path, token: token).array().count == 1)
            #expect(try await client.request(.get, path).status == .unauthorized)
        }
    }
}

@Suite("Notes and report", .timeLimit(.minutes(3)))
struct NotesAndReportTests {
    @Test(arguments: TestStores.kinds) func viewersKeepPrivateNotesPerSlideAndDownloadThemAsMarkdown(_ store: StoreKind)
        async throws
    {
        let server = TestServer(store: store)
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let deckId = try await client.readyDeck(token: token)
            let code = try #require(try await client.startSession(deckId: deckId, token: token, passcode: "9")["code"] as? String)
            let ada = InteractionTests.identity(1)
            let cookie: HTTPFields = [.cookie: "podium_viewer=\(ada)"]
            // Not admitted yet (the passcode was never given): no notes.
            let refused = try await client.request(
                .put, "/api/v1/sessions/\(code)/notes/2", headers: cookie, json: #"{"text":"x"}"#)
            #expect(refused.status == .forbidden)
            let socket = try await client.socket(code: code, headers: cookie)
            #expect(try await socket.hello(["role": "viewer", "passcode": "9"])["type"] as? String == "welcome")

            #expect(
                try await client.request(
                    .put, "/api/v1/sessions/\(code)/notes/2", headers: cookie, json: #"{"text":"Scan the QR"}"#
                ).status == .noContent)
            #expect(
                try await client.request(.put, "/api/v1/sessions/\(code)/notes/99", headers: cookie, json: #"{"text":"x"}"#)
                    .status == .badRequest)
            let notes = try await client.request(.get, "/api/v1/sessions/\(code)/notes", headers: cookie).object()
            #expect(notes["notes"] as? [String: String] == ["2": "Scan the QR"])
            let other: HTTPFields = [.cookie: "podium_viewer=\(InteractionTests.identity(2))"]
            #expect(try await client.request(.get, "/api/v1/sessions/\(code)/notes", headers: other).status == .forbidden)

            let markdown = String(
                buffer: try await client.request(.get, "/api/v1/sessions/\(code)/notes.md", headers: cookie).body)
            #expect(markdown.hasPrefix("# Notes: Welcome to Podium"))
            #expect(markdown.contains("## Slide 2: "))
            #expect(markdown.contains("Scan the QR"))
        }
    }

    @Test(arguments: TestStores.kinds) func thePresenterGetsAReportWithAttendancePollsAndQuestions(_ store: StoreKind)
        async throws
    {
        try await TestServer.withLiveSession(store: store) { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let viewer = try await client.socket(code: code, headers: [.cookie: "podium_viewer=\(InteractionTests.identity(1))"])
            _ = try await viewer.hello(["role": "viewer", "name": "Ada"])
            let live = try await client.request(.get, "/api/v1/sessions?live=true").array()
            #expect(live.first?["viewers"] as? Int == 1)
            #expect(live.first?["startedAt"] is String)

            try await presenter.send(
                #"{"type":"openPoll","id":"p","poll":{"kind":"choice","question":"Yes, no?","choices":["Yes","No, \"never\""],"correct":[0]}}"#
            )
            let pollId = try #require((try await viewer.next(ofType: "pollOpened")?["poll"] as? [String: Any])?["id"] as? Int)
            try await viewer.send(#"{"type":"answer","id":"a","pollId":\#(pollId),"choices":[1]}"#)
            _ = try await viewer.next(ofType: "ack")
            try await viewer.send(#"{"type":"ask","id":"q","text":"=cmd|' /C calc'!A0","anonymous":true}"#)
            _ = try await viewer.next(ofType: "ack")

            #expect(try await client.request(.get, "/api/v1/sessions/\(code)/report").status == .unauthorized)
            let report = try await client.request(.get, "/api/v1/sessions/\(code)/report", token: token).object()
            #expect(report["uniqueViewers"] as? Int == 1)
            #expect(report["peakViewers"] as? Int == 1)
            let polls = try #require(report["polls"] as? [[String: Any]])
            #expect(polls.first?["counts"] as? [Int] == [0, 1])
            let questions = try #require(report["questions"] as? [[String: Any]])
            #expect(questions.first?["name"] == nil)

            let pollsCSV = String(
                buffer: try await client.request(.get, "/api/v1/sessions/\(code)/report/polls.csv", token: token).body)
            #expect(pollsCSV.contains("\"No, \"\"never\"\"\""))
            // The first poll is poll 1, whatever its internal id.
            #expect(pollsCSV.split(separator: "\n").dropFirst().allSatisfy { $0.hasPrefix("1,") })
            let questionsCSV = String(
                buffer: try await client.request(.get, "/api/v1/sessions/\(code)/report/questions.csv", token: token).body)
            #expect(questionsCSV.contains("Anonymous"))
            #expect(questionsCSV.contains("'=cmd"))  // formula injection defused
            #expect(!questionsCSV.contains("Ada"))
            let attendanceCSV = try await client.request(.get, "/api/v1/sessions/\(code)/report/attendance.csv", token: token)
            #expect(String(buffer: attendanceCSV.body).hasPrefix("time,viewers"))
            #expect(
                try await client.request(.get, "/api/v1/sessions/\(code)/report/secrets.csv", token: token).status == .notFound)
        }
    }

    @Test func joinLinksOfferOnlyAddressesTheServerListensOn() {
        let loopbackOnly = JoinURLBuilder(publicURL: nil, listenHost: "127.0.0.1", port: 8080, lanAddresses: ["192.0.2.7"])
        #expect(loopbackOnly.reachableLAN == nil)
        let everywhere = JoinURLBuilder(publicURL: nil, listenHost: "0.0.0.0", port: 8080, lanAddresses: ["192.0.2.7"])
        #expect(everywhere.reachableLAN == "192.0.2.7")
        let configured = JoinURLBuilder(publicURL: "https://talks.example/", listenHost: "0.0.0.0", port: 8080, lanAddresses: [])
        #expect(configured.joinURL(code: "ABCDEF", request: nil) == "https://talks.example/s/ABCDEF")
    }
}

@Suite("Public questions", .timeLimit(.minutes(3)))
struct PublicQuestionsSocketTests {
    @Test(arguments: TestStores.kinds) func viewersSeeApprovedQuestionsAndUpvoteThemOnce(_ store: StoreKind) async throws {
        let server = TestServer(store: store)
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let deckId = try await client.readyDeck(token: token)
            let created = try await client.request(
                .post, "/api/v1/sessions", token: token,
                json: #"{"deckId":"\#(deckId)","questions":{"public":true,"approval":true}}"#)
            let code = try #require(try created.object()["code"] as? String)
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let ada = try await client.socket(code: code, headers: [.cookie: "podium_viewer=\(InteractionTests.identity(1))"])
            let welcome = try await ada.hello(["role": "viewer", "name": "Ada"])
            #expect(
                (welcome["snapshot"] as? [String: Any])?["questionMode"] as? [String: Bool] == ["public": true, "approval": true])
            let bob = try await client.socket(code: code, headers: [.cookie: "podium_viewer=\(InteractionTests.identity(2))"])
            _ = try await bob.hello(["role": "viewer", "name": "Bob"])

            try await ada.send(#"{"type":"ask","id":"q1","text":"Will you share the slides?","anonymous":true}"#)
            _ = try await ada.next(ofType: "ack")
            // Not public before approval: Bob hears nothing about it.
            try await bob.send(#"{"type":"ping"}"#)
            while let message = try await bob.next(), message["type"] as? String != "pong" {
                #expect((message["questions"] as? [Any])?.isEmpty ?? true)
            }
            try await presenter.send(#"{"type":"approveQuestion","id":"ap","questionId":"q1","approved":true}"#)
            var list: [[String: Any]] = []
            while list.isEmpty { list = try await bob.next(ofType: "publicQuestions")?["questions"] as? [[String: Any]] ?? [] }
            #expect(list.first?["text"] as? String == "Will you share the slides?")
            #expect(list.first?["name"] == nil)

            try await bob.send(#"{"type":"vote","id":"v1","questionId":"q1","up":true}"#)
            try await bob.send(#"{"type":"vote","id":"v2","questionId":"q1","up":true}"#)
            #expect(try await bob.next(ofType: "myVotes")?["questionIds"] as? [String] == ["q1"])
            var votes = 0
            while votes != 1 {
                votes =
                    (try await presenter.next(ofType: "questions")?["questions"] as? [[String: Any]])?.first?["votes"] as? Int
                    ?? 0
            }
            try await ada.send(#"{"type":"vote","id":"v3","questionId":"nope"}"#)
            #expect(try await ada.next(ofType: "error")?["code"] as? String == "question_not_found")
        }
    }
}

@Suite("Quiz over the socket", .timeLimit(.minutes(3)))
struct QuizSocketTests {
    @Test func closingAQuizQuestionSendsTheLeaderboardAndEachViewersScore() async throws {
        try await TestServer.withLiveSession { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let ada = try await client.socket(code: code, headers: [.cookie: "podium_viewer=\(InteractionTests.identity(1))"])
            _ = try await ada.hello(["role": "viewer", "name": "Ada"])
            let bob = try await client.socket(code: code, headers: [.cookie: "podium_viewer=\(InteractionTests.identity(2))"])
            _ = try await bob.hello(["role": "viewer", "name": "Bob"])
            try await presenter.send(
                #"{"type":"openPoll","id":"q","poll":{"kind":"choice","question":"2+2?","choices":["3","4"],"correct":[1],"quiz":true}}"#
            )
            let pollId = try #require((try await ada.next(ofType: "pollOpened")?["poll"] as? [String: Any])?["id"] as? Int)
            try await ada.send(#"{"type":"answer","id":"a","pollId":\#(pollId),"choices":[1]}"#)
            _ = try await ada.next(ofType: "ack")
            try await bob.send(#"{"type":"answer","id":"b","pollId":\#(pollId),"choices":[0]}"#)
            _ = try await bob.next(ofType: "ack")
            try await presenter.send(#"{"type":"revealPoll","id":"r","pollId":\#(pollId),"results":true}"#)

            let board = try #require(try await presenter.next(ofType: "leaderboard"))
            let entries = try #require(board["entries"] as? [[String: Any]])
            #expect(entries.map { $0["name"] as? String } == ["Ada", "Bob"])
            #expect((entries.first?["score"] as? Int ?? 0) > 500)
            #expect(entries.last?["score"] as? Int == 0)
            #expect(entries.first?["viewerId"] == nil)
            let adaScore = try #require(try await ada.next(ofType: "myScore"))
            #expect(adaScore["rank"] as? Int == 1 && adaScore["players"] as? Int == 2)
            let bobScore = try #require(try await bob.next(ofType: "myScore"))
            #expect(bobScore["rank"] as? Int == 2 && bobScore["score"] as? Int == 0)

            let late = try await client.socket(code: code, headers: [.cookie: "podium_viewer=\(InteractionTests.identity(2))"])
            let welcome = try await late.hello(["role": "viewer"])
            #expect((welcome["myScore"] as? [String: Any])?["rank"] as? Int == 2)
            #expect(((welcome["leaderboard"] as? [String: Any])?["entries"] as? [Any])?.count == 2)
        }
    }
}
