import Foundation
import Logging
import PodiumCore
import PodiumStore

/// The storyboards open for editing on this node: one ``StoryboardDesk`` per project while
/// anyone edits it, opened from the store (the newest snapshot and the edits after it) on the
/// first join, saved and let go when the last editor leaves.
actor StoryboardHub {
    private var desks: [String: StoryboardDesk] = [:]
    /// Editors joined or joining each open desk.
    private var members: [String: Int] = [:]
    /// Opens in progress: two editors arriving together share one.
    private var opening: [String: Task<StoryboardDesk, any Error>] = [:]
    private let store: any PodiumStore
    private let settings: StoryboardDesk.Settings
    private let now: @Sendable () -> Date
    private let logger: Logger

    init(
        store: any PodiumStore, settings: StoryboardDesk.Settings = .init(), now: @escaping @Sendable () -> Date,
        logger: Logger
    ) {
        self.store = store
        self.settings = settings
        self.now = now
        self.logger = logger
    }

    /// The project's desk, opened if needed.
    func desk(_ id: String) async throws -> StoryboardDesk {
        if let desk = desks[id] { return desk }
        if let task = opening[id] { return try await task.value }
        let task = Task { [store, settings, now, logger] in
            let loaded = try await Self.load(id, throughSeq: nil, store: store)
            let desk = StoryboardDesk(
                id: id, content: loaded.content, seq: loaded.seq, history: loaded.history,
                editsSinceSnapshot: loaded.replayed, store: store, settings: settings, now: now, logger: logger)
            await desk.remember(
                try await store.storyboardEditKeys(
                    storyboardId: id, afterSeq: max(0, loaded.seq - StoryboardDesk.Settings.recentIDs / 2)))
            return desk
        }
        opening[id] = task
        defer { opening[id] = nil }
        let desk = try await task.value
        desks[id] = desk
        return desk
    }

    /// Joins `user` to the project's desk (opened if needed): the desk and the editor's number,
    /// which is nil when the project has as many editors as it takes.
    func join(_ id: String, user: UserRecord, outbox: Outbox) async throws -> (desk: StoryboardDesk, editor: Int?) {
        while true {
            let desk = try await desk(id)
            // Another editor's leave may have let it go while this one waited: open it again.
            guard desks[id] === desk else { continue }
            members[id, default: 0] += 1
            let editor = await desk.join(user: user, outbox: outbox)
            if editor == nil { await leave(id, desk: desk, editor: nil) }
            return (desk, editor)
        }
    }

    /// An editor left: when nobody is left, the desk saves a snapshot and is let go.
    func leave(_ id: String, desk: StoryboardDesk, editor: Int?) async {
        members[id, default: 1] -= 1
        let last = members[id] == 0
        if last, desks[id] === desk {
            desks[id] = nil
            members[id] = nil
        }
        if let editor { await desk.leave(editor) }
        if last { await desk.saveSnapshot() }
    }

    /// The content as of now: the open desk's, or the store's.
    func content(_ id: String) async throws -> (content: Storyboard, seq: Int) {
        if let desk = desks[id] { return (await desk.content, await desk.seq) }
        let loaded = try await Self.load(id, throughSeq: nil, store: store)
        return (loaded.content, loaded.seq)
    }

    /// A project was deleted: its editors are told and disconnected.
    func deleted(_ id: String) async {
        guard let desk = desks.removeValue(forKey: id) else { return }
        await desk.closeAll(
            reason: StoryboardErrorMessage(code: "not_found", message: "This storyboard was deleted."))
    }

    struct Loaded {
        var content: Storyboard
        var seq: Int
        var history: StoryboardHistory
        /// Edits applied after the snapshot.
        var replayed: Int
    }

    /// The content after edit `throughSeq` (the newest when nil): the snapshot at or before it and
    /// the edits after that, replayed. The undo history covers the replayed edits.
    static func load(_ id: String, throughSeq: Int?, store: any PodiumStore) async throws -> Loaded {
        guard let snapshot = try await store.storyboardSnapshot(storyboardId: id, atOrBefore: throughSeq) else {
            throw StoryboardLoadError(message: "storyboard \(id) has no snapshot")
        }
        var content = try JSONDecoder().decode(Storyboard.self, from: Data(snapshot.content.utf8))
        var history = StoryboardHistory()
        var seq = snapshot.seq
        let edits = try await store.storyboardEdits(storyboardId: id, afterSeq: snapshot.seq, throughSeq: throughSeq)
        for record in edits {
            seq = record.seq
            do {
                let edit = try JSONDecoder().decode(StoryboardEdit.self, from: Data(record.edit.utf8))
                let inverse = try content.apply(edit, by: record.authorId)
                history.record(inverse: inverse, author: record.authorId)
            } catch {
                // Every stored edit applied when it was made, so this is a bug; the rest still
                // replays rather than the project failing to open.
                Logger(label: "podium.storyboards").error("storyboard \(id): stored edit \(record.seq) does not replay: \(error)")
            }
        }
        return Loaded(content: content, seq: seq, history: history, replayed: edits.count)
    }
}

struct StoryboardLoadError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
