import Foundation
import Logging
import PodiumCore
import PodiumStore
import PodiumWire

/// The storyboards open for editing on this node: one ``StoryboardDesk`` per project while
/// anyone edits it, opened from the store (the newest snapshot and the edits after it) on the
/// first join, saved and let go when the last editor leaves.
///
/// On several nodes the desks share the ``SessionBus`` with the live sessions: the hub is this
/// node's storyboard end of the bus (under the node's name, beside ``LiveHub``), takes the hints
/// and notes of kind `.storyboard`, and each open desk catches up from the store, in order.
actor StoryboardHub: SessionBusNode {
    private var desks: [String: StoryboardDesk] = [:]
    /// Editors joined or joining each open desk.
    private var members: [String: Int] = [:]
    /// Opens in progress: two editors arriving together share one.
    private var opening: [String: Task<StoryboardDesk, any Error>] = [:]
    private let store: any StoryboardStore
    private let bus: any SessionBus
    /// This node's name on the bus (``LiveHub``'s: the bus skips a node's own messages by it).
    nonisolated let nodeName: String
    /// Editor numbers of this node's desks start above this (0: 1, 2, 3, …); random on a node
    /// that may share its storyboards with others (``randomEditorBase()``).
    private let editorBase: Int
    private let settings: StoryboardDesk.Settings
    private let now: @Sendable () -> Date
    private let logger: Logger

    init(
        store: any StoryboardStore, bus: any SessionBus = LocalSessionBus(), node: String = "", editorBase: Int = 0,
        settings: StoryboardDesk.Settings = .init(), now: @escaping @Sendable () -> Date, logger: Logger
    ) {
        self.store = store
        self.bus = bus
        self.nodeName = node
        self.editorBase = editorBase
        self.settings = settings
        self.now = now
        self.logger = logger
    }

    /// A base for ``editorBase`` on a node among others: a random multiple of 100,000 (so two
    /// nodes' editors never share a number: one chance in ten million) plus a few (so their first
    /// editors' colours differ too, mostly). Within 2^53: numbers stay exact in JavaScript.
    static func randomEditorBase() -> Int { Int.random(in: 1...9_999_999) * 100_000 + Int.random(in: 0..<8) }

    /// The project's desk, opened if needed.
    func desk(_ id: String) async throws -> StoryboardDesk {
        if let desk = desks[id] { return desk }
        if let task = opening[id] { return try await task.value }
        let task = Task { [store, bus, nodeName, editorBase, settings, now, logger] in
            let loaded = try await Self.load(id, throughSeq: nil, store: store)
            let desk = StoryboardDesk(
                id: id, document: StoryboardDocument(content: loaded.content, seq: loaded.seq, history: loaded.history),
                recentEdits: loaded.recent, editsSinceSnapshot: loaded.replayed, store: store, bus: bus, node: nodeName,
                editorBase: editorBase, settings: settings, now: now, logger: logger)
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
    func join(_ id: String, user: UserRecord, outbox: Outbox, lastSeq: Int? = nil) async throws -> (
        desk: StoryboardDesk, editor: Int?
    ) {
        while true {
            let desk = try await desk(id)
            // Another editor's leave may have let it go while this one waited: open it again.
            guard desks[id] === desk else { continue }
            members[id, default: 0] += 1
            let editor = await desk.join(user: user, outbox: outbox, lastSeq: lastSeq)
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

    /// The content as of now, as new as the store: the open desk's after it caught up (another
    /// node may have stored edits it has not heard of yet), or the store's.
    func content(_ id: String) async throws -> (content: Storyboard, seq: Int) {
        if let desk = desks[id] { return await desk.current() }
        let loaded = try await Self.load(id, throughSeq: nil, store: store)
        return (loaded.content, loaded.seq)
    }

    /// A project was deleted: its editors are told and disconnected, on every node.
    func deleted(_ id: String) async {
        await bus.note(SessionNote(node: nodeName, sessionId: id, code: id, kind: .access, document: .storyboard))
        await close(id)
    }

    private func close(_ id: String) async {
        guard let desk = desks.removeValue(forKey: id) else { return }
        await desk.closeAll(
            reason: StoryboardErrorMessage(code: "not_found", message: "This storyboard was deleted."))
    }

    // MARK: SessionBusNode

    /// Another node stored edits of a project: its open desk here catches up.
    func appended(_ hint: AppendedHint) async {
        guard hint.kind == .storyboard, let desk = desks[hint.sessionId] else { return }
        await desk.catchUp(to: hint.seq)
    }

    /// Another node's note about a project: a stroke in progress, a cursor or its editors, or
    /// (`access`) the project is being deleted.
    func note(_ note: SessionNote) async {
        guard note.document == .storyboard, let desk = desks[note.sessionId] else { return }
        switch note.kind {
        case .ephemeral(let key, let frame):
            await desk.relayed(key: key, frame: frame, from: note.node)
        case .access:
            // Sent only as the project is deleted (its row may still be there: the editors go
            // first, so none of them edits it meanwhile).
            await close(note.sessionId)
        case .records:
            break
        }
    }

    /// Sessions' presence: nothing of storyboards. Nonisolated: the bus tells every node each
    /// session's presence, on every viewer's arrival, and a hop to this actor for nothing cost
    /// about 10,000 instructions a join (`Benchmarks/fanout-instructions.sh`, #42).
    nonisolated func presence(_ update: PresenceUpdate) async {}

    /// Hints may have been lost (the bus reconnected, or the periodic check): every open desk
    /// catches up from the store, side by side.
    func resynchronize(records: Bool) async {
        await withTaskGroup(of: Void.self) { group in
            for desk in desks.values {
                group.addTask {
                    await desk.catchUp()
                    await desk.refreshEditors()
                }
            }
        }
    }

    struct Loaded {
        var content: Storyboard
        var seq: Int
        var history: StoryboardHistory
        /// Edits applied after the snapshot.
        var replayed: Int
        /// The newest of them (at most ``StoryboardDesk/Settings/missedLimit``), the last at `seq`.
        var recent: [StoryboardLogEntry] = []
    }

    /// The content after edit `throughSeq` (the newest when nil): the snapshot at or before it and
    /// the edits after that, replayed. The undo history covers the replayed edits.
    static func load(_ id: String, throughSeq: Int?, store: any StoryboardStore) async throws -> Loaded {
        guard let snapshot = try await store.storyboardSnapshot(storyboardId: id, atOrBefore: throughSeq) else {
            throw StoryboardLoadError(message: "storyboard \(id) has no snapshot")
        }
        var content = try JSONDecoder().decode(Storyboard.self, from: Data(snapshot.content.utf8))
        var history = StoryboardHistory()
        var seq = snapshot.seq
        let edits = try await store.storyboardEdits(storyboardId: id, afterSeq: snapshot.seq, throughSeq: throughSeq)
        var recent: [StoryboardLogEntry] = []
        let keepFrom = edits.count - StoryboardDesk.Settings.missedLimit
        for (index, record) in edits.enumerated() {
            seq = record.seq
            if index >= keepFrom { recent.append(record.entry) }
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
        // Only a run without gaps can be a reconnecting editor's `missed`.
        if let first = recent.first, recent.last?.seq != seq || seq - first.seq + 1 != recent.count { recent = [] }
        return Loaded(content: content, seq: seq, history: history, replayed: edits.count, recent: recent)
    }
}

struct StoryboardLoadError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
