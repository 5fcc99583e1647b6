import Foundation
import HTTPTypes
import NIOCore
import PodiumServer
import PodiumStore
import Synchronization
import Testing

/// The channel's quizzes over HTTP: scored by the server, the best score kept per person,
/// answers never given away before an attempt, only the newest quiz open to non-members, the
/// archive and restore, bad attempts refused.
@Suite("Channel quizzes", .timeLimit(.minutes(2)))
struct ChannelQuizzesServerTests {
    static let visitor: HTTPFields = [.cookie: "podium_viewer=v_" + String(repeating: "q", count: 24)]

    static func quiz(_ name: String, published: Bool = true) throws -> String {
        try ChannelPlacesServerTests.json([
            "name": name, "description": "About \(name)", "published": published,
            "questions": [
                [
                    "text": "Capital of Czechia?",
                    "answers": [["text": "Brno", "correct": false], ["text": "Praha", "correct": true]],
                ],
                [
                    "text": "A river of Prague?",
                    "answers": [
                        ["text": "Vltava", "correct": true], ["text": "Dunaj", "correct": false],
                        ["text": "Botič", "correct": true],
                    ],
                ],
                [
                    "text": "Oldest university?",
                    "answers": [["text": "Charles", "correct": true], ["text": "Masaryk", "correct": false]],
                ],
            ],
        ])
    }

    /// Two published quizzes a minute apart (the second newest) and a draft; returns their ids.
    static func seed(_ client: Client, token: String, clock: SteppedClock) async throws -> (
        old: String, new: String, draft: String
    ) {
        var ids: [String] = []
        for (name, published) in [("Old", true), ("New", true), ("Draft", false)] {
            let created = try await client.request(
                .post, "/api/v1/channel/quizzes", token: token, json: try quiz(name, published: published))
            #expect(created.status == .created, "\(String(buffer: created.body))")
            ids.append(try #require((try created.object()["quiz"] as? [String: Any])?["id"] as? String))
            clock.advance(60)
        }
        return (ids[0], ids[1], ids[2])
    }

    /// The questions of a quiz as the public sees them: ids of questions and answers by text.
    static func questions(_ client: Client, _ id: String, headers: HTTPFields = visitor, token: String? = nil) async throws
        -> [[String: Any]]
    {
        let response = try await client.request(.get, "/api/v1/channel/quizzes/\(id)", token: token, headers: headers)
        #expect(response.status == .ok, "\(String(buffer: response.body))")
        return try #require(try response.object()["questions"] as? [[String: Any]])
    }

    static func answer(_ question: [String: Any], _ text: String) throws -> [String: Any] {
        let answers = try #require(question["answers"] as? [[String: Any]])
        let answer = try #require(answers.first { $0["text"] as? String == text })
        return ["questionId": question["id"]!, "answerId": answer["id"]!]
    }

    @Test func anAttemptIsScoredAndTheBestScoreKept() async throws {
        let clock = SteppedClock()
        let server = TestServer()
        defer { server.removeData() }
        try await server.run(now: { clock.now }) { client in
            let token = try await client.login()
            let ids = try await Self.seed(client, token: token, clock: clock)
            let questions = try await Self.questions(client, ids.new)
            #expect(
                questions.map { $0["text"] as? String } == ["Capital of Czechia?", "A river of Prague?", "Oldest university?"])
            // Which answer is right is not given away.
            #expect(questions.allSatisfy { (($0["answers"] as? [[String: Any]]) ?? []).allSatisfy { $0["correct"] == nil } })

            let path = "/api/v1/channel/quizzes/\(ids.new)/attempts"
            let two = try ChannelPlacesServerTests.json([
                "answers": [
                    try Self.answer(questions[0], "Praha"), try Self.answer(questions[1], "Botič"),
                    try Self.answer(questions[2], "Masaryk"),
                ]
            ])
            let first = try await client.request(.post, path, headers: Self.visitor, json: two)
            #expect(first.status == .ok, "\(String(buffer: first.body))")
            #expect(try first.object()["score"] as? Int == 2)
            #expect(try first.object()["total"] as? Int == 3)
            #expect(try first.object()["bestScore"] as? Int == 2)
            let review = try #require(try first.object()["questions"] as? [[String: Any]])
            #expect(review.map { $0["correct"] as? Bool } == [true, true, false])
            #expect((review[1]["correctAnswerIds"] as? [String])?.count == 2)

            // An unanswered question counts as wrong; a worse attempt keeps the best.
            let one = try ChannelPlacesServerTests.json(["answers": [try Self.answer(questions[0], "Praha")]])
            let second = try await client.request(.post, path, headers: Self.visitor, json: one)
            #expect(try second.object()["score"] as? Int == 1)
            #expect(try second.object()["bestScore"] as? Int == 2)

            let list = try ChannelPlacesServerTests.array(
                try await client.request(.get, "/api/v1/channel/quizzes", headers: Self.visitor))
            let mine = try #require(list.first { $0["id"] as? String == ids.new }?["result"] as? [String: Any])
            #expect(mine["score"] as? Int == 1 && mine["bestScore"] as? Int == 2 && mine["total"] as? Int == 3)
            // Someone else has no score yet.
            let other = try ChannelPlacesServerTests.array(
                try await client.request(.get, "/api/v1/channel/quizzes", token: token))
            #expect(other.first { $0["id"] as? String == ids.new }?["result"] is NSNull)

            // Bad attempts are refused, naming what is wrong.
            let bad = [
                #"{"answers":[{"questionId":"qq_nothing","answerId":"qa_nothing"}]}"#,
                try ChannelPlacesServerTests.json([
                    "answers": [
                        ["questionId": questions[0]["id"]!, "answerId": (try Self.answer(questions[1], "Vltava"))["answerId"]!]
                    ]
                ]),
                try ChannelPlacesServerTests.json([
                    "answers": [try Self.answer(questions[0], "Praha"), try Self.answer(questions[0], "Brno")]
                ]),
                #"{"answers":"all right"}"#,
            ]
            for body in bad {
                #expect(try await client.request(.post, path, headers: Self.visitor, json: body).status == .badRequest, "\(body)")
            }
            #expect(
                try await client.request(.post, "/api/v1/channel/quizzes/\(ids.draft)/attempts", headers: Self.visitor, json: one)
                    .status
                    == .notFound)
        }
    }

    @Test func nonMembersTakeOnlyTheNewestQuiz() async throws {
        let clock = SteppedClock()
        let server = TestServer()
        defer { server.removeData() }
        try await server.run(now: { clock.now }) { client in
            let token = try await client.login()
            let ids = try await Self.seed(client, token: token, clock: clock)

            let list = try ChannelPlacesServerTests.array(
                try await client.request(.get, "/api/v1/channel/quizzes", headers: Self.visitor))
            // Newest first; the draft is not listed; every quiz listed, only the newest open.
            #expect(list.map { $0["id"] as? String } == [ids.new, ids.old])
            #expect(list.map { $0["open"] as? Bool } == [true, false])
            #expect(list.map { $0["membersOnly"] as? Bool } == [false, true])
            #expect(list.first?["questionCount"] as? Int == 3)

            for (method, path) in [
                (HTTPRequest.Method.get, "/api/v1/channel/quizzes/\(ids.old)"),
                (.post, "/api/v1/channel/quizzes/\(ids.old)/attempts"),
            ] {
                let refused = try await client.request(
                    method, path, headers: Self.visitor, json: method == .post ? #"{"answers":[]}"# : nil)
                #expect(refused.status == .forbidden)
                let error = try #require(try refused.object()["error"] as? [String: Any])
                #expect(error["code"] as? String == "membership_required" && error["limit"] as? String == "quiz_archive")
            }

            // Members (admins count) take any published quiz.
            let memberList = try ChannelPlacesServerTests.array(
                try await client.request(.get, "/api/v1/channel/quizzes", token: token))
            #expect(memberList.allSatisfy { $0["open"] as? Bool == true })
            let old = try await Self.questions(client, ids.old, headers: [:], token: token)
            let attempt = try ChannelPlacesServerTests.json(["answers": [try Self.answer(old[0], "Praha")]])
            #expect(
                try await client.request(.post, "/api/v1/channel/quizzes/\(ids.old)/attempts", token: token, json: attempt).status
                    == .ok)

            // Publishing the draft makes it the one open to everyone.
            clock.advance(60)
            let published = try await client.request(
                .patch, "/api/v1/channel/quizzes/\(ids.draft)", token: token, json: #"{"published":true}"#)
            #expect(published.status == .ok)
            let after = try ChannelPlacesServerTests.array(
                try await client.request(.get, "/api/v1/channel/quizzes", headers: Self.visitor))
            #expect(after.map { $0["id"] as? String } == [ids.draft, ids.new, ids.old])
            #expect(after.map { $0["open"] as? Bool } == [true, false, false])
            #expect(
                try await client.request(.get, "/api/v1/channel/quizzes/\(ids.new)", headers: Self.visitor).status == .forbidden)
        }
    }

    @Test func quizzesAreArchivedRestoredAndEdited() async throws {
        let clock = SteppedClock()
        let server = TestServer()
        defer { server.removeData() }
        try await server.run(now: { clock.now }) { client in
            let token = try await client.login()
            let ids = try await Self.seed(client, token: token, clock: clock)

            // The CMS reads the right answers; the public does not.
            let edit = try await client.request(.get, "/api/v1/channel/quizzes/\(ids.draft)?status=all", token: token)
            let editQuestions = try #require(try edit.object()["questions"] as? [[String: Any]])
            #expect((editQuestions[0]["answers"] as? [[String: Any]])?.map { $0["correct"] as? Bool } == [false, true])
            #expect(
                try await client.request(.get, "/api/v1/channel/quizzes/\(ids.draft)?status=all", headers: Self.visitor).status
                    == .unauthorized)

            // Questions edited: ids sent back are kept, reordered, one added; a question without a right answer is refused.
            var sent = editQuestions.map { question -> [String: Any] in
                ["id": question["id"]!, "text": question["text"]!, "answers": question["answers"]!]
            }
            sent.reverse()
            sent.append(["text": "New one?", "answers": [["text": "Yes", "correct": true], ["text": "No", "correct": false]]])
            let patched = try await client.request(
                .patch, "/api/v1/channel/quizzes/\(ids.draft)", token: token,
                json: try ChannelPlacesServerTests.json(["name": "Renamed", "questions": sent]))
            #expect(patched.status == .ok, "\(String(buffer: patched.body))")
            let after = try #require(try patched.object()["questions"] as? [[String: Any]])
            #expect(after.prefix(3).map { $0["id"] as? String } == editQuestions.reversed().map { $0["id"] as? String })
            #expect(after.count == 4)
            let noRight = try ChannelPlacesServerTests.json([
                "questions": [["text": "?", "answers": [["text": "a", "correct": false], ["text": "b", "correct": false]]]]
            ])
            #expect(
                try await client.request(.patch, "/api/v1/channel/quizzes/\(ids.draft)", token: token, json: noRight).status
                    == .badRequest)

            // Deleting archives: gone from the list, the older quiz becomes the one open to everyone.
            #expect(try await client.request(.delete, "/api/v1/channel/quizzes/\(ids.new)", token: token).status == .noContent)
            let list = try ChannelPlacesServerTests.array(
                try await client.request(.get, "/api/v1/channel/quizzes", headers: Self.visitor))
            #expect(list.map { $0["id"] as? String } == [ids.old])
            #expect(list.first?["open"] as? Bool == true)
            #expect(
                try await client.request(.get, "/api/v1/channel/quizzes/\(ids.new)", headers: Self.visitor).status == .notFound)
            let archive = try ChannelPlacesServerTests.array(
                try await client.request(.get, "/api/v1/channel/quizzes?status=archived", token: token))
            #expect(archive.map { $0["id"] as? String } == [ids.new])
            #expect(try await client.request(.post, "/api/v1/channel/quizzes/\(ids.new)/restore", token: token).status == .ok)
            #expect(try await client.request(.get, "/api/v1/channel/quizzes/\(ids.new)", headers: Self.visitor).status == .ok)
            #expect(
                try await client.request(.delete, "/api/v1/channel/quizzes/\(ids.new)?permanent=true", token: token).status
                    == .conflict)
        }
    }
}
