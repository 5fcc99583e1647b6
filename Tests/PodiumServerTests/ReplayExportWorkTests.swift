import Foundation
import Logging
import Testing

@testable import PodiumServer

/// An export's work directory left by a node that stopped mid-export (its own cleanup never ran)
/// is removed when a later export starts, once nothing was written in it for a day; a directory
/// still written in (an export under way) and other jobs' directories are left alone.
@Suite("Replay export work directories")
struct ReplayExportWorkTests {
    static func make(_ directory: URL, writtenAt date: Date) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let frame = directory.appendingPathComponent("scene-0001.png")
        try Data(repeating: 1, count: 100).write(to: frame)
        for url in [frame, directory] {
            try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: url.path)
        }
    }

    @Test func abandonedWorkIsRemovedAndWorkUnderWayKept() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("podium-export-work-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let now = Date()
        let twoDaysAgo = now.addingTimeInterval(-48 * 3600)
        try Self.make(root.appendingPathComponent("replay-export-rex_old"), writtenAt: twoDaysAgo)
        try Self.make(root.appendingPathComponent("replay-export-rex_running"), writtenAt: twoDaysAgo)
        // The running export wrote its last frame a moment ago.
        try Data(repeating: 2, count: 10).write(to: root.appendingPathComponent("replay-export-rex_running/scene-0002.png"))
        try Self.make(root.appendingPathComponent("storyboard-export-sb_1"), writtenAt: twoDaysAgo)

        let removed = ReplayExportWorker.removeAbandonedWork(
            in: root, writtenBefore: now.addingTimeInterval(-ReplayExportWorker.abandonedAfter), logger: Logger(label: "test"))
        #expect(removed == ["replay-export-rex_old"])
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: root.path))
        #expect(left == ["replay-export-rex_running", "storyboard-export-sb_1"])
        // Nothing to do: nothing removed, no error.
        #expect(
            ReplayExportWorker.removeAbandonedWork(
                in: root.appendingPathComponent("none"), writtenBefore: now, logger: Logger(label: "test")
            ).isEmpty)
    }
}
