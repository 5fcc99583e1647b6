import Foundation
import Testing

@testable import PodiumCore

/// The edits' JSON: the examples here are the ones in docs/protocol.md.
@Suite("Storyboard edit JSON")
struct StoryboardEditJSONTests {
    static let stroke = SketchStroke(
        id: "k1", author: "u1", tool: .pen, color: "#112233", width: 0.01, points: [[0.1, 0.2, 0.5], [0.25, 0.3, 0.75]])
    static let strokeJSON =
        ##"{"author":"u1","color":"#112233","id":"k1","points":[[0.1,0.2,0.5],[0.25,0.3,0.75]],"tool":"pen","width":0.01}"##
    static let layer = SketchLayer(id: "l9", name: "Layer 1")
    static let layerJSON =
        ##"{"id":"l9","locked":false,"name":"Layer 1","opacity":1,"strokes":[],"transform":{"rotation":0,"scale":1,"x":0,"y":0},"visible":true}"##
    static let shot = Shot(id: "t9", layers: [layer])
    static let shotJSON =
        ##"{"action":"","background":"#ffffff","dialogue":"","duration":3,"id":"t9","layers":["## + layerJSON
        + ##"],"notes":"","number":""}"##

    /// One example of every case with its exact JSON (keys sorted).
    static let examples: [(StoryboardEdit, String)] = [
        (.addScene(scene: "s3", title: "Night", index: 1), ##"{"index":1,"op":"addScene","scene":"s3","title":"Night"}"##),
        (.renameScene(scene: "s1", title: "Dawn"), ##"{"op":"renameScene","scene":"s1","title":"Dawn"}"##),
        (.deleteScene(scene: "s2"), ##"{"op":"deleteScene","scene":"s2"}"##),
        (.moveScene(scene: "s2", index: 0), ##"{"index":0,"op":"moveScene","scene":"s2"}"##),
        (.addShot(scene: "s1", index: 1, shot: shot), ##"{"index":1,"op":"addShot","scene":"s1","shot":"## + shotJSON + "}"),
        (.duplicateShot(shot: "a", newShot: "a2"), ##"{"newShot":"a2","op":"duplicateShot","shot":"a"}"##),
        (.deleteShot(shot: "b"), ##"{"op":"deleteShot","shot":"b"}"##),
        (.moveShot(shot: "b", scene: "s2", index: 0), ##"{"index":0,"op":"moveShot","scene":"s2","shot":"b"}"##),
        (
            .updateShot(shot: "b", duration: 4.5, dialogue: "Run!", background: "#000000"),
            ##"{"background":"#000000","dialogue":"Run!","duration":4.5,"op":"updateShot","shot":"b"}"##
        ),
        (.renumberShots(), ##"{"op":"renumberShots"}"##),
        (.renumberShots(numbers: ["a": "1", "b": "2A"]), ##"{"numbers":{"a":"1","b":"2A"},"op":"renumberShots"}"##),
        (.restoreShot(shot: shot), ##"{"op":"restoreShot","shot":"## + shotJSON + "}"),
        (.addLayer(shot: "a", layer: layer), ##"{"layer":"## + layerJSON + ##","op":"addLayer","shot":"a"}"##),
        (
            .updateLayer(
                shot: "a", layer: "aL1", visible: false, opacity: 0.5,
                transform: LayerTransform(x: 0.1, y: -0.2, scale: 2, rotation: 0.5)),
            ##"{"layer":"aL1","op":"updateLayer","opacity":0.5,"shot":"a","transform":{"rotation":0.5,"scale":2,"x":0.1,"y":-0.2},"visible":false}"##
        ),
        (.moveLayer(shot: "a", layer: "aL1", index: 2), ##"{"index":2,"layer":"aL1","op":"moveLayer","shot":"a"}"##),
        (.deleteLayer(shot: "a", layer: "aL2"), ##"{"layer":"aL2","op":"deleteLayer","shot":"a"}"##),
        (
            .groupLayers(shot: "a", layers: ["aL1", "aL2"], group: "g1"),
            ##"{"group":"g1","layers":["aL1","aL2"],"op":"groupLayers","shot":"a"}"##
        ),
        (.ungroupLayers(shot: "a", group: "g1"), ##"{"group":"g1","op":"ungroupLayers","shot":"a"}"##),
        (
            .addStrokes(shot: "a", layer: "aL1", strokes: [stroke]),
            ##"{"layer":"aL1","op":"addStrokes","shot":"a","strokes":["## + strokeJSON + "]}"
        ),
        (
            .addStrokes(shot: "a", layer: "aL1", strokes: [stroke], indexes: [0]),
            ##"{"indexes":[0],"layer":"aL1","op":"addStrokes","shot":"a","strokes":["## + strokeJSON + "]}"
        ),
        (
            .removeStrokes(shot: "a", layer: "aL1", strokes: ["a1", "a2"]),
            ##"{"layer":"aL1","op":"removeStrokes","shot":"a","strokes":["a1","a2"]}"##
        ),
        (
            .replaceStrokes(shot: "a", layer: "aL1", remove: ["a2"], add: [stroke]),
            ##"{"add":["## + strokeJSON + ##"],"layer":"aL1","op":"replaceStrokes","remove":["a2"],"shot":"a"}"##
        ),
    ]

    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func everyCaseHasAnExample() {
        #expect(Set(Self.examples.map(\.0.op)) == Set(StoryboardEdit.ops))
    }

    @Test(arguments: 0..<examples.count)
    func exactJSONAndRoundTrip(index: Int) throws {
        let (edit, expected) = Self.examples[index]
        #expect(try Self.json(edit) == expected)
        #expect(try JSONDecoder().decode(StoryboardEdit.self, from: Data(expected.utf8)) == edit)
    }

    @Test func everyInverseRoundTrips() throws {
        var random = SeededRandom(seed: 42)
        var board = Sample.board
        var seen = Set<String>()
        for _ in 0..<300 {
            let edit = RandomEdits.edit(for: board, using: &random)
            let data = try JSONEncoder().encode(edit)
            #expect(try JSONDecoder().decode(StoryboardEdit.self, from: data) == edit)
            guard let inverse = try? board.apply(edit, by: "u1") else { continue }
            seen.insert(inverse.op)
            #expect(try JSONDecoder().decode(StoryboardEdit.self, from: JSONEncoder().encode(inverse)) == inverse)
        }
        #expect(try JSONDecoder().decode(Storyboard.self, from: JSONEncoder().encode(board)) == board)
        #expect(seen.count >= 15)
    }

    @Test func unknownOpsAreRefusedClearly() {
        do {
            _ = try JSONDecoder().decode(StoryboardEdit.self, from: Data(##"{"op":"explode","shot":"a"}"##.utf8))
            Issue.record("decoded an unknown op")
        } catch {
            #expect(String(describing: error).contains(##"Unknown storyboard edit op "explode""##))
        }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(StoryboardEdit.self, from: Data(##"{"shot":"a"}"##.utf8)) }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(StoryboardEdit.self, from: Data(##"{"op":"moveScene","scene":"a","index":1.5}"##.utf8))
        }
    }

    @Test func clientsMayLeaveOutNumbersAuthorsAndGroups() throws {
        let shot = try JSONDecoder().decode(
            Shot.self,
            from: Data(
                ##"{"action":"","background":"#ffffff","dialogue":"","duration":3,"id":"t9","layers":[],"notes":""}"##.utf8))
        #expect(shot.number == "")
        let stroke = try JSONDecoder().decode(
            SketchStroke.self,
            from: Data(##"{"color":"#112233","id":"k1","points":[[0,0,1]],"tool":"marker","width":0.01}"##.utf8))
        #expect(stroke.author == "" && stroke.tool == .marker)
        var grouped = Self.layer
        grouped.group = "g1"
        #expect(try Self.json(grouped).contains(##""group":"g1""##))
        #expect(try !Self.json(Self.layer).contains("group"))
    }

    @Test func errorsHaveTheirCodes() throws {
        #expect(
            try Self.json(StoryboardError.lastLayer) == ##"{"code":"last_layer","message":"A shot keeps at least one layer."}"##)
        let codes = [
            StoryboardError.unknownScene, .unknownShot, .unknownLayer, .unknownStroke, .duplicateID, .layerLocked, .lastLayer,
            .nothingToUndo, .nothingToRedo, .invalid("x"), .tooLarge("x"),
        ].map(\.code)
        #expect(
            codes == [
                "unknown_scene", "unknown_shot", "unknown_layer", "unknown_stroke", "duplicate_id", "layer_locked", "last_layer",
                "nothing_to_undo", "nothing_to_redo", "invalid_edit", "too_large",
            ])
    }
}
