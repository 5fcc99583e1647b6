import PodiumCore

/// Random edits of a storyboard, mostly ones that apply (ids taken from the content), some that
/// do not (unknown ids, locked layers, out-of-range values), for the property tests.
enum RandomEdits {
    static func edit(for board: Storyboard, using random: inout SeededRandom) -> StoryboardEdit {
        func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[Int(random.next() % UInt64(items.count))] }
        func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
        func double(_ range: ClosedRange<Double>) -> Double { (Double.random(in: range, using: &random) * 1000).rounded() / 1000 }
        func fresh(_ prefix: String) -> String { "\(prefix)\(random.next() % 1_000_000)" }
        func bit() -> Bool { random.next() % 2 == 0 }
        func stroke() -> SketchStroke {
            SketchStroke(
                id: fresh("k"), author: bit() ? "" : "u\(int(1...3))", tool: pick([.pen, .marker, .pencil])!,
                color: pick(["#000000", "#ff0000", "#00aa33"])!, width: double(0.001...0.05),
                points: (0..<int(1...5)).map { _ in [double(-0.2...1.2), double(-0.2...1.2), double(0...1)] })
        }
        func layer() -> SketchLayer {
            SketchLayer(
                id: fresh("l"), name: pick(["Ink", "Colour", ""])!, visible: bit(), locked: random.next() % 5 == 0,
                opacity: double(0...1), strokes: (0..<int(0...2)).map { _ in stroke() })
        }
        func shot() -> Shot {
            Shot(
                id: fresh("t"), number: bit() ? "" : "\(int(1...30))", duration: double(0.1...10), dialogue: pick(["", "Hey"])!,
                layers: (0..<int(1...2)).map { _ in layer() })
        }

        let scenes = board.scenes.map(\.id) + ["ghost-scene"]
        let shots = board.allShots.map(\.id) + ["ghost-shot"]
        let sceneID = pick(scenes)!
        let shotID = pick(shots)!
        let theShot = board.shot(id: shotID)
        let layers = (theShot?.layers.map(\.id) ?? []) + ["ghost-layer"]
        let layerID = random.next() % 5 == 0 ? "ghost-layer" : pick(layers.dropLast()) ?? "ghost-layer"
        let strokes = theShot?.layers.first { $0.id == layerID }?.strokes.map(\.id) ?? []
        let groups = Array(Set(theShot?.layers.compactMap(\.group) ?? [])).sorted() + ["ghost-group"]
        func someStrokes() -> [String] { strokes.filter { _ in random.next() % 3 == 0 } }
        func index() -> Int { int(-1...8) }

        switch int(0...22) {
        case 0: return .addScene(scene: fresh("s"), title: pick(["", "Night"])!, index: bit() ? nil : index())
        case 1: return .renameScene(scene: sceneID, title: "Scene \(int(1...9))")
        case 2: return .deleteScene(scene: sceneID)
        case 3: return .moveScene(scene: sceneID, index: index())
        case 4, 5: return .addShot(scene: sceneID, index: bit() ? nil : index(), shot: shot())
        case 6: return .duplicateShot(shot: shotID, newShot: fresh("d"))
        case 7: return .deleteShot(shot: shotID)
        case 8: return .moveShot(shot: shotID, scene: sceneID, index: index())
        case 9:
            return .updateShot(
                shot: shotID, duration: bit() ? double(0.1...20) : nil, dialogue: bit() ? "Line \(int(1...9))" : nil,
                action: bit() ? "Runs" : nil, notes: bit() ? "" : nil, background: bit() ? "#102030" : nil)
        case 10: return .renumberShots(numbers: bit() ? nil : [shotID: "\(int(1...9))"])
        case 11:
            guard var copy = theShot else { return .restoreShot(shot: shot()) }
            copy.notes = "restored"
            copy.layers = [layer()]
            return .restoreShot(shot: copy)
        case 12: return .addLayer(shot: shotID, layer: layer(), index: bit() ? nil : index())
        case 13:
            return .updateLayer(
                shot: shotID, layer: layerID, name: bit() ? "Renamed" : nil, visible: bit() ? bit() : nil,
                locked: bit() ? random.next() % 4 == 0 : nil, opacity: bit() ? double(0...1) : nil,
                transform: bit()
                    ? LayerTransform(x: double(-1...1), y: double(-1...1), scale: double(0.5...2), rotation: double(-3...3)) : nil
            )
        case 14: return .moveLayer(shot: shotID, layer: layerID, index: index())
        case 15: return .deleteLayer(shot: shotID, layer: layerID)
        case 16:
            // Mostly layers in no group (the rule), now and then any.
            let free = theShot?.layers.filter { $0.group == nil }.map(\.id) ?? []
            let chosen = (random.next() % 4 == 0 ? layers : free).filter { _ in bit() }
            return .groupLayers(shot: shotID, layers: chosen.isEmpty ? Array(free.prefix(1)) : chosen, group: fresh("g"))
        case 17:
            // Mostly a group that exists (in any shot), now and then one that does not.
            let grouped = board.allShots.filter { $0.layers.contains { $0.group != nil } }
            guard let shot = pick(grouped), random.next() % 4 != 0 else {
                return .ungroupLayers(shot: shotID, group: pick(groups)!)
            }
            return .ungroupLayers(shot: shot.id, group: shot.layers.compactMap(\.group)[0])
        case 18, 19:
            let added = (0..<int(1...3)).map { _ in stroke() }
            return .addStrokes(shot: shotID, layer: layerID, strokes: added, indexes: bit() ? nil : added.map { _ in index() })
        case 20: return .removeStrokes(shot: shotID, layer: layerID, strokes: someStrokes())
        default:
            let added = (0..<int(0...3)).map { _ in stroke() }
            return .replaceStrokes(
                shot: shotID, layer: layerID, remove: someStrokes(), add: added, indexes: bit() ? nil : added.map { _ in index() }
            )
        }
    }
}
