import Foundation
import PodiumCore
import Testing

@Suite("Channel: distances, directions, search, quiz scoring")
struct ChannelPlacesQuizzesTests {
    @Test func greatCircleDistancesMatchKnownOnes() throws {
        let prague = try GeoPoint(latitude: 50.0875, longitude: 14.4213)
        let brno = try GeoPoint(latitude: 49.1951, longitude: 16.6068)
        let newYork = try GeoPoint(latitude: 40.7128, longitude: -74.0060)
        // Prague–Brno is about 185 km as the crow flies; Prague–New York about 6,570 km.
        #expect(abs(prague.distance(to: brno) - 185_000) < 2_000)
        #expect(abs(prague.distance(to: newYork) - 6_570_000) < 20_000)
        #expect(prague.distance(to: prague) == 0)
        // Antipodes: half the circumference, no NaN from rounding.
        let north = try GeoPoint(latitude: 90, longitude: 0)
        let south = try GeoPoint(latitude: -90, longitude: 0)
        #expect(abs(north.distance(to: south) - .pi * GeoPoint.earthRadius) < 1)
    }

    @Test func coordinatesAreReadOrRefusedWithAReason() throws {
        #expect(try GeoPoint(parsing: "50.0875, 14.4213") == GeoPoint(latitude: 50.0875, longitude: 14.4213))
        for bad in ["", "50", "50,", "a,b", "91,0", "0,181", "nan,0", "50,14,3", "inf,0"] {
            #expect(throws: GeoPointError.self, "\(bad)") { try GeoPoint(parsing: bad) }
        }
        do {
            _ = try GeoPoint(parsing: "95,10")
            Issue.record("95 is no latitude")
        } catch {
            #expect(error.description.contains("latitude"))
        }
    }

    @Test func directionsOpenTheDevicesMapsAppAndOpenStreetMap() throws {
        let directions = Directions(to: try GeoPoint(latitude: 50.0875, longitude: 14.4213), name: "Pražský hrad & co")
        #expect(directions.geo == "geo:50.0875,14.4213?q=50.0875,14.4213(Pra%C5%BEsk%C3%BD%20hrad%20%26%20co)")
        #expect(directions.osm == "https://www.openstreetmap.org/directions?route=%3B50.0875%2C14.4213#map=16/50.0875/14.4213")
    }

    @Test func searchIgnoresCaseAccentsAndWordOrder() throws {
        let search = try #require(TextSearch("hrad  PRAZSKY"))
        #expect(search.matches(["Pražský hrad", ""]))
        #expect(!search.matches(["Karlův most", "Praha"]))
        #expect(try #require(TextSearch("nerudova")).matches(["Café", "Nerudova 1"]))
        #expect(TextSearch("   ") == nil)
    }

    static let questions = [
        ChannelQuizScoring.Question(id: "q1", answerIds: ["a1", "a2"], correctAnswerIds: ["a2"]),
        ChannelQuizScoring.Question(id: "q2", answerIds: ["a3", "a4", "a5"], correctAnswerIds: ["a3", "a5"]),
        ChannelQuizScoring.Question(id: "q3", answerIds: ["a6", "a7"], correctAnswerIds: ["a6"]),
    ]

    @Test func anAttemptIsScoredQuestionByQuestion() throws {
        let outcome = try ChannelQuizScoring.score(
            Self.questions,
            choices: [.init(questionId: "q2", answerId: "a5"), .init(questionId: "q1", answerId: "a1")])
        #expect(outcome.score == 1 && outcome.total == 3)
        #expect(outcome.questions.map(\.id) == ["q1", "q2", "q3"])
        #expect(outcome.questions.map(\.chosen) == ["a1", "a5", nil])
        #expect(outcome.questions.map(\.correct) == [false, true, false])
        let all = try ChannelQuizScoring.score(
            Self.questions,
            choices: [
                .init(questionId: "q1", answerId: "a2"), .init(questionId: "q2", answerId: "a3"),
                .init(questionId: "q3", answerId: "a6"),
            ])
        #expect(all.score == 3)
    }

    @Test func choicesThatAreNotOfThisQuizAreRefused() {
        let bad: [[ChannelQuizScoring.Choice]] = [
            [.init(questionId: "q9", answerId: "a1")],
            [.init(questionId: "q1", answerId: "a3")],
            [.init(questionId: "q1", answerId: "a1"), .init(questionId: "q1", answerId: "a2")],
        ]
        for choices in bad {
            #expect(throws: ChannelQuizScoring.Invalid.self) { try ChannelQuizScoring.score(Self.questions, choices: choices) }
        }
    }

    @Test func nonMembersMayTakeTheNewestPublishedQuiz() {
        let t0 = Date(timeIntervalSince1970: 1_000)
        #expect(ChannelQuizAccess.openToEveryone([]) == nil)
        #expect(
            ChannelQuizAccess.openToEveryone([
                ("old", t0), ("new", t0.addingTimeInterval(60)), ("middle", t0.addingTimeInterval(30)),
            ]) == "new")
        #expect(ChannelQuizAccess.openToEveryone([("b", t0), ("a", t0)]) == "b")
    }
}
