/// Undo and redo per person: for each author, the inverses of their own edits (newest last, at
/// most ``limit``) and a redo stack. Undo never touches anyone else's edits.
public struct StoryboardHistory: Codable, Sendable, Equatable {
    public static let limit = 200

    public private(set) var undoStacks: [String: [StoryboardEdit]] = [:]
    public private(set) var redoStacks: [String: [StoryboardEdit]] = [:]

    public init() {}

    /// Remembers the inverse of an edit `author` made (not an undo or redo); clears their redo stack.
    public mutating func record(inverse: StoryboardEdit, author: String) {
        Self.push(inverse, onto: &undoStacks[author, default: []])
        redoStacks[author] = nil
    }

    /// Undoes `author`'s newest edit that can still be undone: its inverse is applied as a new
    /// edit by them, and that edit's inverse goes on their redo stack. Inverses that no longer
    /// apply (someone deleted what they touch) are dropped on the way.
    ///
    /// Returns the edit applied (to store and broadcast); throws `nothing_to_undo` when none
    /// applies (it never returns nil).
    public mutating func undo(author: String, in storyboard: inout Storyboard) throws(StoryboardError) -> StoryboardEdit? {
        guard let (edit, inverse) = Self.popApplicable(&undoStacks[author, default: []], author, &storyboard) else {
            undoStacks[author] = nil
            throw .nothingToUndo
        }
        Self.push(inverse, onto: &redoStacks[author, default: []])
        return edit
    }

    /// Redoes what `author` undid last, as ``undo(author:in:)`` does the other way.
    public mutating func redo(author: String, in storyboard: inout Storyboard) throws(StoryboardError) -> StoryboardEdit? {
        guard let (edit, inverse) = Self.popApplicable(&redoStacks[author, default: []], author, &storyboard) else {
            redoStacks[author] = nil
            throw .nothingToRedo
        }
        Self.push(inverse, onto: &undoStacks[author, default: []])
        return edit
    }

    public func canUndo(_ author: String) -> Bool { !(undoStacks[author] ?? []).isEmpty }
    public func canRedo(_ author: String) -> Bool { !(redoStacks[author] ?? []).isEmpty }

    private static func push(_ edit: StoryboardEdit, onto stack: inout [StoryboardEdit]) {
        stack.append(edit)
        if stack.count > limit { stack.removeFirst(stack.count - limit) }
    }

    /// Pops edits until one applies; returns it with its inverse.
    private static func popApplicable(
        _ stack: inout [StoryboardEdit], _ author: String, _ storyboard: inout Storyboard
    ) -> (StoryboardEdit, StoryboardEdit)? {
        while let edit = stack.popLast() {
            if let inverse = try? storyboard.apply(edit, by: author) { return (edit, inverse) }
        }
        return nil
    }
}
