import Foundation
import Logging
import NIOCore
import PodiumCore
import PodiumStore

/// One storyboard open for editing on this node: its content, the numbering of its edits, each
/// person's undo history, and the editors connected to it here.
///
/// An edit takes one path: apply to a copy of the content (the model refuses what breaks a rule)
/// → store it with the next seq → only then make the copy the content, acknowledge the author,
/// send `edited` to every editor and hint the other nodes (``SessionBus``, kind `.storyboard`).
/// An editor is told "saved" only by that acknowledgement, so nothing confirmed is lost if the
/// server is killed. Undo and redo are edits made by the server on the person's behalf from their
/// own history.
///
/// Several nodes may hold one project open: each stores with the seq it knows, and the store
/// refuses a seq taken (``SeqConflict``). A desk that loses catches up from the store in order
/// (sending those edits to its editors) and decides the edit again on the newer content. A hint
/// of another node's edit, the periodic check, a join and every read (``current()``) catch up
/// the same way, under the same gate, so what this node answers is as new as the table.
actor StoryboardDesk {
    let id: String
    private(set) var content: Storyboard
    private(set) var seq: Int
    private var history = StoryboardHistory()
    private var editors: [Int: Editor] = [:]
    /// This desk's editor numbers are `editorBase + 1`, `+ 2`, …: unique across nodes.
    private let editorBase: Int
    private var nextEditor = 1
    /// Edit ids taken recently (`user:id` → seq): a resent edit is acknowledged, not applied twice.
    private var recentIDs: [String: Int] = [:]
    private var recentOrder: [String] = []
    /// The newest `edited` frames (at least ``Settings/missedLimit`` once there are as many),
    /// oldest first, for the `missed` of a reconnecting editor's welcome.
    private var recentEdits: [StoryboardEdited] = []
    private var editsSinceSnapshot = 0
    private let gate = SerialGate()
    private let store: any PodiumStore
    private let bus: any SessionBus
    private let node: String
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let settings: Settings

    struct Settings: Sendable {
        /// A snapshot of the whole content after this many edits (a project opens from its newest
        /// snapshot and the edits after it).
        var snapshotEvery = 200
        /// At most this many people editing one project at once (on one node).
        var maxEditors = 32
        /// How many times an edit is decided again after another node's edit was stored first,
        /// before the editor is asked to send it again (`retry`).
        var appendAttempts = 8
        static let recentIDs = 4096
        /// At most this many `edited` frames in a welcome's `missed`.
        static let missedLimit = 1000
    }

    struct Editor {
        let info: StoryboardEditorInfo
        let outbox: Outbox
    }

    init(
        id: String, content: Storyboard, seq: Int, history: StoryboardHistory, editsSinceSnapshot: Int,
        recentEdits: [StoryboardEdited] = [], store: any PodiumStore, bus: any SessionBus = LocalSessionBus(),
        node: String = "", editorBase: Int = 0, settings: Settings, now: @escaping @Sendable () -> Date, logger: Logger
    ) {
        self.id = id
        self.content = content
        self.seq = seq
        self.history = history
        self.editsSinceSnapshot = editsSinceSnapshot
        self.recentEdits = Array(recentEdits.suffix(Settings.missedLimit))
        self.store = store
        self.bus = bus
        self.node = node
        self.editorBase = editorBase
        self.settings = settings
        self.now = now
        self.logger = logger
    }

    var isIdle: Bool { editors.isEmpty }

    // MARK: Editors

    /// Adds an editor and sends them the welcome, as new as the store (with `missed`, the edits
    /// after `lastSeq`, when this desk still has them all); nil when the project is full.
    func join(user: UserRecord, outbox: Outbox, lastSeq: Int? = nil) async -> Int? {
        await gate.enter()
        defer { gate.leave() }
        guard editors.count < settings.maxEditors else { return nil }
        await catchUpLocked()
        let local = nextEditor
        nextEditor += 1
        let number = editorBase + local
        let info = StoryboardEditorInfo(
            editor: number, userId: user.id, name: user.name.isEmpty ? user.email : user.name,
            color: Self.palette[(number - 1) % Self.palette.count])
        editors[number] = Editor(info: info, outbox: outbox)
        outbox.push(
            Frames.encode(
                StoryboardWelcome(
                    seq: seq, storyboard: content, you: info, editors: editors.values.map(\.info).sorted(),
                    missed: lastSeq.flatMap(missed(after:)))))
        announceEditors(except: number)
        return number
    }

    /// The `edited` frames after `lastSeq`, when this desk has every one of them.
    private func missed(after lastSeq: Int) -> [StoryboardEdited]? {
        guard lastSeq >= 0, lastSeq <= seq, seq - lastSeq <= Settings.missedLimit else { return nil }
        if lastSeq == seq { return [] }
        guard let first = recentEdits.first?.seq, first <= lastSeq + 1 else { return nil }
        return Array(recentEdits.drop { $0.seq <= lastSeq })
    }

    /// The others are told (they clear this editor's cursor and stroke in progress).
    func leave(_ editor: Int) {
        guard editors.removeValue(forKey: editor) != nil else { return }
        announceEditors(except: nil)
    }

    /// Closes every editor's socket (the project was deleted).
    func closeAll(reason: StoryboardErrorMessage) {
        for editor in editors.values {
            editor.outbox.push(Frames.encode(reason))
            editor.outbox.close(.finished)
        }
        editors.removeAll()
    }

    private func announceEditors(except newcomer: Int?) {
        let frame = Frames.encode(StoryboardEditors(editors: editors.values.map(\.info).sorted()))
        for (number, editor) in editors where number != newcomer { editor.outbox.push(frame) }
    }

    /// A stroke in progress or a cursor: to the others only (on every node), newest wins on a
    /// slow socket.
    func relay(from editor: Int, _ message: StoryboardClientMessage) async {
        guard editors[editor] != nil else { return }
        let (name, frame): (String, ByteBuffer?) =
            switch message {
            case .drawing(let shot, let layer, let stroke):
                ("drawing", Frames.encode(StoryboardDrawing(editor: editor, shot: shot, layer: layer, stroke: stroke)))
            case .cursor(let shot, let x, let y):
                ("cursor", Frames.encode(StoryboardCursor(editor: editor, shot: shot, x: x, y: y)))
            default: ("", nil)
            }
        guard let frame, let key = Self.ephemeralKey(name, editor: editor) else { return }
        for (number, other) in editors where number != editor { other.outbox.replace(key, with: frame) }
        await bus.note(
            SessionNote(
                node: node, sessionId: id, code: id, kind: .ephemeral(key: "\(name).\(editor)", frame: frame),
                document: .storyboard))
    }

    /// Another node's stroke in progress or cursor (`key`: `drawing.<editor>` or `cursor.<editor>`).
    func relayed(key: String, frame: ByteBuffer) {
        let parts = key.split(separator: ".")
        guard parts.count == 2, let editor = Int(parts[1]), let slot = Self.ephemeralKey(String(parts[0]), editor: editor)
        else { return }
        for other in editors.values { other.outbox.replace(slot, with: frame) }
    }

    /// The newest-wins slot of an editor's frames of one kind (`drawing`, `cursor`): one per
    /// editor number modulo 64 (the numbers of one node's desk are consecutive).
    private static func ephemeralKey(_ name: String, editor: Int) -> EphemeralKey? {
        let count = drawingKeys.count
        let slot = ((editor - 1) % count + count) % count
        return switch name {
        case "drawing": drawingKeys[slot]
        case "cursor": cursorKeys[slot]
        default: nil
        }
    }

    // MARK: Edits

    enum Request: Sendable {
        case edit(StoryboardEdit)
        case undo
        case redo
    }

    /// Applies, stores and sends one edit (or an undo or redo) of `user`'s, answering `id` on
    /// `outbox` with an ack or an error.
    func perform(_ request: Request, id: String, user: UserRecord, outbox: Outbox) async {
        await gate.enter()
        defer { gate.leave() }
        let key = "\(user.id):\(id)"
        for attempt in 0..<settings.appendAttempts {
            if let stored = storedSeq(of: key) {
                outbox.push(Frames.encode(StoryboardAck(id: id, seq: stored)))
                return
            }
            var next = content
            var nextHistory = history
            let edit: StoryboardEdit
            do throws(StoryboardError) {
                switch request {
                case .edit(let requested):
                    // Recorded and broadcast as stored: each new stroke with its author.
                    let stamped = requested.stamped(by: user.id)
                    let inverse = try next.apply(stamped, by: user.id)
                    nextHistory.record(inverse: inverse, author: user.id)
                    edit = stamped
                case .undo:
                    guard let undone = try nextHistory.undo(author: user.id, in: &next) else {
                        throw StoryboardError.nothingToUndo
                    }
                    edit = undone
                case .redo:
                    guard let redone = try nextHistory.redo(author: user.id, in: &next) else {
                        throw StoryboardError.nothingToRedo
                    }
                    edit = redone
                }
            } catch {
                outbox.push(Frames.encode(StoryboardErrorMessage(id: id, error)))
                return
            }
            let record = StoryboardEditRecord(
                storyboardId: self.id, seq: seq + 1, authorId: user.id, commandKey: key, shotId: edit.touchedShot,
                edit: String(decoding: (try? Self.encoder.encode(edit)) ?? Data(), as: UTF8.self), createdAt: now())
            do {
                try await store.appendStoryboardEdits(
                    [record], summary: StoryboardSummaryChange(sceneCount: next.scenes.count, shotCount: next.shotCount))
            } catch is SeqConflict {
                // Another node stored edits first (or this very id, sent before to another node):
                // take them, in order, and decide this one again on the newer content. Two nodes
                // busy with one project must not keep colliding: the loser waits a random moment,
                // longer each time.
                logger.debug("storyboard \(self.id): another node stored edit \(record.seq) first; catching up")
                await catchUpLocked()
                try? await Task.sleep(for: .microseconds(Int.random(in: 0...(500 << min(attempt, 6)))))
                continue
            } catch {
                logger.error("storyboard \(self.id): could not store edit \(record.seq): \(error)")
                outbox.push(Frames.encode(StoryboardErrorMessage(id: id, .unavailable)))
                return
            }
            content = next
            history = nextHistory
            seq = record.seq
            remember(key, seq: seq)
            outbox.push(Frames.encode(StoryboardAck(id: id, seq: seq)))
            publish(StoryboardEdited(seq: seq, author: user.id, by: id, edit: edit))
            await bus.appended(AppendedHint(node: node, sessionId: self.id, code: self.id, seq: seq, kind: .storyboard))
            editsSinceSnapshot += 1
            if editsSinceSnapshot >= settings.snapshotEvery { snapshotInBackground() }
            return
        }
        // Others' edits kept being stored first: the editor sends it again (same id) a moment later.
        if let stored = storedSeq(of: key) {
            outbox.push(Frames.encode(StoryboardAck(id: id, seq: stored)))
        } else {
            outbox.push(Frames.encode(StoryboardErrorMessage.retry(id: id)))
        }
    }

    /// Sends a stored edit to this node's editors and keeps it for a reconnecting editor's `missed`.
    private func publish(_ edited: StoryboardEdited) {
        let frame = Outbox.Frame(Frames.encode(edited))
        for editor in editors.values { editor.outbox.push(frame) }
        recentEdits.append(edited)
        if recentEdits.count >= Settings.missedLimit + Settings.missedLimit / 4 {
            recentEdits.removeFirst(recentEdits.count - Settings.missedLimit)
        }
    }

    /// Writes a snapshot of the content as of now without holding up the edits behind this one:
    /// encoding and storing a large project takes long (12 MB of JSON for 500 drawn shots held
    /// every 200th edit for over a second). The content is a value, so the copy cannot change;
    /// a snapshot that fails is only a longer replay next time (every edit is stored).
    private func snapshotInBackground() {
        let (content, seq, id, store, now, logger) = (self.content, self.seq, self.id, self.store, self.now, self.logger)
        editsSinceSnapshot = 0
        Task.detached(priority: .utility) {
            do {
                let json = String(decoding: try Self.encoder.encode(content), as: UTF8.self)
                try await store.saveStoryboardSnapshot(storyboardId: id, StoryboardSnapshot(seq: seq, content: json), at: now())
            } catch {
                logger.warning("storyboard \(id): could not save a snapshot at \(seq): \(error)")
            }
        }
    }

    /// Another node stored edits up to `seq` (a hint): take them, unless this desk has them.
    func catchUp(to seq: Int) async {
        guard seq > self.seq else { return }
        await catchUp()
    }

    /// Takes the edits the store has beyond this desk's seq (the bus reconnected, the periodic
    /// check).
    func catchUp() async {
        await gate.enter()
        defer { gate.leave() }
        await catchUpLocked()
    }

    /// The content and its seq as new as the store (a REST read, an export, present).
    func current() async -> (content: Storyboard, seq: Int) {
        await gate.enter()
        defer { gate.leave() }
        await catchUpLocked()
        return (content, seq)
    }

    /// Applies and sends the edits stored after this desk's seq by others, in order; the caller
    /// holds the gate. A store that cannot be read leaves the desk as it was (the next hint,
    /// check or read catches up).
    private func catchUpLocked() async {
        let records: [StoryboardEditRecord]
        do {
            records = try await store.storyboardEdits(storyboardId: id, afterSeq: seq, throughSeq: nil)
        } catch {
            logger.warning("storyboard \(self.id): could not read the edits after \(self.seq): \(error)")
            return
        }
        for record in records where record.seq > seq {
            guard record.seq == seq + 1 else {
                logger.error("storyboard \(self.id): edit \(self.seq + 1) is not in the store (next: \(record.seq))")
                return
            }
            seq = record.seq
            if let key = record.commandKey { remember(key, seq: record.seq) }
            guard let edit = try? JSONDecoder().decode(StoryboardEdit.self, from: Data(record.edit.utf8)) else {
                logger.error("storyboard \(self.id): stored edit \(record.seq) cannot be read")
                continue
            }
            do {
                let inverse = try content.apply(edit, by: record.authorId)
                history.record(inverse: inverse, author: record.authorId)
            } catch {
                // Every stored edit applied when it was made, to this same content: a bug.
                logger.error("storyboard \(self.id): stored edit \(record.seq) does not apply: \(error)")
            }
            editsSinceSnapshot += 1
            publish(StoryboardEdited(seq: record.seq, author: record.authorId, by: record.commandID, edit: edit))
        }
    }

    /// The seq an edit id was stored with, if it is one of the newest ``Settings/recentIDs``
    /// (those stored before this desk opened were loaded with it: an editor resends what was
    /// not acknowledged when it reconnects, so an older id does not come back).
    private func storedSeq(of key: String) -> Int? { recentIDs[key] }

    /// Remembers the ids of edits stored before this desk opened.
    func remember(_ stored: [(key: String, seq: Int)]) {
        for (key, seq) in stored { remember(key, seq: seq) }
    }

    private func remember(_ key: String, seq: Int) {
        recentIDs[key] = seq
        recentOrder.append(key)
        if recentOrder.count > Settings.recentIDs {
            let dropped = recentOrder.prefix(recentOrder.count / 2)
            for key in dropped { recentIDs.removeValue(forKey: key) }
            recentOrder.removeFirst(dropped.count)
        }
    }

    /// Stores the whole content as of now, so the next open replays fewer edits.
    func saveSnapshot() async {
        guard editsSinceSnapshot > 0 else { return }
        do {
            let json = String(decoding: try Self.encoder.encode(content), as: UTF8.self)
            try await store.saveStoryboardSnapshot(storyboardId: id, StoryboardSnapshot(seq: seq, content: json), at: now())
            editsSinceSnapshot = 0
        } catch {
            logger.warning("storyboard \(self.id): could not save a snapshot at \(self.seq): \(error)")
        }
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    /// Distinct on white and on dark: the cursors and name tags of editors.
    static let palette = ["#e8590c", "#1c7ed6", "#2f9e44", "#ae3ec9", "#f08c00", "#0ca678", "#d6336c", "#5c7cfa"]
    static let drawingKeys = (0..<64).map { EphemeralKey("storyboard.drawing.\($0)") }
    static let cursorKeys = (0..<64).map { EphemeralKey("storyboard.cursor.\($0)") }
}

extension StoryboardEditorInfo: Comparable {
    static func < (lhs: Self, rhs: Self) -> Bool { lhs.editor < rhs.editor }
}

extension Storyboard {
    var shotCount: Int { scenes.reduce(0) { $0 + $1.shots.count } }
}

extension StoryboardEditRecord {
    /// The id the author's editor gave the edit (its command key is `user:id`).
    var commandID: String? { commandKey.map { String($0.drop(while: { $0 != ":" }).dropFirst()) } }
}
