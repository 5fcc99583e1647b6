import Foundation
import Testing

@testable import PodiumCore

/// The recorded edit stream the browser's model (`applyEdit` in `Public/app/storyboard/model.js`)
/// is checked against (`Tests/JS/storyboard-model.test.mjs`, `make test-js`): two people's edits in the
/// server's order, some refused, some undone and redone, with the content and the inverse after
/// each edit, or the error code.
///
/// The fixture is committed, so the JavaScript test needs no Swift. This test fails when the core
/// would write something else: run it with `PODIUM_UPDATE_FIXTURES=1` to write the file anew,
/// then `make test-js`, which tells whether `model.js` still agrees.
@Suite("Storyboard edits fixture")
struct StoryboardFixtureTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/storyboard-edits.json")

    /// One edit as the server takes it: applied (with its `seq`, the content after it and its
    /// inverse) or refused (with the error's code). `via`: "undo" or "redo" when the server's
    /// history made the edit.
    struct Step: Encodable {
        var id: String
        var author: String
        var via: String?
        var edit: StoryboardEdit
        var seq: Int?
        var inverse: StoryboardEdit?
        var storyboard: Storyboard?
        var error: String?
    }

    struct Fixture: Encodable {
        var note =
            "Written by Tests/PodiumCoreTests/StoryboardFixtureTests.swift (PODIUM_UPDATE_FIXTURES=1); read by Tests/JS/storyboard-model.test.mjs."
        var initial: Storyboard
        var steps: [Step] = []
        /// Seeded random edits by two people (``RandomEdits``), many refused, from ``Sample/board``:
        /// the content is recorded after every 50th step and the last (the inverse after each).
        var random: RandomStream?
    }

    struct RandomStream: Encodable {
        var initial: Storyboard
        var steps: [Step] = []
    }

    /// Applies edits as the server does and records every step.
    struct Recorder {
        var board: Storyboard
        var history = StoryboardHistory()
        var fixture: Fixture
        var seq = 0

        init(_ board: Storyboard) {
            self.board = board
            fixture = Fixture(initial: board)
        }

        mutating func run(
            _ edit: StoryboardEdit, _ author: String, expect code: String? = nil,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            let id = "e\(fixture.steps.count + 1)"
            do {
                let inverse = try board.apply(edit, by: author)
                history.record(inverse: inverse, author: author)
                seq += 1
                fixture.steps.append(Step(id: id, author: author, edit: edit, seq: seq, inverse: inverse, storyboard: board))
                #expect(code == nil, "\(edit.op) applied; expected \(code ?? "")", sourceLocation: sourceLocation)
            } catch {
                fixture.steps.append(Step(id: id, author: author, edit: edit, error: error.code))
                #expect(error.code == code, "\(edit.op): \(error)", sourceLocation: sourceLocation)
            }
        }

        /// An undo or redo: the edit the history applies is recorded like any other.
        mutating func run(undo: Bool, _ author: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let before = board
            let edit = try #require(
                try undo ? history.undo(author: author, in: &board) : history.redo(author: author, in: &board),
                sourceLocation: sourceLocation)
            var replay = before
            let inverse = try replay.apply(edit, by: author)
            #expect(replay == board, sourceLocation: sourceLocation)
            seq += 1
            fixture.steps.append(
                Step(
                    id: "e\(fixture.steps.count + 1)", author: author, via: undo ? "undo" : "redo", edit: edit, seq: seq,
                    inverse: inverse, storyboard: board))
        }
    }

    static func pen(_ id: String, _ x: Double, author: String = "", tool: SketchStroke.Tool = .pen) -> SketchStroke {
        SketchStroke(
            id: id, author: author, tool: tool, color: "#1e88e5", width: 0.004,
            points: [[x, 0.25, 0.5], [x + 0.125, 0.5, 0.75], [x + 0.25, 0.375, 1]])
    }

    /// Ann and Ben build a small project together.
    static func stream() throws -> Fixture {
        var r = Recorder(Storyboard.empty(firstScene: "s1", firstShot: "t1", layer: "t1L1"))
        r.run(.addShot(scene: "s1", shot: Shot(id: "t2", layers: [SketchLayer(id: "t2L1", name: "Layer 1")])), "ann")
        r.run(.addScene(scene: "s2", title: "The chase"), "ben")
        r.run(.addStrokes(shot: "t1", layer: "t1L1", strokes: [pen("k1", 0.1), pen("k2", 0.3, tool: .marker)]), "ann")
        r.run(.addLayer(shot: "t1", layer: SketchLayer(id: "t1L2", name: "Colour", opacity: 0.75)), "ben")
        r.run(.addStrokes(shot: "t1", layer: "t1L2", strokes: [pen("k3", 0.5, author: "ben", tool: .pencil)]), "ben")
        r.run(
            .addShot(scene: "s2", index: 0, shot: Shot(id: "t3", duration: 2.5, layers: [SketchLayer(id: "t3L1", name: "Ink")])),
            "ben")
        r.run(.duplicateShot(shot: "t1", newShot: "t4"), "ann")
        r.run(.updateShot(shot: "t4", duration: 1.5, dialogue: "Stop!", action: "He turns.", background: "#202830"), "ben")
        r.run(
            .updateLayer(
                shot: "t1", layer: "t1L2", name: "Paint", visible: false, opacity: 0.5,
                transform: LayerTransform(x: 0.125, y: -0.25, scale: 1.5, rotation: 0.5)), "ann")
        r.run(.moveShot(shot: "t2", scene: "s2", index: 5), "ben")
        r.run(.groupLayers(shot: "t1", layers: ["t1L2", "t1L1"], group: "g1"), "ann")
        // The eraser splits k2 in two.
        r.run(.replaceStrokes(shot: "t1", layer: "t1L1", remove: ["k2"], add: [pen("k2a", 0.3), pen("k2b", 0.4)]), "ann")
        r.run(.removeStrokes(shot: "t1", layer: "t1L1", strokes: ["k1"]), "ben")
        // Refused: gone, unknown, taken, out of range, too large.
        r.run(.removeStrokes(shot: "t1", layer: "t1L1", strokes: ["k1"]), "ann", expect: "unknown_stroke")
        r.run(.addStrokes(shot: "t1", layer: "nope", strokes: [pen("k5", 0.1)]), "ann", expect: "unknown_layer")
        r.run(.renameScene(scene: "nope", title: "x"), "ben", expect: "unknown_scene")
        r.run(.updateShot(shot: "nope", notes: "x"), "ben", expect: "unknown_shot")
        r.run(.addStrokes(shot: "t1", layer: "t1L1", strokes: [pen("k3", 0.1)]), "ann", expect: "duplicate_id")
        r.run(.updateShot(shot: "t1", duration: 900), "ann", expect: "invalid_edit")
        r.run(.addStrokes(shot: "t1", layer: "t1L1", strokes: [pen("bad", 2)]), "ann", expect: "invalid_edit")
        r.run(.addScene(scene: "s9", title: String(repeating: "é", count: 201)), "ben", expect: "too_large")
        r.run(.updateLayer(shot: "t1", layer: "t1L1", locked: true), "ben")
        r.run(.addStrokes(shot: "t1", layer: "t1L1", strokes: [pen("k6", 0.2)]), "ann", expect: "layer_locked")
        r.run(.updateLayer(shot: "t1", layer: "t1L1", transform: LayerTransform(x: 0.5)), "ann", expect: "layer_locked")
        r.run(.deleteLayer(shot: "t2", layer: "t2L1"), "ann", expect: "last_layer")
        r.run(.groupLayers(shot: "t1", layers: ["t1L1"], group: "g2"), "ann", expect: "invalid_edit")
        // Undo and redo, each person their own.
        try r.run(undo: true, "ben")  // unlocks t1L1
        try r.run(undo: true, "ann")  // the eraser's split undone
        try r.run(undo: false, "ann")
        r.run(.ungroupLayers(shot: "t1", group: "g1"), "ben")
        r.run(.addStrokes(shot: "t1", layer: "t1L1", strokes: [pen("k7", 0.6), pen("k8", 0.7)], indexes: [0, 9]), "ann")
        r.run(.replaceStrokes(shot: "t1", layer: "t1L1", remove: ["k7", "k8"], add: [pen("k7m", 0.65)], indexes: [1]), "ann")
        r.run(.moveLayer(shot: "t1", layer: "t1L2", index: 0), "ben")
        r.run(.renumberShots(), "ann")
        r.run(.renumberShots(numbers: ["t4": "1A"]), "ann")
        r.run(.moveScene(scene: "s2", index: -1), "ben")
        r.run(.renameScene(scene: "s1", title: "Morning"), "ben")
        r.run(
            .restoreShot(
                shot: Shot(id: "t3", number: "", duration: 4, notes: "Version 1", layers: [SketchLayer(id: "v1", name: "Old")])),
            "ben")
        r.run(.deleteLayer(shot: "t1", layer: "t1L2"), "ben")
        try r.run(undo: true, "ben")  // the layer comes back
        r.run(.deleteShot(shot: "t4"), "ann")
        try r.run(undo: true, "ann")  // the shot comes back where it was
        r.run(.duplicateShot(shot: "t1", newShot: "t5"), "ben")
        r.run(.deleteScene(scene: "s1"), "ben")
        try r.run(undo: true, "ben")
        r.run(
            .addScene(
                scene: "s3", title: "Epilogue", index: 1, shots: [Shot(id: "t6", layers: [SketchLayer(id: "t6L1", name: "Ink")])]),
            "ann")
        r.run(.deleteScene(scene: "s3"), "ann")
        // A reference image under the drawing: placed, moved, dimmed and locked; copied with its
        // shot; refused with a blob name that is not one or a size out of range.
        let photo = LayerImage(blob: String(repeating: "ab", count: 32) + ".jpg", width: 1600, height: 900)
        r.run(
            .addLayer(shot: "t1", layer: SketchLayer(id: "t1R", name: "Reference", opacity: 0.5, image: photo), index: 0), "ann")
        r.run(
            .updateLayer(
                shot: "t1", layer: "t1R", locked: true, opacity: 0.35,
                transform: LayerTransform(x: 0.1, y: -0.05, scale: 1.25, rotation: 0.1)), "ann")
        r.run(.addStrokes(shot: "t1", layer: "t1R", strokes: [pen("k9", 0.2)]), "ben", expect: "layer_locked")
        r.run(.duplicateShot(shot: "t1", newShot: "t7"), "ben")
        r.run(
            .addLayer(
                shot: "t1", layer: SketchLayer(id: "t1X", name: "Bad", image: LayerImage(blob: "photo.jpg", width: 9, height: 9))),
            "ann", expect: "invalid_edit")
        let huge = LayerImage(blob: String(repeating: "0f", count: 32) + ".png", width: 20_000, height: 10)
        r.run(.addLayer(shot: "t1", layer: SketchLayer(id: "t1X", name: "Huge", image: huge)), "ann", expect: "invalid_edit")
        try r.run(undo: true, "ann")  // moved, dimmed and locked no more
        r.run(.deleteLayer(shot: "t1", layer: "t1R"), "ann")
        try r.run(undo: true, "ann")  // the reference comes back, picture and all
        var fixture = r.fixture
        fixture.random = try randomStream()
        return fixture
    }

    static func randomStream(count: Int = 300) throws -> RandomStream {
        var random = SeededRandom(seed: 19)
        var board = Sample.board
        var stream = RandomStream(initial: board)
        for index in 0..<count {
            let author = random.next() % 2 == 0 ? "ann" : "ben"
            let edit = RandomEdits.edit(for: board, using: &random)
            var step = Step(id: "r\(index + 1)", author: author, edit: edit)
            do {
                step.inverse = try board.apply(edit, by: author)
                if index % 50 == 49 || index == count - 1 { step.storyboard = board }
            } catch {
                step.error = error.code
            }
            stream.steps.append(step)
        }
        return stream
    }

    static func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(try stream())
        data.append(0x0A)
        return data
    }

    @Test func theStreamCoversEveryEditAndEveryRefusal() throws {
        let fixture = try Self.stream()
        let applied = Set(fixture.steps.filter { $0.error == nil }.map(\.edit.op))
        #expect(
            Set(StoryboardEdit.ops).subtracting(applied).isEmpty, "never applied: \(Set(StoryboardEdit.ops).subtracting(applied))"
        )
        let codes = Set(fixture.steps.compactMap(\.error))
        #expect(
            codes == [
                "unknown_scene", "unknown_shot", "unknown_layer", "unknown_stroke", "duplicate_id", "invalid_edit",
                "layer_locked",
                "too_large", "last_layer",
            ])
        #expect(fixture.steps.contains { $0.via == "undo" } && fixture.steps.contains { $0.via == "redo" })
    }

    @Test func theCommittedFixtureIsWhatTheCoreProduces() throws {
        let data = try Self.encoded()
        try expectCommittedFixture(data, at: Self.fixture, suite: "StoryboardFixtureTests", jsCheck: "model.js")
    }
}
