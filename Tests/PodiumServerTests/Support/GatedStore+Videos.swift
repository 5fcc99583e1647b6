import Foundation
import PodiumStore

// The video library goes straight to the real store.
extension GatedStore {
    func insertVideo(_ video: VideoRecord) async throws {
        try await base.insertVideo(video)
    }

    func video(id: String) async throws -> VideoRecord? {
        try await base.video(id: id)
    }

    func videos(ownerId: String, folderId: String?) async throws -> [VideoRecord] {
        try await base.videos(ownerId: ownerId, folderId: folderId)
    }

    func videos(roomId: String) async throws -> [VideoRecord] {
        try await base.videos(roomId: roomId)
    }

    func updateVideo(_ video: VideoRecord) async throws {
        try await base.updateVideo(video)
    }

    func deleteVideo(id: String) async throws -> [String] {
        try await base.deleteVideo(id: id)
    }

    func blobsUnused(_ names: [String], exceptVideo videoId: String) async throws -> [String] {
        try await base.blobsUnused(names, exceptVideo: videoId)
    }
}
