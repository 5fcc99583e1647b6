import Foundation
import PodiumStore
import PodiumWire

/// The published places, for the "new" feed and share previews: a place in an archived category
/// is hidden with it.
struct ChannelPlacePublications: ChannelPublications {
    let store: any ChannelPlaceStore

    func published() async throws -> [ChannelPublication] {
        let hidden = Set(try await store.placeCategories(.archived).map(\.id))
        return try await store.places(.published, categoryId: nil)
            .filter { !($0.categoryId.map(hidden.contains) ?? false) }
            .compactMap(Self.publication)
    }

    func published(id: String) async throws -> ChannelPublication? {
        guard let place = try await store.place(id: id), place.archivedAt == nil else { return nil }
        if let categoryId = place.categoryId, try await store.placeCategory(id: categoryId)?.archivedAt != nil {
            return nil
        }
        return Self.publication(place)
    }

    static func publication(_ place: ChannelPlaceRecord) -> ChannelPublication? {
        guard let publishedAt = place.publishedAt, place.archivedAt == nil else { return nil }
        let text = [place.address, place.description].filter { !$0.isEmpty }.joined(separator: " — ")
        return ChannelPublication(
            kind: "place", id: place.id, title: place.name, description: text,
            imagePath: place.image.map(DeckResponse.blobURL), publishedAt: publishedAt)
    }
}

/// The published quizzes, for the "new" feed and share previews.
struct ChannelQuizPublications: ChannelPublications {
    let store: any ChannelQuizStore

    func published() async throws -> [ChannelPublication] {
        try await store.quizzes(.published).compactMap(Self.publication)
    }

    func published(id: String) async throws -> ChannelPublication? {
        try await store.quiz(id: id).flatMap(Self.publication)
    }

    static func publication(_ quiz: ChannelQuizRecord) -> ChannelPublication? {
        guard let publishedAt = quiz.publishedAt, quiz.archivedAt == nil else { return nil }
        return ChannelPublication(
            kind: "quiz", id: quiz.id, title: quiz.name, description: quiz.description, imagePath: nil,
            publishedAt: publishedAt)
    }
}
