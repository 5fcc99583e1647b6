import Foundation
import PodiumStore

// The channel's membership and settings go straight to the real store.
extension GatedStore {
    func setMember(userId: String, _ isMember: Bool) async throws {
        try await base.setMember(userId: userId, isMember)
    }

    func setPasswordHash(userId: String, _ hash: String) async throws {
        try await base.setPasswordHash(userId: userId, hash)
    }

    func channelSetting(_ name: String, orInsert value: String) async throws -> String {
        try await base.channelSetting(name, orInsert: value)
    }

    func channelLastSeen(viewerKey: String) async throws -> Date? {
        try await base.channelLastSeen(viewerKey: viewerKey)
    }

    func markChannelSeen(viewerKey: String, at: Date) async throws {
        try await base.markChannelSeen(viewerKey: viewerKey, at: at)
    }
}
