import Testing

@testable import PodiumCore

@Suite("Storyboard model")
struct StoryboardTests {
    var board = Sample.board

    /// Applies an edit and checks its inverse brings the content back exactly; returns the inverse.
    @discardableResult
    mutating func apply(
        _ edit: StoryboardEdit, by author: String = "u1", sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> StoryboardEdit {
        let before = board
        let inverse = try board.apply(edit, by: author)
        var undone = board
        try undone.apply(inverse, by: author)
        #expect(undone == before, "the inverse of \(edit.op) does not restore the content", sourceLocation: sourceLocation)
        return inverse
    }

    /// Expects an edit to be refused with `code`, changing nothing.
    mutating func refuse(
        _ edit: StoryboardEdit, _ code: String, by author: String = "u1", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let before = board
        do {
            try board.apply(edit, by: author)
            Issue.record("\(edit.op) was applied; expected \(code)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == code, "\(error.message)", sourceLocation: sourceLocation)
        }
        #expect(board == before, "a refused edit changed the content", sourceLocation: sourceLocation)
    }

    // MARK: - A new project, finding things

    @Test func aNewProjectHasOneSceneOneShotOneLayer() {
        let empty = Storyboard.empty(firstScene: "s", firstShot: "t", layer: "l")
        #expect(empty.scenes.map(\.title) == ["Scene 1"])
        let shot = empty.scenes[0].shots[0]
        #expect(shot.id == "t" && shot.number == "1" && shot.duration == 3 && shot.background == "#ffffff")
        #expect(shot.layers.map(\.name) == ["Layer 1"])
        #expect(shot.layers[0].id == "l" && shot.layers[0].visible && !shot.layers[0].locked && shot.layers[0].opacity == 1)
        #expect(throws: Never.self) { try shot.validate() }
    }

    @Test mutating func findsShotsScenesAndNeighboursAcrossScenes() throws {
        #expect(board.shot(id: "b")?.number == "2")
        #expect(board.shot(id: "zz") == nil)
        #expect(board.scene(containingShot: "c")?.id == "s2")
        try apply(.addShot(scene: "s2", shot: Sample.shot("d")))
        let (before, after) = board.neighbours(of: "b", before: 2, after: 2)
        #expect(before.map(\.id) == ["a"])
        #expect(after.map(\.id) == ["c", "d"])
        let (near, far) = board.neighbours(of: "d", before: 2, after: 1)
        #expect(near.map(\.id) == ["c", "b"])  // nearest first
        #expect(far.isEmpty)
        #expect(board.neighbours(of: "zz", before: 1, after: 1).before.isEmpty)
        #expect(board.neighbours(of: "c", before: 0, after: 0).after.isEmpty)
    }

    // MARK: - Ordering and clamping

    @Test mutating func scenesAreAddedMovedAndClamped() throws {
        try apply(.addScene(scene: "s0", title: "Prologue", index: 0))
        #expect(board.scenes.map(\.id) == ["s0", "s1", "s2"])
        try apply(.addScene(scene: "s9", title: "End"))
        #expect(board.scenes.map(\.id) == ["s0", "s1", "s2", "s9"])
        try apply(.addScene(scene: "s5", title: "Far", index: 99))
        #expect(board.scenes.last?.id == "s5")
        let inverse = try apply(.moveScene(scene: "s0", index: 99))
        #expect(board.scenes.map(\.id) == ["s1", "s2", "s9", "s5", "s0"])
        #expect(inverse == .moveScene(scene: "s0", index: 0))
        try apply(.moveScene(scene: "s5", index: -3))
        #expect(board.scenes.map(\.id) == ["s5", "s1", "s2", "s9", "s0"])
        try apply(.renameScene(scene: "s1", title: "Dawn"))
        #expect(board.scene(id: "s1")?.title == "Dawn")
    }

    @Test mutating func deletingASceneTakesItsShotsAndItsInverseBringsThemBack() throws {
        let inverse = try apply(.deleteScene(scene: "s1"))
        #expect(board.shotIDs == [["c"]])
        #expect(inverse == .addScene(scene: "s1", title: "Opening", index: 0, shots: Sample.board.scenes[0].shots))
        // Content may be empty.
        try apply(.deleteScene(scene: "s2"))
        #expect(board.scenes.isEmpty)
        #expect(board.neighbours(of: "a", before: 1, after: 1).before.isEmpty)
    }

    @Test mutating func shotsMoveWithinAndAcrossScenesClamped() throws {
        var inverse = try apply(.moveShot(shot: "a", scene: "s1", index: 5))
        #expect(board.shotIDs == [["b", "a"], ["c"]])
        #expect(inverse == .moveShot(shot: "a", scene: "s1", index: 0))
        inverse = try apply(.moveShot(shot: "a", scene: "s2", index: 0))
        #expect(board.shotIDs == [["b"], ["a", "c"]])
        #expect(inverse == .moveShot(shot: "a", scene: "s1", index: 1))
        try apply(.moveShot(shot: "b", scene: "s2", index: 100))
        #expect(board.shotIDs == [[], ["a", "c", "b"]])
        try apply(.moveShot(shot: "c", scene: "s2", index: -1))
        #expect(board.shotIDs == [[], ["c", "a", "b"]])
        // Numbers stay with their shots until renumbered.
        #expect(board.numbers == ["3", "1", "2"])
    }

    @Test mutating func addedShotsGoWhereAskedAndGetTheNextNumber() throws {
        try apply(.addShot(scene: "s1", index: 1, shot: Sample.shot("x")))
        #expect(board.shotIDs == [["a", "x", "b"], ["c"]])
        #expect(board.shot(id: "x")?.number == "4")
        try apply(.addShot(scene: "s1", index: -5, shot: Sample.shot("y")))
        try apply(.addShot(scene: "s2", shot: Sample.shot("z", number: "9Z")))
        #expect(board.shotIDs == [["y", "a", "x", "b"], ["c", "z"]])
        #expect(board.numbers == ["5", "1", "4", "2", "3", "9Z"])
        try apply(.addShot(scene: "s2", index: 1, shot: Sample.shot("w")))
        #expect(board.shot(id: "w")?.number == "10")
        #expect(board.shotIDs[1] == ["c", "w", "z"])
    }

    @Test mutating func layersAreOrderedBottomFirstAndClamped() throws {
        try apply(.addLayer(shot: "a", layer: Sample.layer("top")))
        try apply(.addLayer(shot: "a", layer: Sample.layer("bottom"), index: 0))
        try apply(.addLayer(shot: "a", layer: Sample.layer("mid"), index: 2))
        #expect(board.layerIDs("a") == ["bottom", "aL1", "mid", "aL2", "top"])
        let inverse = try apply(.moveLayer(shot: "a", layer: "bottom", index: 50))
        #expect(inverse == .moveLayer(shot: "a", layer: "bottom", index: 0))
        #expect(board.layerIDs("a") == ["aL1", "mid", "aL2", "top", "bottom"])
        try apply(.moveLayer(shot: "a", layer: "top", index: -2))
        #expect(board.layerIDs("a") == ["top", "aL1", "mid", "aL2", "bottom"])
    }

    // MARK: - Duplicating and numbering

    @Test mutating func duplicateGoesRightAfterWithNewIdsAndTheNextLetter() throws {
        let inverse = try apply(.duplicateShot(shot: "a", newShot: "a2"))
        #expect(inverse == .deleteShot(shot: "a2"))
        #expect(board.shotIDs == [["a", "a2", "b"], ["c"]])
        let copy = try #require(board.shot(id: "a2"))
        let original = try #require(board.shot(id: "a"))
        #expect(copy.number == "1A")
        #expect(copy.layers.map(\.id) == ["a2-aL1", "a2-aL2"])
        #expect(copy.layers[0].strokes.map(\.id) == ["a2-a1", "a2-a2", "a2-a3"])
        #expect(copy.layers[0].strokes.map(\.points) == original.layers[0].strokes.map(\.points))
        #expect(copy.layers[0].strokes.map(\.author) == ["u1", "u1", "u1"])
        #expect(copy.layers.map(\.name) == original.layers.map(\.name))
        // Again from the original, then from the copy: 1B, 1C, each right after its original.
        try apply(.duplicateShot(shot: "a", newShot: "a3"))
        try apply(.duplicateShot(shot: "a2", newShot: "a4"))
        #expect(board.shotIDs == [["a", "a3", "a2", "a4", "b"], ["c"]])
        #expect(board.numbers == ["1", "1B", "1A", "1C", "2", "3"])
    }

    @Test func copyNumbersRunThroughTheAlphabetAndBeyond() {
        var board = Storyboard(scenes: [StoryScene(id: "s", title: "", shots: [Sample.shot("x", number: "2")])])
        #expect(ShotNumber.copy(of: "2", in: board) == "2A")
        board.scenes[0].shots.append(Sample.shot("y", number: "2Z"))
        #expect(ShotNumber.copy(of: "2", in: board) == "2AA")
        #expect(ShotNumber.copy(of: "2Z", in: board) == "2AA")
        // "12A" is not a copy of "1".
        board.scenes[0].shots.append(Sample.shot("z", number: "12A"))
        #expect(ShotNumber.copy(of: "1", in: board) == "1A")
        #expect(ShotNumber.copy(of: "12", in: board) == "12B")
        #expect(ShotNumber.next(in: board) == "13")
        #expect(ShotNumber.next(in: Storyboard()) == "1")
        #expect(ShotNumber.letters(27) == "AA" && ShotNumber.letterValue("AB") == 28)
    }

    @Test mutating func longIdsOfACopyKeepTheEndOfTheOldId() throws {
        let long = String(repeating: "q", count: 30) + String(repeating: "r", count: 34)
        try apply(.addStrokes(shot: "b", layer: "bL1", strokes: [Sample.stroke(long)]))
        let newShot = String(repeating: "n", count: 36)
        try apply(.duplicateShot(shot: "b", newShot: newShot))
        let derived = try #require(board.shot(id: newShot)?.layers[0].strokes[0].id)
        #expect(derived.count == 64)
        #expect(derived == newShot + "-" + String(repeating: "r", count: 27))
        try board.shot(id: newShot)?.validate()
        refuse(.duplicateShot(shot: "b", newShot: String(repeating: "m", count: 49)), "invalid_edit")
    }

    @Test mutating func renumberingNumbersThroughTheProjectAndItsInverseRestores() throws {
        try apply(.duplicateShot(shot: "a", newShot: "a2"))
        try apply(.moveShot(shot: "c", scene: "s1", index: 0))
        #expect(board.numbers == ["3", "1", "1A", "2"])
        let inverse = try apply(.renumberShots())
        #expect(board.numbers == ["1", "2", "3", "4"])
        #expect(inverse == .renumberShots(numbers: ["c": "3", "a": "1", "a2": "1A", "b": "2"]))
        // Only what changed is remembered.
        try apply(.moveShot(shot: "c", scene: "s2", index: 0))
        #expect(
            try board.apply(.renumberShots(), by: "u1") == .renumberShots(numbers: ["a": "2", "a2": "3", "b": "4", "c": "1"]))
        #expect(try board.apply(.renumberShots(), by: "u1") == .renumberShots(numbers: [:]))
        try apply(.renumberShots(numbers: ["a": "7"]))
        #expect(board.shot(id: "a")?.number == "7")
        refuse(.renumberShots(numbers: ["nope": "1"]), "unknown_shot")
        refuse(.renumberShots(numbers: ["a": ""]), "invalid_edit")
        refuse(.renumberShots(numbers: ["a": String(repeating: "9", count: 17)]), "too_large")
    }

    // MARK: - Shots' fields

    @Test mutating func updateShotChangesOnlyTheGivenFields() throws {
        let inverse = try apply(.updateShot(shot: "b", duration: 4.5, dialogue: "Run!", background: "#000000"))
        let shot = try #require(board.shot(id: "b"))
        #expect(shot.duration == 4.5 && shot.dialogue == "Run!" && shot.background == "#000000" && shot.action == "")
        #expect(inverse == .updateShot(shot: "b", duration: 3, dialogue: "", background: "#ffffff"))
        refuse(.updateShot(shot: "b", duration: 0.05), "invalid_edit")
        refuse(.updateShot(shot: "b", duration: 601), "invalid_edit")
        refuse(.updateShot(shot: "b", duration: .nan), "invalid_edit")
        refuse(.updateShot(shot: "b", background: "red"), "invalid_edit")
        refuse(.updateShot(shot: "b", notes: String(repeating: "é", count: 5001)), "too_large")
        try apply(.updateShot(shot: "b", action: String(repeating: "é", count: 5000)))
    }

    @Test mutating func restoreShotReplacesItWhole() throws {
        var version = Sample.shot("a", number: "", layers: [Sample.layer("v1", strokes: ["old"])])
        version.notes = "as it was"
        let inverse = try apply(.restoreShot(shot: version))
        #expect(board.shot(id: "a")?.notes == "as it was")
        #expect(board.shot(id: "a")?.number == "1")  // an empty number keeps the shot's
        #expect(board.layerIDs("a") == ["v1"])
        #expect(inverse == .restoreShot(shot: Sample.board.shot(id: "a")!))
        refuse(.restoreShot(shot: Sample.shot("nope")), "unknown_shot")
        refuse(.restoreShot(shot: Sample.shot("a", layers: [])), "invalid_edit")
    }

    // MARK: - Layers

    @Test mutating func layerPropertiesChangeAndTheirInverseRestores() throws {
        let moved = LayerTransform(x: 0.2, y: -0.1, scale: 1.5, rotation: 0.3)
        let inverse = try apply(
            .updateLayer(shot: "a", layer: "aL1", name: "Sky", visible: false, locked: true, opacity: 0.4, transform: moved))
        let layer = try #require(board.layer("a", "aL1"))
        #expect(layer.name == "Sky" && !layer.visible && layer.locked && layer.opacity == 0.4 && layer.transform == moved)
        #expect(
            inverse
                == .updateLayer(
                    shot: "a", layer: "aL1", name: "Layer aL1", visible: true, locked: false, opacity: 1, transform: .identity))
        try apply(.updateLayer(shot: "a", layer: "aL2", visible: false))
        #expect(board.layer("a", "aL2")?.visible == false && board.layer("a", "aL2")?.name == "Layer aL2")
        refuse(.updateLayer(shot: "a", layer: "aL2", opacity: 1.5), "invalid_edit")
        refuse(.updateLayer(shot: "a", layer: "aL2", transform: LayerTransform(scale: 0.01)), "invalid_edit")
        refuse(.updateLayer(shot: "a", layer: "aL2", transform: LayerTransform(rotation: .infinity)), "invalid_edit")
        refuse(.updateLayer(shot: "a", layer: "aL2", name: String(repeating: "n", count: 201)), "too_large")
    }

    @Test mutating func aLockedLayerRefusesStrokesAndTransformsButNotItsOtherProperties() throws {
        try apply(.updateLayer(shot: "a", layer: "aL1", locked: true))
        refuse(.addStrokes(shot: "a", layer: "aL1", strokes: [Sample.stroke("n1")]), "layer_locked")
        refuse(.removeStrokes(shot: "a", layer: "aL1", strokes: ["a1"]), "layer_locked")
        refuse(.replaceStrokes(shot: "a", layer: "aL1", remove: ["a1"], add: []), "layer_locked")
        refuse(.updateLayer(shot: "a", layer: "aL1", transform: LayerTransform(x: 0.1)), "layer_locked")
        refuse(.updateLayer(shot: "a", layer: "aL1", locked: true, transform: LayerTransform(x: 0.1)), "layer_locked")
        try apply(.updateLayer(shot: "a", layer: "aL1", name: "Ink", visible: false, opacity: 0.5))
        // Unlocking and moving at once is fine; the other layer is not locked.
        try apply(.updateLayer(shot: "a", layer: "aL1", locked: false, transform: LayerTransform(x: 0.1)))
        try apply(.addStrokes(shot: "a", layer: "aL2", strokes: [Sample.stroke("n1")]))
        // A locked layer can still be moved and deleted.
        try apply(.updateLayer(shot: "a", layer: "aL2", locked: true))
        try apply(.moveLayer(shot: "a", layer: "aL2", index: 0))
        try apply(.deleteLayer(shot: "a", layer: "aL2"))
    }

    @Test mutating func deletingLayersKeepsTheLastOne() throws {
        let inverse = try apply(.deleteLayer(shot: "a", layer: "aL1"))
        #expect(inverse == .addLayer(shot: "a", layer: Sample.board.layer("a", "aL1")!, index: 0))
        #expect(board.layerIDs("a") == ["aL2"])
        refuse(.deleteLayer(shot: "a", layer: "aL2"), "last_layer")
        refuse(.deleteLayer(shot: "b", layer: "bL1"), "last_layer")
        refuse(.deleteLayer(shot: "b", layer: "aL2"), "unknown_layer")
    }

    @Test mutating func layersAreGroupedAndUngrouped() throws {
        try apply(.addLayer(shot: "a", layer: Sample.layer("aL3")))
        let inverse = try apply(.groupLayers(shot: "a", layers: ["aL3", "aL1"], group: "g1"))
        #expect(inverse == .ungroupLayers(shot: "a", group: "g1"))
        #expect(board.shot(id: "a")?.layers.map(\.group) == ["g1", nil, "g1"])
        refuse(.groupLayers(shot: "a", layers: ["aL2"], group: "g1"), "duplicate_id")
        refuse(.groupLayers(shot: "a", layers: ["aL1", "aL2"], group: "g2"), "invalid_edit")  // aL1 is grouped
        refuse(.groupLayers(shot: "a", layers: ["aL2", "aL2"], group: "g2"), "invalid_edit")
        refuse(.groupLayers(shot: "a", layers: [], group: "g2"), "invalid_edit")
        refuse(.groupLayers(shot: "a", layers: ["aL2", "zz"], group: "g2"), "unknown_layer")
        refuse(.groupLayers(shot: "a", layers: ["aL2"], group: "g 2"), "invalid_edit")
        let regroup = try apply(.ungroupLayers(shot: "a", group: "g1"))
        #expect(regroup == .groupLayers(shot: "a", layers: ["aL1", "aL3"], group: "g1"))
        #expect(board.shot(id: "a")?.layers.allSatisfy { $0.group == nil } == true)
        refuse(.ungroupLayers(shot: "a", group: "g1"), "unknown_layer")
    }

    // MARK: - Strokes

    @Test mutating func strokesAreAddedOnTopAndRemoved() throws {
        let inverse = try apply(
            .addStrokes(shot: "a", layer: "aL1", strokes: [Sample.stroke("n1"), Sample.stroke("n2")]), by: "u2")
        #expect(inverse == .removeStrokes(shot: "a", layer: "aL1", strokes: ["n1", "n2"]))
        #expect(board.strokeIDs("a", "aL1") == ["a1", "a2", "a3", "n1", "n2"])
        // Sent without an author: the edit's author; with one: kept.
        #expect(board.layer("a", "aL1")?.strokes.map(\.author) == ["u1", "u1", "u1", "u2", "u2"])
        try apply(.addStrokes(shot: "a", layer: "aL1", strokes: [Sample.stroke("n3", author: "u9")]), by: "u2")
        #expect(board.layer("a", "aL1")?.strokes.last?.author == "u9")
        let back = try apply(.removeStrokes(shot: "a", layer: "aL1", strokes: ["n1", "a2"]))
        #expect(board.strokeIDs("a", "aL1") == ["a1", "a3", "n2", "n3"])
        #expect(
            back
                == .addStrokes(
                    shot: "a", layer: "aL1",
                    strokes: [Sample.stroke("a2", author: "u1"), Sample.stroke("n1", author: "u2")], indexes: [1, 3]))
    }

    @Test mutating func replacedStrokesTakeThePlaceOfTheFirstRemovedOne() throws {
        // The eraser splits a2 in two.
        let inverse = try apply(
            .replaceStrokes(shot: "a", layer: "aL1", remove: ["a2"], add: [Sample.stroke("a2x"), Sample.stroke("a2y")]))
        #expect(board.strokeIDs("a", "aL1") == ["a1", "a2x", "a2y", "a3"])
        #expect(
            inverse
                == .replaceStrokes(
                    shot: "a", layer: "aL1", remove: ["a2x", "a2y"], add: [Sample.stroke("a2", author: "u1")], indexes: [1]))
        // The lasso moves a3 and a1 (listed in any order): the moved strokes go where a1 was.
        try apply(
            .replaceStrokes(
                shot: "a", layer: "aL1", remove: ["a3", "a1"], add: [Sample.stroke("m1", x: 0.5), Sample.stroke("m3")]))
        #expect(board.strokeIDs("a", "aL1") == ["m1", "m3", "a2x", "a2y"])
        // An added stroke may take a removed one's id (moved in place).
        try apply(.replaceStrokes(shot: "a", layer: "aL1", remove: ["a2y"], add: [Sample.stroke("a2y", x: 0.7)]))
        #expect(board.strokeIDs("a", "aL1") == ["m1", "m3", "a2x", "a2y"])
        #expect(board.layer("a", "aL1")?.strokes[3].points[0][0] == 0.7)
        // Nothing removed: on top. With indexes: each at its place.
        try apply(.replaceStrokes(shot: "a", layer: "aL1", remove: [], add: [Sample.stroke("t")]))
        try apply(.addStrokes(shot: "a", layer: "aL1", strokes: [Sample.stroke("i9"), Sample.stroke("i0")], indexes: [9, 0]))
        #expect(board.strokeIDs("a", "aL1") == ["i0", "m1", "m3", "a2x", "a2y", "t", "i9"])
    }

    @Test mutating func strokeRulesAreChecked() throws {
        func bad(_ change: (inout SketchStroke) -> Void) -> SketchStroke {
            var stroke = Sample.stroke("bad")
            change(&stroke)
            return stroke
        }
        for stroke in [
            bad { $0.color = "#12345" }, bad { $0.color = "blue" }, bad { $0.width = 0.3 }, bad { $0.width = 0 },
            bad { $0.points = [] }, bad { $0.points = [[0.1, 0.2]] }, bad { $0.points = [[2.5, 0.2, 0.5]] },
            bad { $0.points = [[0.1, -1.5, 0.5]] }, bad { $0.points = [[0.1, 0.2, 1.5]] },
            bad { $0.points = [[.nan, 0.2, 0.5]] },
            bad { $0.id = "" }, bad { $0.id = "has space" }, bad { $0.id = String(repeating: "x", count: 65) },
        ] {
            refuse(.addStrokes(shot: "a", layer: "aL1", strokes: [stroke]), "invalid_edit")
        }
        refuse(
            .addStrokes(
                shot: "a", layer: "aL1", strokes: [bad { $0.points = Array(repeating: [0.1, 0.1, 0.1], count: 4001) }]),
            "too_large")
        // Just inside the limits: allowed.
        try apply(
            .addStrokes(
                shot: "a", layer: "aL1",
                strokes: [
                    bad {
                        $0.points = Array(repeating: [-1, 2, 0], count: 4000); $0.width = 0.2; $0.tool = .marker
                    }
                ]))
        refuse(.addStrokes(shot: "a", layer: "aL1", strokes: [Sample.stroke("a4")]), "duplicate_id")  // in another layer
        refuse(.addStrokes(shot: "a", layer: "aL1", strokes: [Sample.stroke("n"), Sample.stroke("n")]), "duplicate_id")
        refuse(.addStrokes(shot: "a", layer: "aL1", strokes: [Sample.stroke("n")], indexes: [0, 1]), "invalid_edit")
        refuse(.removeStrokes(shot: "a", layer: "aL1", strokes: ["a4"]), "unknown_stroke")
        refuse(.removeStrokes(shot: "a", layer: "aL1", strokes: ["a1", "a1"]), "invalid_edit")
        refuse(.replaceStrokes(shot: "a", layer: "aL1", remove: ["zz"], add: []), "unknown_stroke")
    }

    // MARK: - Validation codes

    @Test mutating func everyErrorCode() throws {
        refuse(.renameScene(scene: "zz", title: "x"), "unknown_scene")
        refuse(.addShot(scene: "zz", shot: Sample.shot("n")), "unknown_scene")
        refuse(.moveShot(shot: "a", scene: "zz", index: 0), "unknown_scene")
        refuse(.deleteShot(shot: "zz"), "unknown_shot")
        refuse(.moveShot(shot: "zz", scene: "s1", index: 0), "unknown_shot")
        refuse(.duplicateShot(shot: "zz", newShot: "n"), "unknown_shot")
        refuse(.addLayer(shot: "zz", layer: Sample.layer("n")), "unknown_shot")
        refuse(.updateLayer(shot: "a", layer: "zz", visible: false), "unknown_layer")
        refuse(.addStrokes(shot: "a", layer: "zz", strokes: []), "unknown_layer")
        refuse(.removeStrokes(shot: "a", layer: "aL1", strokes: ["zz"]), "unknown_stroke")
        refuse(.addScene(scene: "s1", title: "Again"), "duplicate_id")
        refuse(.addShot(scene: "s1", shot: Sample.shot("c")), "duplicate_id")
        refuse(.duplicateShot(shot: "a", newShot: "b"), "duplicate_id")
        refuse(.addLayer(shot: "a", layer: Sample.layer("aL2")), "duplicate_id")
        refuse(.addLayer(shot: "a", layer: Sample.layer("new", strokes: ["a1"])), "duplicate_id")
        refuse(.addScene(scene: "bad id!", title: "x"), "invalid_edit")
        refuse(.addShot(scene: "s1", shot: Sample.shot("n", layers: [])), "invalid_edit")
        refuse(.addShot(scene: "s1", shot: Shot(id: "n", duration: 0, layers: [Sample.layer("l")])), "invalid_edit")
        refuse(.addLayer(shot: "a", layer: SketchLayer(id: "n", name: "", opacity: -0.1)), "invalid_edit")
        refuse(.addLayer(shot: "a", layer: SketchLayer(id: "n", name: "", group: "")), "invalid_edit")
        refuse(.addScene(scene: "n", title: String(repeating: "t", count: 201)), "too_large")
        refuse(
            .addShot(scene: "s1", shot: Sample.shot("n", layers: (0...50).map { Sample.layer("l\($0)") })), "too_large")
        refuse(.addShot(scene: "s1", shot: Sample.shot("n", layers: [Sample.layer("l"), Sample.layer("l")])), "duplicate_id")
        try apply(.updateLayer(shot: "b", layer: "bL1", locked: true))
        refuse(.addStrokes(shot: "b", layer: "bL1", strokes: [Sample.stroke("n")]), "layer_locked")
        refuse(.deleteLayer(shot: "b", layer: "bL1"), "last_layer")
    }

    @Test mutating func limitsOfScenesShotsLayersAndStrokes() throws {
        for k in board.scenes.count..<StoryboardLimits.scenes { try board.apply(.addScene(scene: "x\(k)", title: ""), by: "u1") }
        refuse(.addScene(scene: "one-more", title: ""), "too_large")

        board = Sample.board
        let many = (3..<StoryboardLimits.shots).map { Sample.shot("m\($0)", number: "\($0)") }
        board.scenes[1].shots += many
        refuse(.addShot(scene: "s1", shot: Sample.shot("n")), "too_large")
        refuse(.duplicateShot(shot: "a", newShot: "n"), "too_large")
        refuse(.addScene(scene: "n", title: "", shots: [Sample.shot("n")]), "too_large")
        try apply(.deleteShot(shot: "m3"))

        for k in 2..<StoryboardLimits.layersPerShot {
            try board.apply(.addLayer(shot: "a", layer: Sample.layer("l\(k)")), by: "u1")
        }
        refuse(.addLayer(shot: "a", layer: Sample.layer("l-more")), "too_large")

        board.scenes[0].shots[0].layers[0].strokes += (3..<StoryboardLimits.strokesPerLayer).map { Sample.stroke("k\($0)") }
        refuse(.addStrokes(shot: "a", layer: "aL1", strokes: [Sample.stroke("k-more")]), "too_large")
        try apply(.replaceStrokes(shot: "a", layer: "aL1", remove: ["a1"], add: [Sample.stroke("k-more")]))
    }

    // MARK: - Every inverse, over a random sequence of edits

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func everyInverseRestoresTheContentExactly(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var board = Sample.board
        var applied = 0
        var ops = Set<String>()
        for _ in 0..<400 {
            let edit = RandomEdits.edit(for: board, using: &random)
            let before = board
            guard let inverse = try? board.apply(edit, by: "u\(random.next() % 3)") else {
                #expect(board == before, "a refused \(edit.op) changed the content")
                continue
            }
            applied += 1
            ops.insert(edit.op)
            var undone = board
            let again = try undone.apply(inverse, by: "u1")
            #expect(undone == before, "the inverse of \(edit) does not restore the content")
            // The inverse of the inverse redoes the edit.
            var redone = undone
            try redone.apply(again, by: "u1")
            #expect(redone == board, "the inverse of the inverse of \(edit.op) does not redo it")
        }
        #expect(applied > 150)
        #expect(Set(StoryboardEdit.ops).subtracting(ops).isEmpty, "never applied: \(Set(StoryboardEdit.ops).subtracting(ops))")
    }

    // MARK: - Reconciliation: the server's order decides

    @Test func concurrentEditsFromTheSameStateApplyInTheServersOrder() throws {
        let start = Sample.board
        // Ann draws on aL1 and moves shot b; Ben, from the same state, deletes layer aL2 and renames scene s1.
        let ann: [StoryboardEdit] = [
            .addStrokes(shot: "a", layer: "aL1", strokes: [Sample.stroke("ann1")]), .moveShot(shot: "b", scene: "s2", index: 9),
        ]
        let ben: [StoryboardEdit] = [.deleteLayer(shot: "a", layer: "aL2"), .renameScene(scene: "s1", title: "Dawn")]
        var server = start
        for (edit, author) in [(ann[0], "ann"), (ben[0], "ben"), (ben[1], "ben"), (ann[1], "ann")] {
            try server.apply(edit, by: author)
        }
        #expect(server.strokeIDs("a", "aL1") == ["a1", "a2", "a3", "ann1"])
        #expect(server.layerIDs("a") == ["aL1"])
        #expect(server.shotIDs == [["a"], ["c", "b"]])
        #expect(server.scenes[0].title == "Dawn")
        // Another order of the same independent edits ends in the same content.
        var other = start
        for (edit, author) in [(ben[1], "ben"), (ann[1], "ann"), (ben[0], "ben"), (ann[0], "ann")] {
            try other.apply(edit, by: author)
        }
        #expect(other == server)
    }

    @Test func anEditWhoseTargetAnotherDeletedIsRefusedAndChangesNothing() throws {
        var server = Sample.board
        try server.apply(.deleteShot(shot: "a"), by: "ben")
        let after = server
        for edit: StoryboardEdit in [
            .addStrokes(shot: "a", layer: "aL1", strokes: [Sample.stroke("ann1")]),
            .updateShot(shot: "a", dialogue: "Hi"), .duplicateShot(shot: "a", newShot: "a2"),
        ] {
            #expect(throws: StoryboardError.unknownShot) { try server.apply(edit, by: "ann") }
        }
        #expect(server == after)
        var scenesGone = after
        try scenesGone.apply(.deleteScene(scene: "s2"), by: "ben")
        let before = scenesGone
        #expect(throws: StoryboardError.unknownScene) {
            try scenesGone.apply(.moveShot(shot: "b", scene: "s2", index: 0), by: "ann")
        }
        #expect(scenesGone == before)
    }
}

/// A small seeded generator (SplitMix64), so the random sequences are the same on every run.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
