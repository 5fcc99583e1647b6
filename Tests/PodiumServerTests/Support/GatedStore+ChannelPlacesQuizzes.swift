import Foundation
import PodiumStore

// The channel's places and quizzes go straight to the real store.
extension GatedStore {
    func insertPlaceCategory(_ category: ChannelPlaceCategoryRecord) async throws {
        try await base.insertPlaceCategory(category)
    }

    func placeCategory(id: String) async throws -> ChannelPlaceCategoryRecord? {
        try await base.placeCategory(id: id)
    }

    func placeCategories(_ filter: ChannelItemFilter) async throws -> [ChannelPlaceCategoryRecord] {
        try await base.placeCategories(filter)
    }

    func updatePlaceCategory(_ category: ChannelPlaceCategoryRecord) async throws {
        try await base.updatePlaceCategory(category)
    }

    func deletePlaceCategory(id: String) async throws {
        try await base.deletePlaceCategory(id: id)
    }

    func insertPlace(_ place: ChannelPlaceRecord) async throws {
        try await base.insertPlace(place)
    }

    func place(id: String) async throws -> ChannelPlaceRecord? {
        try await base.place(id: id)
    }

    func places(_ filter: ChannelItemFilter, categoryId: String?) async throws -> [ChannelPlaceRecord] {
        try await base.places(filter, categoryId: categoryId)
    }

    func updatePlace(_ place: ChannelPlaceRecord) async throws {
        try await base.updatePlace(place)
    }

    func deletePlace(id: String) async throws -> String? {
        try await base.deletePlace(id: id)
    }

    func reorderPlaces(_ ids: [String], categories: Bool, at date: Date) async throws {
        try await base.reorderPlaces(ids, categories: categories, at: date)
    }

    func placesChangedAt() async throws -> Date? {
        try await base.placesChangedAt()
    }

    func quizzesChangedAt() async throws -> Date? {
        try await base.quizzesChangedAt()
    }

    func venueImage() async throws -> (image: String?, updatedAt: Date)? {
        try await base.venueImage()
    }

    func setVenueImage(_ image: String?, at date: Date) async throws {
        try await base.setVenueImage(image, at: date)
    }

    func insertQuiz(_ quiz: ChannelQuizRecord, questions: [ChannelQuizQuestion]) async throws {
        try await base.insertQuiz(quiz, questions: questions)
    }

    func quiz(id: String) async throws -> ChannelQuizRecord? {
        try await base.quiz(id: id)
    }

    func quizzes(_ filter: ChannelItemFilter) async throws -> [ChannelQuizRecord] {
        try await base.quizzes(filter)
    }

    func updateQuiz(_ quiz: ChannelQuizRecord) async throws {
        try await base.updateQuiz(quiz)
    }

    func replaceQuizQuestions(quizId: String, _ questions: [ChannelQuizQuestion], at date: Date) async throws {
        try await base.replaceQuizQuestions(quizId: quizId, questions, at: date)
    }

    func quizQuestions(quizId: String) async throws -> [ChannelQuizQuestion] {
        try await base.quizQuestions(quizId: quizId)
    }

    func quizQuestionCounts() async throws -> [String: Int] {
        try await base.quizQuestionCounts()
    }

    func deleteQuiz(id: String) async throws {
        try await base.deleteQuiz(id: id)
    }

    func reorderQuizzes(_ ids: [String], at date: Date) async throws {
        try await base.reorderQuizzes(ids, at: date)
    }

    func recordQuizAttempt(quizId: String, viewerKey: String, score: Int, total: Int, at date: Date) async throws
        -> ChannelQuizResultRecord
    {
        try await base.recordQuizAttempt(quizId: quizId, viewerKey: viewerKey, score: score, total: total, at: date)
    }

    func quizResults(viewerKey: String) async throws -> [String: ChannelQuizResultRecord] {
        try await base.quizResults(viewerKey: viewerKey)
    }
}
