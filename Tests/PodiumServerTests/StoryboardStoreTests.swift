import Foundation
import Testing

@testable import PodiumStore

/// Storyboards and nested folders on both databases: records, sharing, edits numbered without
/// gaps or forks, snapshots, and a folder's contents moving up when it is deleted.
@Suite("Storyboard store on SQLite and PostgreSQL", .timeLimit(.minutes(2)))
struct StoryboardStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000.25)
    static let t1 = Date(timeIntervalSince1970: 1_700_000_060.5)

    static func seed(_ store: SQLStore) async throws {
        for (id, email) in [("u1", "ada@example.org"), ("u2", "grace@example.org")] {
            try await store.insertUser(
                UserRecord(id: id, email: email, name: email, role: .presenter, passwordHash: "h", createdAt: t0))
        }
        try await store.insertFolder(FolderRecord(id: "f1", ownerId: "u1", name: "Films", createdAt: t0))
    }

    static func project(_ id: String = "sb1", folder: String? = "f1") -> StoryboardRecord {
        StoryboardRecord(
            id: id, ownerId: "u1", folderId: folder, title: "Short", description: "Draft 1", aspectRatio: "2.39:1",
            sceneCount: 1, shotCount: 1, createdAt: t0, updatedAt: t0)
    }

    static func edit(_ seq: Int, key: String?, shot: String? = "s1", at date: Date = t1) -> StoryboardEditRecord {
        StoryboardEditRecord(
            storyboardId: "sb1", seq: seq, authorId: "u1", commandKey: key, shotId: shot, edit: #"{"op":"x\#(seq)"}"#,
            createdAt: date)
    }

    @Test(arguments: TestStores.kinds) func aProjectComesBackAsStoredAndIsShared(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await Self.seed(store)
            try await store.insertStoryboard(Self.project(), content: #"{"scenes":[]}"#)
            #expect(try await store.storyboard(id: "sb1") == Self.project())
            #expect(
                try await store.storyboardSnapshot(storyboardId: "sb1", atOrBefore: nil)
                    == StoryboardSnapshot(seq: 0, content: #"{"scenes":[]}"#))
            #expect(try await store.storyboards(userId: "u1", folderId: nil).map(\.id) == ["sb1"])
            #expect(try await store.storyboards(userId: "u1", folderId: "f1").map(\.id) == ["sb1"])
            #expect(try await store.storyboards(userId: "u2", folderId: nil).isEmpty)

            try await store.addStoryboardEditor(storyboardId: "sb1", userId: "u2")
            try await store.addStoryboardEditor(storyboardId: "sb1", userId: "u2")  // twice is once
            #expect(try await store.storyboardEditors(storyboardId: "sb1").map(\.id) == ["u2"])
            #expect(try await store.storyboards(userId: "u2", folderId: nil).map(\.id) == ["sb1"])
            try await store.removeStoryboardEditor(storyboardId: "sb1", userId: "u2")
            #expect(try await store.storyboards(userId: "u2", folderId: nil).isEmpty)

            var renamed = Self.project()
            renamed.title = "Feature"
            renamed.description = ""
            renamed.aspectRatio = "16:9"
            renamed.folderId = nil
            renamed.updatedAt = Self.t1
            try await store.updateStoryboard(renamed)
            #expect(try await store.storyboard(id: "sb1") == renamed)

            try await store.deleteStoryboard(id: "sb1")
            #expect(try await store.storyboard(id: "sb1") == nil)
            #expect(try await store.storyboardSnapshot(storyboardId: "sb1", atOrBefore: nil) == nil)
        }
    }

    @Test(arguments: TestStores.kinds) func editsAreNumberedWithoutForksAndFoundById(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await Self.seed(store)
            try await store.insertStoryboard(Self.project(), content: "{}")
            try await store.appendStoryboardEdits(
                [Self.edit(1, key: "u1:c1"), Self.edit(2, key: "u1:c2", shot: nil)],
                summary: StoryboardSummaryChange(sceneCount: 2, shotCount: 5))
            let stored = try #require(try await store.storyboard(id: "sb1"))
            #expect(stored.seq == 2 && stored.sceneCount == 2 && stored.shotCount == 5 && stored.updatedAt == Self.t1)

            // A seq stored already is a conflict, and nothing of that append is kept.
            await #expect(throws: SeqConflict.self) {
                try await store.appendStoryboardEdits(
                    [Self.edit(3, key: "u1:c3"), Self.edit(2, key: "u1:c9")],
                    summary: StoryboardSummaryChange(sceneCount: 9, shotCount: 9))
            }
            #expect(try await store.storyboardEdits(storyboardId: "sb1", afterSeq: 0, throughSeq: nil).map(\.seq) == [1, 2])
            #expect(try await store.storyboard(id: "sb1")?.shotCount == 5)
            // An edit id stored already is a conflict too (a resend that raced its first copy).
            await #expect(throws: SeqConflict.self) {
                try await store.appendStoryboardEdits(
                    [Self.edit(3, key: "u1:c1")], summary: StoryboardSummaryChange(sceneCount: 1, shotCount: 1))
            }

            #expect(try await store.storyboardEditKeys(storyboardId: "sb1", afterSeq: 0).map(\.key) == ["u1:c1", "u1:c2"])
            #expect(try await store.storyboardEditKeys(storyboardId: "sb1", afterSeq: 1).map(\.seq) == [2])
            #expect(
                try await store.storyboardEdits(storyboardId: "sb1", afterSeq: 1, throughSeq: nil) == [
                    Self.edit(2, key: "u1:c2", shot: nil)
                ])
            #expect(try await store.storyboardEdits(storyboardId: "sb1", afterSeq: 0, throughSeq: 1).map(\.seq) == [1])
            #expect(try await store.storyboardShotEdits(storyboardId: "sb1", shotId: "s1", limit: 10).map(\.seq) == [1])
        }
    }

    @Test(arguments: TestStores.kinds) func theSnapshotAtOrBeforeASeqIsFound(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await Self.seed(store)
            try await store.insertStoryboard(Self.project(), content: "zero")
            try await store.saveStoryboardSnapshot(
                storyboardId: "sb1", StoryboardSnapshot(seq: 200, content: "two hundred"), at: Self.t1)
            try await store.saveStoryboardSnapshot(
                storyboardId: "sb1", StoryboardSnapshot(seq: 400, content: "four hundred"), at: Self.t1)
            // Saving the same seq again keeps the first (they are the same content).
            try await store.saveStoryboardSnapshot(
                storyboardId: "sb1", StoryboardSnapshot(seq: 400, content: "again"), at: Self.t1)
            #expect(try await store.storyboardSnapshot(storyboardId: "sb1", atOrBefore: nil)?.content == "four hundred")
            #expect(try await store.storyboardSnapshot(storyboardId: "sb1", atOrBefore: 399)?.content == "two hundred")
            #expect(try await store.storyboardSnapshot(storyboardId: "sb1", atOrBefore: 10)?.content == "zero")
        }
    }

    @Test(arguments: TestStores.kinds) func foldersNestAndADeletedFoldersContentsMoveUp(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await Self.seed(store)
            try await store.insertFolder(
                FolderRecord(id: "f2", ownerId: "u1", name: "Shorts", parentId: "f1", createdAt: Self.t0))
            try await store.insertFolder(FolderRecord(id: "f3", ownerId: "u1", name: "2026", parentId: "f2", createdAt: Self.t0))
            try await store.insertStoryboard(Self.project("sb1", folder: "f2"), content: "{}")
            #expect(try await store.folder(id: "f3")?.parentId == "f2")

            try await store.moveFolder(id: "f3", parentId: nil)
            #expect(try await store.folder(id: "f3")?.parentId == nil)
            try await store.moveFolder(id: "f3", parentId: "f2")

            try await store.deleteFolder(id: "f2")
            #expect(try await store.folder(id: "f2") == nil)
            #expect(try await store.folder(id: "f3")?.parentId == "f1")
            #expect(try await store.storyboard(id: "sb1")?.folderId == "f1")
        }
    }
}
