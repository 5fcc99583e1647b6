import Foundation
import Testing

@testable import PodiumCore

/// A reference image on a layer: its JSON, its rules, undo of its placing, its copy with a shot;
/// and the edit the server records and sends says who drew each new stroke.
@Suite("Storyboard reference images and stamped edits")
struct StoryboardReferenceImageTests {
    static let blob = String(repeating: "3c", count: 32) + ".webp"

    static func reference(_ id: String = "ref", opacity: Double = 0.4, image: LayerImage? = nil) -> SketchLayer {
        SketchLayer(
            id: id, name: "Reference", opacity: opacity, image: image ?? LayerImage(blob: blob, width: 1200, height: 1600))
    }

    @Test func aLayersImageIsInItsJSONOnlyWhenItHasOne() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let plain = String(decoding: try encoder.encode(Sample.layer("l")), as: UTF8.self)
        #expect(!plain.contains("image"))
        let json = String(decoding: try encoder.encode(Self.reference()), as: UTF8.self)
        #expect(json.contains(#""image":{"blob":"\#(Self.blob)","height":1600,"width":1200}"#), "\(json)")
        let edit = try JSONDecoder().decode(
            StoryboardEdit.self,
            from: Data(
                #"""
                {"op":"addLayer","shot":"a","index":0,"layer":{"id":"r","name":"Photo","visible":true,"locked":false,
                "opacity":0.3,"transform":{"x":0,"y":0,"scale":2,"rotation":0},"strokes":[],
                "image":{"blob":"\#(Self.blob)","width":640,"height":480}}}
                """#.utf8))
        guard case .addLayer(_, let layer, _) = edit else { Issue.record("\(edit)"); return }
        #expect(layer.image == LayerImage(blob: Self.blob, width: 640, height: 480) && layer.transform.scale == 2)
    }

    @Test func aReferenceIsPlacedDimmedLockedUndoneAndCopiedWithItsShot() throws {
        var board = Sample.board
        let inverse = try board.apply(.addLayer(shot: "a", layer: Self.reference(), index: 0), by: "u1")
        #expect(board.layerIDs("a") == ["ref", "aL1", "aL2"])
        #expect(board.layer("a", "ref")?.image?.width == 1200)
        try board.apply(.updateLayer(shot: "a", layer: "ref", locked: true, opacity: 0.2), by: "u1")
        // Locked: strokes go on another layer, and the picture stays put.
        #expect(throws: StoryboardError.layerLocked) {
            try board.apply(.addStrokes(shot: "a", layer: "ref", strokes: [Sample.stroke("x")]), by: "u1")
        }
        #expect(throws: StoryboardError.layerLocked) {
            try board.apply(.updateLayer(shot: "a", layer: "ref", transform: LayerTransform(scale: 2)), by: "u1")
        }
        try board.apply(.duplicateShot(shot: "a", newShot: "a2"), by: "u1")
        #expect(board.layer("a2", "a2-ref")?.image == board.layer("a", "ref")?.image)
        #expect(board.layer("a2", "a2-ref")?.opacity == 0.2)
        try board.apply(.updateLayer(shot: "a", layer: "ref", locked: false), by: "u1")
        try board.apply(inverse, by: "u1")
        #expect(board.layerIDs("a") == ["aL1", "aL2"])
    }

    @Test func aReferenceImageMustNameAPictureBlobOfASensibleSize() {
        var board = Sample.board
        let bad: [LayerImage] = [
            LayerImage(blob: "photo.jpg", width: 10, height: 10),
            LayerImage(blob: String(repeating: "AB", count: 32) + ".jpg", width: 10, height: 10),  // upper case
            LayerImage(blob: String(repeating: "ab", count: 32) + ".gif", width: 10, height: 10),
            LayerImage(blob: "../" + String(repeating: "ab", count: 31) + ".png", width: 10, height: 10),
            LayerImage(blob: Self.blob, width: 0, height: 10),
            LayerImage(blob: Self.blob, width: 10, height: StoryboardLimits.imageSide + 1),
        ]
        for image in bad {
            #expect(throws: StoryboardError.self) {
                try board.apply(.addLayer(shot: "a", layer: Self.reference(image: image)), by: "u1")
            }
            #expect(board == Sample.board)
        }
        #expect(throws: Never.self) {
            try board.apply(
                .addLayer(
                    shot: "a", layer: Self.reference(image: LayerImage(blob: Self.blob, width: 16384, height: 1))), by: "u1")
        }
    }

    @Test func theEditThatIsRecordedSaysWhoDrewEachNewStroke() throws {
        let anonymous = Sample.stroke("n1")
        let signed = Sample.stroke("n2", author: "someone")
        let edits: [StoryboardEdit] = [
            .addStrokes(shot: "a", layer: "aL1", strokes: [anonymous, signed]),
            .replaceStrokes(shot: "a", layer: "aL1", remove: ["a1"], add: [anonymous]),
            .addLayer(shot: "a", layer: SketchLayer(id: "new", name: "New", strokes: [anonymous])),
            .addShot(scene: "s1", shot: Sample.shot("d", layers: [SketchLayer(id: "dL", name: "L", strokes: [anonymous])])),
            .addScene(
                scene: "s9", title: "More",
                shots: [Sample.shot("e", layers: [SketchLayer(id: "eL", name: "L", strokes: [anonymous])])]),
            .restoreShot(shot: Sample.shot("b", number: "2", layers: [SketchLayer(id: "bL", name: "L", strokes: [anonymous])])),
        ]
        for edit in edits {
            let stamped = edit.stamped(by: "u7")
            let encoded = String(decoding: try JSONEncoder().encode(stamped), as: UTF8.self)
            #expect(!encoded.contains(#""author":"""#), "\(encoded)")
            #expect(encoded.contains(#""author":"u7""#), "\(encoded)")
            // It applies to the same content as the edit sent.
            var sent = Sample.board
            var recorded = Sample.board
            try sent.apply(edit, by: "u7")
            try recorded.apply(stamped, by: "u7")
            #expect(sent == recorded)
        }
        guard case .addStrokes(_, _, let strokes, _) = edits[0].stamped(by: "u7") else { return }
        #expect(strokes.map(\.author) == ["u7", "someone"])
        #expect(StoryboardEdit.deleteShot(shot: "a").stamped(by: "u7") == .deleteShot(shot: "a"))
    }
}
