import Foundation
import PodiumStore

// The channel's membership and settings go straight to the real store.
extension GatedStore {
    func setMember(userId: String, _ isMember: Bool) async throws {
        try await base.setMember(userId: userId, isMember)
    }

    func channelSetting(_ name: String, orInsert value: String) async throws -> String {
        try await base.channelSetting(name, orInsert: value)
    }
}
