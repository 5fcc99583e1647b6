import Foundation
import PodiumStore

// Garbage collection's bookkeeping goes straight to the real store.
extension GatedStore {
    func referencedBlobNames() async throws -> Set<String> {
        try await base.referencedBlobNames()
    }

    func blobMarks() async throws -> [String: Date] {
        try await base.blobMarks()
    }

    func markUnreferencedBlobs(_ names: Set<String>, at now: Date) async throws -> [String: Date] {
        try await base.markUnreferencedBlobs(names, at: now)
    }

    func unmarkBlobs(_ names: [String]) async throws {
        try await base.unmarkBlobs(names)
    }

    func claimBlobCollection(holder: String, at now: Date, leaseUntil: Date, startedBefore: Date?) async throws -> Bool {
        try await base.claimBlobCollection(holder: holder, at: now, leaseUntil: leaseUntil, startedBefore: startedBefore)
    }

    func finishBlobCollection(holder: String, at now: Date) async throws {
        try await base.finishBlobCollection(holder: holder, at: now)
    }
}
