import Foundation

/// A storyboard project as a live document (``LiveDocument``): its content, each person's undo
/// history, the seq of its last edit and the ids of the edits taken recently. The server's live
/// engine (`LiveLog`) runs it as it runs a session: one gate, decide on a copy, append, fan out,
/// hint the other nodes, catch up.
///
/// A command is one edit, or an undo or redo of the sender's own edits (made into an edit from
/// their history); each decision is one edit with the next seq, stamped with its author.
public struct StoryboardDocument: LiveDocument {
    public enum Command: Sendable, Equatable {
        case edit(StoryboardEdit)
        case undo
        case redo
    }

    /// The user id of whoever edits.
    public typealias Sender = String
    public typealias Decision = StoryboardDecision
    public typealias Failure = StoryboardError

    public private(set) var content: Storyboard
    public private(set) var history: StoryboardHistory
    public private(set) var seq: Int
    public private(set) var recentCommands: RecentCommands

    public init(
        content: Storyboard, seq: Int, history: StoryboardHistory = StoryboardHistory(),
        recentCommands: RecentCommands = RecentCommands()
    ) {
        self.content = content
        self.seq = seq
        self.history = history
        self.recentCommands = recentCommands
    }

    /// Edit ids are the editor's: two people may choose the same one.
    public func commandKey(_ id: String, from user: String) -> String { "\(user):\(id)" }

    public mutating func rememberCommand(_ key: String, seq: Int) { recentCommands.remember(key, seq: seq) }

    public mutating func take(_ command: Command, id: String, from user: String, at time: Double) throws(StoryboardError)
        -> StoryboardDecision
    {
        var next = content
        var nextHistory = history
        let edit: StoryboardEdit
        switch command {
        case .edit(let requested):
            // Recorded and broadcast as stored: each new stroke with its author.
            let stamped = requested.stamped(by: user)
            let inverse = try next.apply(stamped, by: user)
            nextHistory.record(inverse: inverse, author: user)
            edit = stamped
        case .undo:
            guard let undone = try nextHistory.undo(author: user, in: &next) else { throw StoryboardError.nothingToUndo }
            edit = undone
        case .redo:
            guard let redone = try nextHistory.redo(author: user, in: &next) else { throw StoryboardError.nothingToRedo }
            edit = redone
        }
        content = next
        history = nextHistory
        seq += 1
        return StoryboardDecision(
            entry: StoryboardLogEntry(
                seq: seq, author: user, commandKey: commandKey(id, from: user), edit: edit,
                at: Date(timeIntervalSince1970: time)),
            sceneCount: content.scenes.count, shotCount: content.scenes.reduce(0) { $0 + $1.shots.count })
    }

    /// Applies an edit another node stored. It applied when it was made, to this same content; one
    /// that does not (a bug) or could not be read (``StoryboardLogEntry/edit`` nil) is skipped, so
    /// the seq goes on and the project keeps working.
    public mutating func catchUp(with stored: StoryboardLogEntry) throws(StoryboardError) -> [StoryboardAction] {
        seq = stored.seq
        if let key = stored.commandKey { recentCommands.remember(key, seq: stored.seq) }
        if let edit = stored.edit, let inverse = try? content.apply(edit, by: stored.author) {
            history.record(inverse: inverse, author: stored.author)
        }
        return []
    }
}

/// One stored edit of a storyboard, as decided and as read back from the store.
public struct StoryboardLogEntry: Sendable, Equatable {
    public let seq: Int
    /// The user whose edit it is.
    public let author: String
    /// `user:id` (nil: an edit stored without one).
    public let commandKey: String?
    /// Nil when the stored edit could not be read.
    public let edit: StoryboardEdit?
    public let at: Date

    public init(seq: Int, author: String, commandKey: String?, edit: StoryboardEdit?, at: Date) {
        self.seq = seq
        self.author = author
        self.commandKey = commandKey
        self.edit = edit
        self.at = at
    }

    /// The id the author's editor gave the edit.
    public var commandID: String? { commandKey.map { String($0.drop(while: { $0 != ":" }).dropFirst()) } }
}

/// What an edit causes besides being sent: nothing.
public enum StoryboardAction: Sendable {}

/// One edit decided, already applied to the document that decided it, with the project's counts
/// after it (kept on the project's record).
public struct StoryboardDecision: LiveDecision {
    public let entry: StoryboardLogEntry
    public let sceneCount: Int
    public let shotCount: Int

    public var changesSomething: Bool { true }
    public var events: [StoryboardLogEntry] { [entry] }
    public var ackSeq: Int { entry.seq }
    public var actions: [StoryboardAction] { [] }

    public func storedEvents(at time: Date) -> [StoryboardLogEntry] {
        [StoryboardLogEntry(seq: entry.seq, author: entry.author, commandKey: entry.commandKey, edit: entry.edit, at: time)]
    }
}

extension StoryboardError: LiveFailure {
    /// An edit the server could not encode for the editors (refused before it was stored).
    public static let unencodable = StoryboardError(code: "internal", message: "The server could not send that edit.")
    /// The store failed: nothing changed, send it again.
    public static let unavailable = StoryboardError(
        code: "unavailable", message: "The server could not save that. Try again in a moment.")
    /// Others' edits (on other nodes) kept being stored first, even after the edit was decided
    /// again on the newer content: nothing changed, the editor sends it again with the same id.
    public static let contended = StoryboardError(
        code: "retry", message: "Others edited at the same moment. Send this edit again.")
}
