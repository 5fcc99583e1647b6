import Foundation
import PodiumStore

// Each part of the channel as the feed and share links see it: what it has published.

/// Places: published and not archived.
struct PlacePublications: ChannelPublications {
    let store: any PodiumStore

    func published() async throws -> [ChannelPublication] {
        try await store.places(.published, categoryId: nil).compactMap(Self.publication)
    }

    func published(id: String) async throws -> ChannelPublication? {
        guard let place = try await store.place(id: id), place.archivedAt == nil else { return nil }
        return Self.publication(place)
    }

    static func publication(_ place: ChannelPlaceRecord) -> ChannelPublication? {
        guard let publishedAt = place.publishedAt, place.archivedAt == nil else { return nil }
        let summary = place.description.isEmpty ? place.address : place.description
        return ChannelPublication(
            kind: "place", id: place.id, title: place.name, description: summary,
            imagePath: place.image.map(DeckResponse.blobURL), publishedAt: publishedAt)
    }
}

/// Quizzes: published and not archived.
struct QuizPublications: ChannelPublications {
    let store: any PodiumStore

    func published() async throws -> [ChannelPublication] {
        try await store.quizzes(.published).compactMap(Self.publication)
    }

    func published(id: String) async throws -> ChannelPublication? {
        guard let quiz = try await store.quiz(id: id) else { return nil }
        return Self.publication(quiz)
    }

    static func publication(_ quiz: ChannelQuizRecord) -> ChannelPublication? {
        guard let publishedAt = quiz.publishedAt, quiz.archivedAt == nil else { return nil }
        return ChannelPublication(
            kind: "quiz", id: quiz.id, title: quiz.name, description: quiz.description, imagePath: nil,
            publishedAt: publishedAt)
    }
}
