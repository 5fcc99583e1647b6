import Foundation
import Logging
import NIOCore
import PodiumCore
import PodiumStore

/// One storyboard open for editing: its content, the numbering of its edits, each person's undo
/// history, and the editors connected to it.
///
/// An edit takes one path: apply to a copy of the content (the model refuses what breaks a rule)
/// → store it with the next seq → only then make the copy the content, acknowledge the author
/// and send `edited` to every editor. An editor is told "saved" only by that acknowledgement, so
/// nothing confirmed is lost if the server is killed. Undo and redo are edits made by the server
/// on the person's behalf from their own history.
actor StoryboardDesk {
    let id: String
    private(set) var content: Storyboard
    private(set) var seq: Int
    private var history = StoryboardHistory()
    private var editors: [Int: Editor] = [:]
    private var nextEditor = 1
    /// Edit ids taken recently (`user:id` → seq): a resent edit is acknowledged, not applied twice.
    private var recentIDs: [String: Int] = [:]
    private var recentOrder: [String] = []
    private var editsSinceSnapshot = 0
    private let gate = SerialGate()
    private let store: any PodiumStore
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let settings: Settings

    struct Settings: Sendable {
        /// A snapshot of the whole content after this many edits (a project opens from its newest
        /// snapshot and the edits after it).
        var snapshotEvery = 200
        /// At most this many people editing one project at once.
        var maxEditors = 32
        static let recentIDs = 4096
    }

    struct Editor {
        let info: StoryboardEditorInfo
        let outbox: Outbox
    }

    init(
        id: String, content: Storyboard, seq: Int, history: StoryboardHistory, editsSinceSnapshot: Int,
        store: any PodiumStore, settings: Settings, now: @escaping @Sendable () -> Date, logger: Logger
    ) {
        self.id = id
        self.content = content
        self.seq = seq
        self.history = history
        self.editsSinceSnapshot = editsSinceSnapshot
        self.store = store
        self.settings = settings
        self.now = now
        self.logger = logger
    }

    var isIdle: Bool { editors.isEmpty }

    // MARK: Editors

    /// Adds an editor and sends them the welcome; nil when the project is full.
    func join(user: UserRecord, outbox: Outbox) -> Int? {
        guard editors.count < settings.maxEditors else { return nil }
        let number = nextEditor
        nextEditor += 1
        let info = StoryboardEditorInfo(
            editor: number, userId: user.id, name: user.name.isEmpty ? user.email : user.name,
            color: Self.palette[(number - 1) % Self.palette.count])
        editors[number] = Editor(info: info, outbox: outbox)
        outbox.push(
            Frames.encode(
                StoryboardWelcome(seq: seq, storyboard: content, you: info, editors: editors.values.map(\.info).sorted())))
        announceEditors(except: number)
        return number
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

    /// A stroke in progress or a cursor: to the others only, newest wins on a slow socket.
    func relay(from editor: Int, _ message: StoryboardClientMessage) {
        guard editors[editor] != nil else { return }
        let slot = (editor - 1) % settings.maxEditors
        let (key, frame): (EphemeralKey, ByteBuffer?) =
            switch message {
            case .drawing(let shot, let layer, let stroke):
                (
                    Self.drawingKeys[slot],
                    Frames.encode(StoryboardDrawing(editor: editor, shot: shot, layer: layer, stroke: stroke))
                )
            case .cursor(let shot, let x, let y):
                (Self.cursorKeys[slot], Frames.encode(StoryboardCursor(editor: editor, shot: shot, x: x, y: y)))
            default: (Self.cursorKeys[slot], nil)
            }
        guard let frame else { return }
        for (number, other) in editors where number != editor { other.outbox.replace(key, with: frame) }
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
                guard let undone = try nextHistory.undo(author: user.id, in: &next) else { throw StoryboardError.nothingToUndo }
                edit = undone
            case .redo:
                guard let redone = try nextHistory.redo(author: user.id, in: &next) else { throw StoryboardError.nothingToRedo }
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
            // Another desk (this project opened again on another node, or after this one was let
            // go) stored edits first: take them, and have the editor send this one again.
            await catchUp()
            outbox.push(Frames.encode(StoryboardErrorMessage(id: id, .unavailable)))
            return
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
        let frame = Outbox.Frame(Frames.encode(StoryboardEdited(seq: seq, author: user.id, by: id, edit: edit)))
        for editor in editors.values { editor.outbox.push(frame) }
        editsSinceSnapshot += 1
        if editsSinceSnapshot >= settings.snapshotEvery { snapshotInBackground() }
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

    /// Applies and sends the edits stored after this desk's seq by someone else.
    private func catchUp() async {
        guard let records = try? await store.storyboardEdits(storyboardId: id, afterSeq: seq, throughSeq: nil) else { return }
        for record in records {
            guard let edit = try? JSONDecoder().decode(StoryboardEdit.self, from: Data(record.edit.utf8)) else { continue }
            if let inverse = try? content.apply(edit, by: record.authorId) {
                history.record(inverse: inverse, author: record.authorId)
            }
            seq = record.seq
            let by = record.commandKey.map { String($0.drop(while: { $0 != ":" }).dropFirst()) }
            let frame = Outbox.Frame(Frames.encode(StoryboardEdited(seq: seq, author: record.authorId, by: by, edit: edit)))
            for editor in editors.values { editor.outbox.push(frame) }
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
