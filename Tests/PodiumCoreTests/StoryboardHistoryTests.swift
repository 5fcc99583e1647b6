import Testing

@testable import PodiumCore

/// Undo and redo per person, as the server runs them: each edit's inverse recorded for its author.
@Suite("Storyboard undo and redo")
struct StoryboardHistoryTests {
    var board = Sample.board
    var history = StoryboardHistory()

    mutating func edit(_ edit: StoryboardEdit, by author: String) throws {
        history.record(inverse: try board.apply(edit, by: author), author: author)
    }

    func draw(_ id: String) -> StoryboardEdit {
        .addStrokes(shot: "b", layer: "bL1", strokes: [Sample.stroke(id)])
    }

    @Test mutating func undoTakesOnlyOnesOwnEditAndRedoBringsItBack() throws {
        try edit(draw("ann1"), by: "ann")
        try edit(draw("ben1"), by: "ben")
        #expect(board.strokeIDs("b", "bL1") == ["ann1", "ben1"])

        let undone = try history.undo(author: "ann", in: &board)
        #expect(undone == .removeStrokes(shot: "b", layer: "bL1", strokes: ["ann1"]))
        #expect(board.strokeIDs("b", "bL1") == ["ben1"])
        #expect(!history.canUndo("ann") && history.canUndo("ben") && history.canRedo("ann"))

        let redone = try history.redo(author: "ann", in: &board)
        #expect(redone == .addStrokes(shot: "b", layer: "bL1", strokes: [Sample.stroke("ann1", author: "ann")], indexes: [0]))
        // Redo puts it back where it was, under Ben's stroke.
        #expect(board.strokeIDs("b", "bL1") == ["ann1", "ben1"])
        #expect(board.layer("b", "bL1")?.strokes.map(\.author) == ["ann", "ben"])
        #expect(throws: StoryboardError.nothingToRedo) { try history.redo(author: "ann", in: &board) }
        // And undo again.
        try history.undo(author: "ann", in: &board)
        #expect(board.strokeIDs("b", "bL1") == ["ben1"])
        #expect(throws: StoryboardError.nothingToUndo) { try history.undo(author: "ann", in: &board) }
        #expect(throws: StoryboardError.nothingToUndo) { try history.undo(author: "cat", in: &board) }
    }

    @Test mutating func undoesGoNewestFirst() throws {
        try edit(.updateShot(shot: "a", dialogue: "One"), by: "ann")
        try edit(.updateShot(shot: "a", dialogue: "Two"), by: "ann")
        try edit(.renameScene(scene: "s1", title: "Ben's"), by: "ben")
        try history.undo(author: "ann", in: &board)
        #expect(board.shot(id: "a")?.dialogue == "One")
        try history.undo(author: "ann", in: &board)
        #expect(board.shot(id: "a")?.dialogue == "")
        #expect(board.scenes[0].title == "Ben's")
        try history.redo(author: "ann", in: &board)
        try history.redo(author: "ann", in: &board)
        #expect(board.shot(id: "a")?.dialogue == "Two")
    }

    @Test mutating func anInverseThatNoLongerAppliesIsSkipped() throws {
        try edit(.updateShot(shot: "c", notes: "keep"), by: "ann")
        try edit(draw("ann1"), by: "ann")
        // Ben deletes the shot Ann drew on.
        try edit(.deleteShot(shot: "b"), by: "ben")
        let before = board
        let undone = try history.undo(author: "ann", in: &board)
        #expect(undone == .updateShot(shot: "c", notes: ""))
        #expect(board.shot(id: "c")?.notes == "")
        #expect(!history.canUndo("ann"))
        // Ben's undo brings the shot back, with Ann's stroke (it was part of it).
        try history.undo(author: "ben", in: &board)
        #expect(board.strokeIDs("b", "bL1") == ["ann1"])
        _ = before
    }

    @Test mutating func aNewEditClearsTheAuthorsRedoStackOnly() throws {
        try edit(draw("ann1"), by: "ann")
        try edit(draw("ben1"), by: "ben")
        try history.undo(author: "ann", in: &board)
        try history.undo(author: "ben", in: &board)
        try edit(draw("ann2"), by: "ann")
        #expect(!history.canRedo("ann"))
        #expect(throws: StoryboardError.nothingToRedo) { try history.redo(author: "ann", in: &board) }
        try history.redo(author: "ben", in: &board)
        // Ben's stroke goes back where it was when he undid it: at the bottom.
        #expect(board.strokeIDs("b", "bL1") == ["ben1", "ann2"])
    }

    @Test mutating func stacksKeepTheNewest200() throws {
        for k in 0..<(StoryboardHistory.limit + 20) {
            try edit(.updateShot(shot: "a", dialogue: "v\(k)"), by: "ann")
        }
        #expect(history.undoStacks["ann"]?.count == StoryboardHistory.limit)
        for _ in 0..<StoryboardHistory.limit { try history.undo(author: "ann", in: &board) }
        #expect(board.shot(id: "a")?.dialogue == "v19")
        #expect(throws: StoryboardError.nothingToUndo) { try history.undo(author: "ann", in: &board) }
        #expect(history.redoStacks["ann"]?.count == StoryboardHistory.limit)
    }
}
