import Foundation
import Testing

@testable import PodiumCore

/// A storyboard as a live document: each decision is one edit with the next seq, stamped with its
/// author and keyed by who sent it; undo touches only one's own edits; another node's edits are
/// applied in order, their ids remembered, and one that cannot be read still moves the seq on.
@Suite("A storyboard as a live document")
struct StoryboardDocumentTests {
    static func document() -> StoryboardDocument {
        StoryboardDocument(content: .empty(firstScene: "sc", firstShot: "sh", layer: "ly"), seq: 0)
    }

    static func stroke(_ id: String) -> SketchStroke {
        SketchStroke(
            id: id, author: "", tool: .pen, color: "#222222", width: 0.004, points: [[0.1, 0.1, 0.5], [0.2, 0.2, 0.5]])
    }

    static func strokes(_ document: StoryboardDocument) -> [String] {
        document.content.scenes.flatMap(\.shots).flatMap(\.layers).flatMap(\.strokes).map(\.id)
    }

    @Test func aDecisionIsOneStampedEditWithTheNextSeq() throws {
        var document = Self.document()
        let decision = try document.take(
            .edit(.addStrokes(shot: "sh", layer: "ly", strokes: [Self.stroke("s1")])), id: "e1", from: "u_ada", at: 100)
        #expect(decision.ackSeq == 1 && document.seq == 1)
        #expect(decision.entry.commandKey == "u_ada:e1" && decision.entry.commandID == "e1")
        #expect(decision.entry.at == Date(timeIntervalSince1970: 100))
        #expect(decision.sceneCount == 1 && decision.shotCount == 1)
        guard case .addStrokes(_, _, let strokes, _)? = decision.entry.edit else {
            Issue.record("not an addStrokes: \(String(describing: decision.entry.edit))")
            return
        }
        #expect(strokes.map(\.author) == ["u_ada"])
        #expect(document.commandKey("e1", from: "u_bob") != decision.entry.commandKey)
    }

    @Test func aRefusalLeavesTheDocumentAsItWas() {
        var document = Self.document()
        #expect(throws: StoryboardError.unknownLayer) {
            try document.take(
                .edit(.addStrokes(shot: "sh", layer: "nope", strokes: [Self.stroke("s1")])), id: "e1", from: "u", at: 0)
        }
        #expect(throws: StoryboardError.nothingToUndo) { try document.take(.undo, id: "e2", from: "u", at: 0) }
        #expect(document.seq == 0 && Self.strokes(document).isEmpty)
    }

    @Test func anotherNodesEditsAreAppliedInOrderAndTheirIdsRemembered() throws {
        var document = Self.document()
        _ = try document.catchUp(
            with: StoryboardLogEntry(
                seq: 1, author: "u_bob", commandKey: "u_bob:b1",
                edit: .addStrokes(shot: "sh", layer: "ly", strokes: [Self.stroke("s-bob")]), at: Date()))
        // Unreadable: skipped, the seq goes on.
        _ = try document.catchUp(with: StoryboardLogEntry(seq: 2, author: "u_bob", commandKey: nil, edit: nil, at: Date()))
        #expect(document.seq == 2 && Self.strokes(document) == ["s-bob"])
        #expect(document.recentCommands.seq(for: "u_bob:b1") == 1)
        // Bob's undo history came with it; Ada has nothing to undo.
        #expect(throws: StoryboardError.nothingToUndo) { try document.take(.undo, id: "a1", from: "u_ada", at: 0) }
        let undo = try document.take(.undo, id: "b2", from: "u_bob", at: 0)
        #expect(undo.ackSeq == 3 && Self.strokes(document).isEmpty)
    }

    @Test func theEnginesOwnRefusalsHaveTheSocketsCodes() {
        #expect(StoryboardError.contended.code == "retry")
        #expect(StoryboardError.unavailable.code == "unavailable")
        #expect(StoryboardError.unencodable.code == "internal")
    }
}
