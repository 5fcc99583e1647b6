import Foundation
import PodiumStore
import Synchronization

/// Storyboards and nested folders pass straight through.
extension GatedStore {
    func moveFolder(id: String, parentId: String?) async throws {
        try await base.moveFolder(id: id, parentId: parentId)
    }

    func insertStoryboard(_ storyboard: StoryboardRecord, content: String) async throws {
        try await base.insertStoryboard(storyboard, content: content)
    }

    func storyboard(id: String) async throws -> StoryboardRecord? {
        try await base.storyboard(id: id)
    }

    func storyboards(userId: String, folderId: String?) async throws -> [StoryboardRecord] {
        try await base.storyboards(userId: userId, folderId: folderId)
    }

    func updateStoryboard(_ storyboard: StoryboardRecord) async throws {
        try await base.updateStoryboard(storyboard)
    }

    func deleteStoryboard(id: String) async throws {
        try await base.deleteStoryboard(id: id)
    }

    func storyboardEditors(storyboardId: String) async throws -> [UserRecord] {
        try await base.storyboardEditors(storyboardId: storyboardId)
    }

    func addStoryboardEditor(storyboardId: String, userId: String) async throws {
        try await base.addStoryboardEditor(storyboardId: storyboardId, userId: userId)
    }

    func removeStoryboardEditor(storyboardId: String, userId: String) async throws {
        try await base.removeStoryboardEditor(storyboardId: storyboardId, userId: userId)
    }

    /// Rival nodes, per store: while a store's count is above 0, each storyboard append finds
    /// another node's edit stored first at its seq (a `renumberShots`, which always applies), as
    /// when other nodes keep winning.
    static let storyboardRivals = Mutex<[ObjectIdentifier: Int]>([:])

    /// The next `count` storyboard appends each lose to a rival's edit.
    func rivalStoryboardAppends(_ count: Int) {
        Self.storyboardRivals.withLock { $0[ObjectIdentifier(self)] = count }
    }

    func appendStoryboardEdits(_ edits: [StoryboardEditRecord], summary: StoryboardSummaryChange) async throws {
        await holdIfAsked()
        let rival = Self.storyboardRivals.withLock { rivals in
            guard let left = rivals[ObjectIdentifier(self)], left > 0 else { return false }
            rivals[ObjectIdentifier(self)] = left - 1
            return true
        }
        if rival, let first = edits.first {
            try await base.appendStoryboardEdits(
                [
                    StoryboardEditRecord(
                        storyboardId: first.storyboardId, seq: first.seq, authorId: first.authorId, commandKey: nil,
                        shotId: nil, edit: #"{"op":"renumberShots"}"#, createdAt: first.createdAt)
                ], summary: summary)
        }
        try await base.appendStoryboardEdits(edits, summary: summary)
    }

    func storyboardEdits(storyboardId: String, afterSeq: Int, throughSeq: Int?) async throws -> [StoryboardEditRecord] {
        try await base.storyboardEdits(storyboardId: storyboardId, afterSeq: afterSeq, throughSeq: throughSeq)
    }

    func storyboardShotEdits(storyboardId: String, shotId: String, limit: Int) async throws -> [StoryboardEditRecord] {
        try await base.storyboardShotEdits(storyboardId: storyboardId, shotId: shotId, limit: limit)
    }

    func storyboardEditKeys(storyboardId: String, afterSeq: Int) async throws -> [(key: String, seq: Int)] {
        try await base.storyboardEditKeys(storyboardId: storyboardId, afterSeq: afterSeq)
    }

    func saveStoryboardSnapshot(storyboardId: String, _ snapshot: StoryboardSnapshot, at date: Date) async throws {
        try await base.saveStoryboardSnapshot(storyboardId: storyboardId, snapshot, at: date)
    }

    func storyboardSnapshot(storyboardId: String, atOrBefore seq: Int?) async throws -> StoryboardSnapshot? {
        try await base.storyboardSnapshot(storyboardId: storyboardId, atOrBefore: seq)
    }

    func insertStoryboardExport(_ export: StoryboardExportRecord) async throws {
        try await base.insertStoryboardExport(export)
    }

    func storyboardExport(id: String) async throws -> StoryboardExportRecord? {
        try await base.storyboardExport(id: id)
    }

    func storyboardExports(storyboardId: String) async throws -> [StoryboardExportRecord] {
        try await base.storyboardExports(storyboardId: storyboardId)
    }

    func updateStoryboardExport(_ export: StoryboardExportRecord) async throws {
        try await base.updateStoryboardExport(export)
    }
}
