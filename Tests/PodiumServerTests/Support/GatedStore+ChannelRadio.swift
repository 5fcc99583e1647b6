import Foundation
import PodiumStore

/// Radio passes straight through: no test holds it.
extension GatedStore {
    func insertRadio(_ radio: ChannelRadioRecord) async throws { try await base.insertRadio(radio) }
    func radio(id: String) async throws -> ChannelRadioRecord? { try await base.radio(id: id) }
    func radios() async throws -> [ChannelRadioRecord] { try await base.radios() }
    func updateRadio(_ radio: ChannelRadioRecord) async throws { try await base.updateRadio(radio) }
    func deleteRadio(id: String) async throws -> [String] { try await base.deleteRadio(id: id) }
    func insertRadioTrack(_ track: ChannelRadioTrackRecord) async throws { try await base.insertRadioTrack(track) }
    func radioTrack(id: String) async throws -> ChannelRadioTrackRecord? { try await base.radioTrack(id: id) }
    func radioTracks(radioId: String) async throws -> [ChannelRadioTrackRecord] {
        try await base.radioTracks(radioId: radioId)
    }
    func updateRadioTrack(_ track: ChannelRadioTrackRecord) async throws { try await base.updateRadioTrack(track) }
    func reorderRadioTracks(radioId: String, ids: [String], at date: Date) async throws {
        try await base.reorderRadioTracks(radioId: radioId, ids: ids, at: date)
    }
    func deleteRadioTrack(id: String) async throws -> [String] { try await base.deleteRadioTrack(id: id) }
    func radioBlobsUnused(_ names: [String], exceptTrack trackId: String) async throws -> [String] {
        try await base.radioBlobsUnused(names, exceptTrack: trackId)
    }
    func radioUsage(viewerKey: String, day: String) async throws -> Double {
        try await base.radioUsage(viewerKey: viewerKey, day: day)
    }
    func addRadioUsage(_ additions: [RadioUsage]) async throws { try await base.addRadioUsage(additions) }
}
