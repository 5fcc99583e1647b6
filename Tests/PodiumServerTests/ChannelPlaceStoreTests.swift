import Foundation
import Testing

@testable import PodiumStore

/// The channel's places and quizzes on both databases: records as stored, publishing and the
/// archive, order, and a person's best score.
@Suite("Channel places and quizzes store on SQLite and PostgreSQL", .timeLimit(.minutes(2)))
struct ChannelPlaceStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000.25)
    static let t1 = Date(timeIntervalSince1970: 1_700_000_060.5)
    static let t2 = Date(timeIntervalSince1970: 1_700_000_120.75)

    static func place(_ id: String, category: String? = "c1", position: Int, published: Date? = t0) -> ChannelPlaceRecord {
        ChannelPlaceRecord(
            id: id, categoryId: category, name: "Place \(id)", description: "About \(id)", address: "Nerudova 1, Praha",
            phone: "+420 123", website: "https://example.org/\(id)", openingHours: "Tue–Sun 10–18", latitude: 50.0875,
            longitude: 14.4213, image: nil, position: position, publishedAt: published, updatedAt: t0)
    }

    @Test(arguments: TestStores.kinds) func placesComeBackAsStoredPublishedAndArchived(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let museums = ChannelPlaceCategoryRecord(id: "c1", name: "Museums", position: 1, updatedAt: Self.t0)
            let food = ChannelPlaceCategoryRecord(id: "c2", name: "Food", position: 0, updatedAt: Self.t0)
            try await store.insertPlaceCategory(museums)
            try await store.insertPlaceCategory(food)
            #expect(try await store.placeCategories(.published).map(\.id) == ["c2", "c1"])
            #expect(try await store.placeCategory(id: "c1") == museums)

            var withImage = Self.place("p1", position: 1)
            withImage.image = String(repeating: "a", count: 64) + ".jpg"
            try await store.insertPlace(withImage)
            try await store.insertPlace(Self.place("p2", position: 0, published: nil))
            try await store.insertPlace(Self.place("p3", category: "c2", position: 2))
            #expect(try await store.place(id: "p1") == withImage)
            #expect(try await store.places(.published, categoryId: nil).map(\.id) == ["p1", "p3"])
            #expect(try await store.places(.all, categoryId: nil).map(\.id) == ["p2", "p1", "p3"])
            #expect(try await store.places(.published, categoryId: "c2").map(\.id) == ["p3"])

            // Deleting archives: gone from public reads and the CMS table, listed in the archive.
            var archived = withImage
            archived.archivedAt = Self.t1
            archived.updatedAt = Self.t1
            try await store.updatePlace(archived)
            #expect(try await store.place(id: "p1") == archived)
            #expect(try await store.places(.published, categoryId: nil).map(\.id) == ["p3"])
            #expect(try await store.places(.archived, categoryId: nil).map(\.id) == ["p1"])

            try await store.reorderPlaces(["p3", "p2"], categories: false, at: Self.t2)
            #expect(try await store.places(.all, categoryId: nil).map(\.id) == ["p3", "p2"])
            #expect(try await store.place(id: "p3")?.updatedAt == Self.t2)
            try await store.reorderPlaces(["c1", "c2"], categories: true, at: Self.t2)
            #expect(try await store.placeCategories(.all).map(\.id) == ["c1", "c2"])
            #expect(try await store.placesChangedAt() == Self.t2)

            // A category deleted for ever leaves its places without one.
            try await store.deletePlaceCategory(id: "c2")
            #expect(try await store.place(id: "p3")?.categoryId == nil)

            // The image goes with the last place that shows it.
            var twin = Self.place("p4", position: 3)
            twin.image = withImage.image
            try await store.insertPlace(twin)
            #expect(try await store.deletePlace(id: "p1") == nil)
            #expect(try await store.deletePlace(id: "p4") == withImage.image)
            #expect(try await store.place(id: "p4") == nil)

            #expect(try await store.venueImage() == nil)
            try await store.setVenueImage("v.jpg", at: Self.t1)
            try await store.setVenueImage("w.png", at: Self.t2)
            #expect(try await store.venueImage()?.image == "w.png")
            try await store.setVenueImage(nil, at: Self.t2)
            let cleared = try #require(try await store.venueImage())
            #expect(cleared.image == nil && cleared.updatedAt == Self.t2)
        }
    }

    static func questions(_ prefix: String) -> [ChannelQuizQuestion] {
        [
            ChannelQuizQuestion(
                id: "\(prefix)q1", text: "Capital of Czechia?",
                answers: [
                    ChannelQuizAnswer(id: "\(prefix)a1", text: "Brno", correct: false),
                    ChannelQuizAnswer(id: "\(prefix)a2", text: "Praha", correct: true),
                ]),
            ChannelQuizQuestion(
                id: "\(prefix)q2", text: "Rivers of Prague?",
                answers: [
                    ChannelQuizAnswer(id: "\(prefix)a3", text: "Vltava", correct: true),
                    ChannelQuizAnswer(id: "\(prefix)a4", text: "Dunaj", correct: false),
                    ChannelQuizAnswer(id: "\(prefix)a5", text: "Botič", correct: true),
                ]),
        ]
    }

    @Test(arguments: TestStores.kinds) func quizzesKeepTheirQuestionsInOrderAndTheBestScore(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let quiz = ChannelQuizRecord(
                id: "z1", name: "Prague", description: "Ten minutes", position: 0, publishedAt: Self.t0, updatedAt: Self.t0)
            try await store.insertQuiz(quiz, questions: Self.questions("x"))
            try await store.insertQuiz(
                ChannelQuizRecord(id: "z2", name: "Draft", position: 1, updatedAt: Self.t0), questions: [])
            #expect(try await store.quiz(id: "z1") == quiz)
            #expect(try await store.quizQuestions(quizId: "z1") == Self.questions("x"))
            #expect(try await store.quizQuestionCounts() == ["z1": 2])
            #expect(try await store.quizzes(.published).map(\.id) == ["z1"])
            #expect(try await store.quizzes(.all).map(\.id) == ["z1", "z2"])

            // Edited questions replace the old ones, answers and all.
            var edited = Self.questions("y")
            edited.reverse()
            try await store.replaceQuizQuestions(quizId: "z1", edited, at: Self.t1)
            #expect(try await store.quizQuestions(quizId: "z1") == edited)
            #expect(try await store.quiz(id: "z1")?.updatedAt == Self.t1)

            let first = try await store.recordQuizAttempt(quizId: "z1", viewerKey: "v_a", score: 1, total: 2, at: Self.t0)
            #expect(
                first
                    == ChannelQuizResultRecord(
                        quizId: "z1", viewerKey: "v_a", score: 1, total: 2, bestScore: 1, takenAt: Self.t0, bestAt: Self.t0))
            let better = try await store.recordQuizAttempt(quizId: "z1", viewerKey: "v_a", score: 2, total: 2, at: Self.t1)
            #expect(better.bestScore == 2 && better.bestAt == Self.t1 && better.score == 2)
            let worse = try await store.recordQuizAttempt(quizId: "z1", viewerKey: "v_a", score: 0, total: 2, at: Self.t2)
            #expect(
                worse
                    == ChannelQuizResultRecord(
                        quizId: "z1", viewerKey: "v_a", score: 0, total: 2, bestScore: 2, takenAt: Self.t2, bestAt: Self.t1))
            #expect(try await store.quizResults(viewerKey: "v_a") == ["z1": worse])
            #expect(try await store.quizResults(viewerKey: "v_b").isEmpty)

            var archived = quiz
            archived.archivedAt = Self.t2
            try await store.updateQuiz(archived)
            #expect(try await store.quizzes(.published).isEmpty)
            #expect(try await store.quizzes(.archived).map(\.id) == ["z1"])
            #expect(try await store.quizzesChangedAt() == Self.t0)
            try await store.reorderQuizzes(["z2", "z1"], at: Self.t2)
            #expect(try await store.quizzesChangedAt() == Self.t2)
            #expect(try await store.quiz(id: "z2")?.position == 0)

            try await store.deleteQuiz(id: "z1")
            #expect(try await store.quiz(id: "z1") == nil)
            #expect(try await store.quizQuestions(quizId: "z1").isEmpty)
            #expect(try await store.quizResults(viewerKey: "v_a").isEmpty)
        }
    }
}
