import Foundation
import Logging
import NIOCore
import PodiumCore
import PodiumStore
import PodiumWire

/// One storyboard open for editing on this node: a ``LiveLog`` of its ``StoryboardDocument``
/// (content, undo histories, seq, recent edit ids) and the editors connected to it here.
///
/// An edit takes the live engine's one path, as a session's command does: the gate → a repeated
/// id is acknowledged with its seq → the document decides on a copy (the model refuses what
/// breaks a rule) → the edit is stored with the next seq → the copy becomes the document → the
/// author's ack and `edited` to every editor here → a hint to the other nodes (``SessionBus``,
/// kind `.storyboard`). An editor is told "saved" only by that acknowledgement, so nothing
/// confirmed is lost if the server is killed. Undo and redo are edits made by the server on the
/// person's behalf from their own history.
///
/// Several nodes may hold one project open: each stores with the seq it knows, and the store
/// refuses a seq taken (``SeqConflict``). The log that loses catches up from the store in order
/// (sending those edits to its editors) and decides the edit again on the newer content; after
/// ``Settings/appendAttempts`` the editor is answered `retry`. A hint of another node's edit, the
/// periodic check, a join and every read (``current()``) catch up the same way, under the same
/// gate, so what this node answers is as new as the table.
actor StoryboardDesk {
    typealias Request = StoryboardDocument.Command

    let id: String
    private let log: LiveLog<StoryboardDocument>
    var content: Storyboard { log.document.content }
    var seq: Int { log.document.seq }
    private var editors: [Int: Editor] = [:]
    /// The editors of this project on other nodes, by node, as each last said (and when).
    private var remoteEditors: [String: (editors: [StoryboardEditorInfo], at: Date)] = [:]
    /// This desk's editor numbers are `editorBase + 1`, `+ 2`, …: unique across nodes.
    private let editorBase: Int
    private var nextEditor = 1
    /// The sockets waiting for the ack of an edit being performed, by its command key: the ack
    /// goes out before the edit's `edited`.
    private var awaitingAck: [String: [(id: String, outbox: Outbox)]] = [:]
    private var editsSinceSnapshot = 0
    private let store: any StoryboardStore
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
        /// before the editor is asked to send it again (`retry`): as many as a session's command.
        var appendAttempts = LiveSession.appendAttempts
        static let recentIDs = 4096
        /// At most this many `edited` frames in a welcome's `missed` (and as many kept).
        static let missedLimit = 1000
        /// Another node's editors are forgotten when it has not repeated them for this long (it
        /// does at every periodic check of its bus, and whenever they change): a node that died.
        static let remoteEditorsLifetime: TimeInterval = 30
    }

    struct Editor {
        let info: StoryboardEditorInfo
        let outbox: Outbox
    }

    /// - Parameter recentEdits: the stored edits that led to `document`, the last one at its seq
    ///   (a reconnecting editor's `missed` comes from them).
    init(
        id: String, document: StoryboardDocument, recentEdits: [StoryboardLogEntry] = [], editsSinceSnapshot: Int,
        store: any StoryboardStore, bus: any SessionBus = LocalSessionBus(), node: String = "", editorBase: Int = 0,
        settings: Settings, now: @escaping @Sendable () -> Date, logger: Logger
    ) {
        self.id = id
        self.log = LiveLog(
            document: document, history: Array(recentEdits.suffix(Settings.missedLimit)),
            historyLimit: Settings.missedLimit, store: StoryboardLogStore(store: store, storyboardId: id),
            name: "storyboard \(id)", appendAttempts: settings.appendAttempts, now: now, logger: logger)
        self.editsSinceSnapshot = editsSinceSnapshot
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
        await log.gate.enter()
        defer { log.gate.leave() }
        guard editors.count < settings.maxEditors else { return nil }
        await catchUpHoldingGate()
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
                    seq: seq, storyboard: content, you: info, editors: allEditors(),
                    missed: lastSeq.flatMap(missed(after:)))))
        announceEditors(except: number)
        await shareEditors()
        return number
    }

    /// The `edited` frames after `lastSeq`, when this desk has every one of them.
    private func missed(after lastSeq: Int) -> [StoryboardEdited]? {
        guard lastSeq >= 0, lastSeq <= seq, seq - lastSeq <= Settings.missedLimit,
            let stored = log.stored(after: lastSeq, limit: Settings.missedLimit), stored.count == seq - lastSeq
        else { return nil }
        let missed = stored.compactMap(StoryboardEdited.init)
        return missed.count == stored.count ? missed : nil
    }

    /// The others are told, on every node (they clear this editor's cursor and stroke in progress).
    func leave(_ editor: Int) async {
        guard editors.removeValue(forKey: editor) != nil else { return }
        announceEditors(except: nil)
        await shareEditors()
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
        let frame = Frames.encode(StoryboardEditors(editors: allEditors()))
        for (number, editor) in editors where number != newcomer { editor.outbox.push(frame) }
    }

    /// This node's editors and those other nodes last told of.
    private func allEditors() -> [StoryboardEditorInfo] {
        (editors.values.map(\.info) + remoteEditors.values.flatMap(\.editors)).sorted()
    }

    /// Tells the other nodes who edits this project here (none: this desk is let go): after a
    /// join or a leave, at every periodic check, and to a node heard of for the first time.
    func shareEditors() async {
        let frame = Frames.encode(StoryboardEditors(editors: editors.values.map(\.info).sorted()))
        await bus.note(
            SessionNote(
                node: node, sessionId: id, code: id, kind: .ephemeral(key: Self.editorsKey, frame: frame),
                document: .storyboard))
    }

    /// Another node's editors of this project: the list every editor here sees includes them.
    func editorsElsewhere(_ frame: ByteBuffer, from other: String) async {
        struct List: Decodable { let editors: [StoryboardEditorInfo] }
        guard let list = try? JSONDecoder().decode(List.self, from: Data(frame.readableBytesView)) else { return }
        let known = remoteEditors[other] != nil
        let before = remoteEditors[other]?.editors
        remoteEditors[other] = list.editors.isEmpty ? nil : (list.editors, now())
        if before != remoteEditors[other]?.editors { announceEditors(except: nil) }
        // A node heard of for the first time learns of this one's editors in turn.
        if !known, !list.editors.isEmpty, !editors.isEmpty { await shareEditors() }
    }

    /// The periodic check: this node's editors again for the others, and those of a node not
    /// heard of for ``Settings/remoteEditorsLifetime`` forgotten.
    func refreshEditors() async {
        let limit = now().addingTimeInterval(-Settings.remoteEditorsLifetime)
        let gone = remoteEditors.filter { $0.value.at < limit }.map(\.key)
        for node in gone { remoteEditors[node] = nil }
        if !gone.isEmpty { announceEditors(except: nil) }
        if !editors.isEmpty { await shareEditors() }
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

    /// Another node's stroke in progress or cursor (`key`: `drawing.<editor>` or `cursor.<editor>`),
    /// or its editors (``editorsKey``).
    func relayed(key: String, frame: ByteBuffer, from other: String) async {
        if key == Self.editorsKey { return await editorsElsewhere(frame, from: other) }
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

    /// Applies, stores and sends one edit (or an undo or redo) of `user`'s, answering `id` on
    /// `outbox` with an ack or an error.
    func perform(_ request: Request, id: String, user: UserRecord, outbox: Outbox) async {
        let key = log.document.commandKey(id, from: user.id)
        awaitingAck[key, default: []].append((id, outbox))
        do throws(StoryboardError) {
            let seq = try await log.perform(request, id: id, from: user.id, for: self)
            // Not delivered by this call (an id taken already): acknowledged with its seq.
            for waiting in awaitingAck.removeValue(forKey: key) ?? [] {
                waiting.outbox.push(Frames.encode(StoryboardAck(id: waiting.id, seq: seq)))
            }
        } catch {
            awaitingAck.removeValue(forKey: key)
            outbox.push(Frames.encode(StoryboardErrorMessage(id: id, error)))
        }
    }

    /// Sends a stored edit to this node's editors.
    private func publish(_ frame: Outbox.Frame) {
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

    /// Another node stored edits up to `seq` (a hint): take them, unless this desk has them.
    /// Without a `seq` (the bus reconnected, the periodic check), takes whatever the store has
    /// beyond this desk.
    func catchUp(to seq: Int? = nil) async {
        await log.catchUp(to: seq, for: self)
    }

    /// The content and its seq as new as the store (a REST read, an export, present).
    func current() async -> (content: Storyboard, seq: Int) {
        await log.gate.enter()
        defer { log.gate.leave() }
        await catchUpHoldingGate()
        return (content, seq)
    }

    /// Takes the edits stored after this desk's seq by others, in order; the caller holds the
    /// gate. A store that cannot be read leaves the desk as it was (the next hint, check or read
    /// catches up).
    private func catchUpHoldingGate() async {
        do {
            try await log.catchUpHoldingGate(for: self)
        } catch {
            logger.warning("storyboard \(self.id): could not catch up from the store: \(error)")
        }
    }

    /// Remembers the ids of edits stored before this desk opened.
    func remember(_ stored: [(key: String, seq: Int)]) {
        for (key, seq) in stored { log.document.rememberCommand(key, seq: seq) }
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
    /// The bus key of a node's list of editors.
    static let editorsKey = "editors"
}

extension Storyboard {
    var shotCount: Int { scenes.reduce(0) { $0 + $1.shots.count } }
}

/// The storyboard on the live engine: how its log's edits reach the editors here and the other
/// nodes.
extension StoryboardDesk: LiveLogOwner {
    typealias Document = StoryboardDocument
    typealias EncodedEvent = Outbox.Frame

    struct UnreadableEdit: Error, CustomStringConvertible {
        let seq: Int
        var description: String { "stored edit \(seq) cannot be read" }
    }

    func frames(for event: StoryboardLogEntry) throws(UnreadableEdit) -> Outbox.Frame {
        guard let edited = StoryboardEdited(event) else { throw UnreadableEdit(seq: event.seq) }
        return Outbox.Frame(Frames.encode(edited))
    }

    func frames(forStored stored: StoryboardLogEntry) throws(UnreadableEdit) -> Outbox.Frame { try frames(for: stored) }

    /// The author's ack first, then `edited` to every editor here (the author too).
    func deliver(_ decision: StoryboardDecision, frames: [Outbox.Frame]) async {
        if let key = decision.entry.commandKey {
            for waiting in awaitingAck.removeValue(forKey: key) ?? [] {
                waiting.outbox.push(Frames.encode(StoryboardAck(id: waiting.id, seq: decision.ackSeq)))
            }
        }
        for frame in frames { publish(frame) }
    }

    func deliver(caughtUp stored: StoryboardLogEntry, frames: Outbox.Frame?, actions: [StoryboardAction]) async {
        if let frames { publish(frames) }
    }

    func announce(_ decision: StoryboardDecision) async {
        await bus.appended(AppendedHint(node: node, sessionId: id, code: id, seq: decision.ackSeq, kind: .storyboard))
    }
}

/// A storyboard's edits in the store (`storyboard_edits`), for its ``LiveLog``: one row per edit,
/// with the project's counts beside it; read back in order.
struct StoryboardLogStore: LiveLogStore {
    typealias Document = StoryboardDocument

    let store: any StoryboardStore
    let storyboardId: String

    func append(_ decision: StoryboardDecision, after seq: Int, at time: Date) async throws {
        let entry = decision.entry
        let edit = try entry.edit.map { String(decoding: try StoryboardDesk.encoder.encode($0), as: UTF8.self) } ?? "{}"
        try await store.appendStoryboardEdits(
            [
                StoryboardEditRecord(
                    storyboardId: storyboardId, seq: entry.seq, authorId: entry.author, commandKey: entry.commandKey,
                    shotId: entry.edit?.touchedShot, edit: edit, createdAt: time)
            ], summary: StoryboardSummaryChange(sceneCount: decision.sceneCount, shotCount: decision.shotCount))
    }

    func events(after seq: Int) async throws -> [StoryboardLogEntry] {
        try await store.storyboardEdits(storyboardId: storyboardId, afterSeq: seq, throughSeq: nil).map(\.entry)
    }
}

extension StoryboardEditRecord {
    /// The edit as the live log holds it (its edit nil when it cannot be read).
    var entry: StoryboardLogEntry {
        StoryboardLogEntry(
            seq: seq, author: authorId, commandKey: commandKey,
            edit: try? JSONDecoder().decode(StoryboardEdit.self, from: Data(edit.utf8)), at: createdAt)
    }
}
