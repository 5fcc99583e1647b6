extension Storyboard {
    /// Applies an edit made by `author` and returns its inverse: the edit that undoes it, touching
    /// only what this edit touched. Throws and changes nothing when the edit does not apply.
    ///
    /// Strokes sent without an author get `author`. Mirrored by `applyEdit` in
    /// `Public/app/storyboard/model.js`, check for check (the first broken rule decides the code).
    @discardableResult
    public mutating func apply(_ edit: StoryboardEdit, by author: String) throws(StoryboardError) -> StoryboardEdit {
        var next = self
        let inverse = try next.applying(edit, by: author)
        self = next
        return inverse
    }

    // swiftlint:disable:next cyclomatic_complexity function_body_length
    private mutating func applying(_ edit: StoryboardEdit, by author: String) throws(StoryboardError) -> StoryboardEdit {
        switch edit {
        case .addScene(let id, let title, let index, let shots):
            try StoryboardLimits.checkID(id, "A scene")
            try StoryboardLimits.checkLength(title, StoryboardLimits.titleLength, "A scene's title")
            guard scene(id: id) == nil else { throw .duplicateID }
            guard scenes.count < StoryboardLimits.scenes else {
                throw .tooLarge("A project has at most \(StoryboardLimits.scenes) scenes.")
            }
            var added = try checkNewShots(shots ?? [])
            let at = Self.clamp(index ?? scenes.count, scenes.count)
            for i in added.indices { added[i] = numbered(Self.stamped(added[i], author), others: added[..<i]) }
            scenes.insert(StoryScene(id: id, title: title, shots: added), at: at)
            return .deleteScene(scene: id)

        case .renameScene(let id, let title):
            let s = try sceneIndex(id)
            try StoryboardLimits.checkLength(title, StoryboardLimits.titleLength, "A scene's title")
            let old = scenes[s].title
            scenes[s].title = title
            return .renameScene(scene: id, title: old)

        case .deleteScene(let id):
            let s = try sceneIndex(id)
            let old = scenes.remove(at: s)
            return .addScene(scene: id, title: old.title, index: s, shots: old.shots.isEmpty ? nil : old.shots)

        case .moveScene(let id, let index):
            let s = try sceneIndex(id)
            let scene = scenes.remove(at: s)
            scenes.insert(scene, at: Self.clamp(index, scenes.count))
            return .moveScene(scene: id, index: s)

        case .addShot(let sceneID, let index, let shot):
            let s = try sceneIndex(sceneID)
            _ = try checkNewShots([shot])
            let added = numbered(Self.stamped(shot, author), others: [])
            scenes[s].shots.insert(added, at: Self.clamp(index ?? scenes[s].shots.count, scenes[s].shots.count))
            return .deleteShot(shot: shot.id)

        case .duplicateShot(let id, let newID):
            let (s, i) = try shotPosition(id)
            try StoryboardLimits.checkID(newID, "A shot")
            guard newID.unicodeScalars.count <= StoryboardLimits.copyIDLength else {
                throw .invalid("The id of a copy has at most \(StoryboardLimits.copyIDLength) characters.")
            }
            guard position(ofShot: newID) == nil else { throw .duplicateID }
            try checkShotRoom(1)
            let original = scenes[s].shots[i]
            var copy = original
            copy.id = newID
            copy.number = ShotNumber.copy(of: original.number, in: self)
            var layerIDs = Set<String>()
            var strokeIDs = Set<String>()
            for l in copy.layers.indices {
                copy.layers[l].id = Self.derivedID(newID, copy.layers[l].id)
                guard layerIDs.insert(copy.layers[l].id).inserted else { throw .duplicateID }
                for k in copy.layers[l].strokes.indices {
                    copy.layers[l].strokes[k].id = Self.derivedID(newID, copy.layers[l].strokes[k].id)
                    guard strokeIDs.insert(copy.layers[l].strokes[k].id).inserted else { throw .duplicateID }
                }
            }
            scenes[s].shots.insert(copy, at: i + 1)
            return .deleteShot(shot: newID)

        case .deleteShot(let id):
            let (s, i) = try shotPosition(id)
            let old = scenes[s].shots.remove(at: i)
            return .addShot(scene: scenes[s].id, index: i, shot: old)

        case .moveShot(let id, let sceneID, let index):
            let (s, i) = try shotPosition(id)
            let target = try sceneIndex(sceneID)
            let shot = scenes[s].shots.remove(at: i)
            scenes[target].shots.insert(shot, at: Self.clamp(index, scenes[target].shots.count))
            return .moveShot(shot: id, scene: scenes[s].id, index: i)

        case .updateShot(let id, let duration, let dialogue, let action, let notes, let background):
            let (s, i) = try shotPosition(id)
            if let duration { try StoryboardLimits.check(duration, in: StoryboardLimits.durations, "A shot's duration") }
            if let dialogue { try StoryboardLimits.checkLength(dialogue, StoryboardLimits.textLength, "Dialogue") }
            if let action { try StoryboardLimits.checkLength(action, StoryboardLimits.textLength, "Action") }
            if let notes { try StoryboardLimits.checkLength(notes, StoryboardLimits.textLength, "Notes") }
            if let background { try StoryboardLimits.checkColor(background, "A shot's background") }
            let old = scenes[s].shots[i]
            var shot = old
            shot.duration = duration ?? old.duration
            shot.dialogue = dialogue ?? old.dialogue
            shot.action = action ?? old.action
            shot.notes = notes ?? old.notes
            shot.background = background ?? old.background
            scenes[s].shots[i] = shot
            return .updateShot(
                shot: id, duration: duration.map { _ in old.duration }, dialogue: dialogue.map { _ in old.dialogue },
                action: action.map { _ in old.action }, notes: notes.map { _ in old.notes },
                background: background.map { _ in old.background })

        case .renumberShots(let numbers):
            var wanted: [String: String] = [:]
            if let numbers {
                for id in numbers.keys.sorted() {
                    _ = try shotPosition(id)
                    let number = numbers[id] ?? ""
                    guard !number.isEmpty else { throw .invalid("A shot's number cannot be empty.") }
                    try StoryboardLimits.checkLength(number, StoryboardLimits.numberLength, "A shot's number")
                    wanted[id] = number
                }
            } else {
                for (offset, shot) in allShots.enumerated() { wanted[shot.id] = String(offset + 1) }
            }
            var old: [String: String] = [:]
            for s in scenes.indices {
                for i in scenes[s].shots.indices {
                    let shot = scenes[s].shots[i]
                    guard let number = wanted[shot.id], numbers != nil || number != shot.number else { continue }
                    old[shot.id] = shot.number
                    scenes[s].shots[i].number = number
                }
            }
            return .renumberShots(numbers: old)

        case .restoreShot(let shot):
            let (s, i) = try shotPosition(shot.id)
            try shot.validate()
            let old = scenes[s].shots[i]
            var restored = Self.stamped(shot, author)
            if restored.number.isEmpty { restored.number = old.number }
            scenes[s].shots[i] = restored
            return .restoreShot(shot: old)

        case .addLayer(let shotID, let layer, let index):
            let (s, i) = try shotPosition(shotID)
            try layer.validate()
            let shot = scenes[s].shots[i]
            guard !shot.layers.contains(where: { $0.id == layer.id }) else { throw .duplicateID }
            let existing = shot.strokeIDs
            var seen = Set<String>()
            for stroke in layer.strokes where existing.contains(stroke.id) || !seen.insert(stroke.id).inserted {
                throw .duplicateID
            }
            guard shot.layers.count < StoryboardLimits.layersPerShot else {
                throw .tooLarge("A shot has at most \(StoryboardLimits.layersPerShot) layers.")
            }
            var added = layer
            added.strokes = added.strokes.map { Self.stamped($0, author) }
            scenes[s].shots[i].layers.insert(added, at: Self.clamp(index ?? shot.layers.count, shot.layers.count))
            return .deleteLayer(shot: shotID, layer: layer.id)

        case .updateLayer(let shotID, let layerID, let name, let visible, let locked, let opacity, let transform):
            let (s, i) = try shotPosition(shotID)
            let l = try layerIndex(layerID, s, i)
            if let name { try StoryboardLimits.checkLength(name, StoryboardLimits.titleLength, "A layer's name") }
            if let opacity { try StoryboardLimits.check(opacity, in: StoryboardLimits.opacities, "A layer's opacity") }
            let old = scenes[s].shots[i].layers[l]
            if let transform {
                try transform.validate()
                // Locked before and after: the drawing stays put. (Unlocking and moving at once is fine.)
                guard !old.locked || locked == false else { throw .layerLocked }
            }
            var layer = old
            layer.name = name ?? old.name
            layer.visible = visible ?? old.visible
            layer.locked = locked ?? old.locked
            layer.opacity = opacity ?? old.opacity
            layer.transform = transform ?? old.transform
            scenes[s].shots[i].layers[l] = layer
            return .updateLayer(
                shot: shotID, layer: layerID, name: name.map { _ in old.name }, visible: visible.map { _ in old.visible },
                locked: locked.map { _ in old.locked }, opacity: opacity.map { _ in old.opacity },
                transform: transform.map { _ in old.transform })

        case .moveLayer(let shotID, let layerID, let index):
            let (s, i) = try shotPosition(shotID)
            let l = try layerIndex(layerID, s, i)
            let layer = scenes[s].shots[i].layers.remove(at: l)
            scenes[s].shots[i].layers.insert(layer, at: Self.clamp(index, scenes[s].shots[i].layers.count))
            return .moveLayer(shot: shotID, layer: layerID, index: l)

        case .deleteLayer(let shotID, let layerID):
            let (s, i) = try shotPosition(shotID)
            let l = try layerIndex(layerID, s, i)
            guard scenes[s].shots[i].layers.count > 1 else { throw .lastLayer }
            let old = scenes[s].shots[i].layers.remove(at: l)
            return .addLayer(shot: shotID, layer: old, index: l)

        case .groupLayers(let shotID, let layerIDs, let group):
            let (s, i) = try shotPosition(shotID)
            try StoryboardLimits.checkID(group, "A group")
            guard !layerIDs.isEmpty else { throw .invalid("A group has at least one layer.") }
            var members: [Int] = []
            for id in layerIDs { members.append(try layerIndex(id, s, i)) }
            guard Set(layerIDs).count == layerIDs.count else { throw .invalid("A layer is listed twice.") }
            let layers = scenes[s].shots[i].layers
            guard !layers.contains(where: { $0.group == group }) else { throw .duplicateID }
            guard members.allSatisfy({ layers[$0].group == nil }) else {
                throw .invalid("A layer in a group must be ungrouped first.")
            }
            for l in members { scenes[s].shots[i].layers[l].group = group }
            return .ungroupLayers(shot: shotID, group: group)

        case .ungroupLayers(let shotID, let group):
            let (s, i) = try shotPosition(shotID)
            let members = scenes[s].shots[i].layers.indices.filter { scenes[s].shots[i].layers[$0].group == group }
            guard !members.isEmpty else { throw .unknownLayer }
            for l in members { scenes[s].shots[i].layers[l].group = nil }
            return .groupLayers(shot: shotID, layers: members.map { scenes[s].shots[i].layers[$0].id }, group: group)

        case .addStrokes(let shotID, let layerID, let strokes, let indexes):
            let (s, i, l) = try unlockedLayer(shotID, layerID)
            return try replace(s, i, l, shotID, layerID, remove: [], add: strokes, indexes: indexes, author: author, op: .add)

        case .removeStrokes(let shotID, let layerID, let ids):
            let (s, i, l) = try unlockedLayer(shotID, layerID)
            return try replace(s, i, l, shotID, layerID, remove: ids, add: [], indexes: nil, author: author, op: .remove)

        case .replaceStrokes(let shotID, let layerID, let remove, let add, let indexes):
            let (s, i, l) = try unlockedLayer(shotID, layerID)
            return try replace(s, i, l, shotID, layerID, remove: remove, add: add, indexes: indexes, author: author, op: .replace)
        }
    }

    private enum StrokeOp { case add, remove, replace }

    /// The three stroke edits: remove some strokes, then put others in (in the place of the first
    /// removed one, on top, or at their `indexes`).
    private mutating func replace(
        _ s: Int, _ i: Int, _ l: Int, _ shotID: String, _ layerID: String, remove: [String], add: [SketchStroke],
        indexes: [Int]?, author: String, op: StrokeOp
    ) throws(StoryboardError) -> StoryboardEdit {
        let layer = scenes[s].shots[i].layers[l]
        guard Set(remove).count == remove.count else { throw .invalid("A stroke is listed twice.") }
        var removedAt: [Int] = []
        for id in remove {
            guard let k = layer.strokes.firstIndex(where: { $0.id == id }) else { throw .unknownStroke }
            removedAt.append(k)
        }
        for stroke in add { try stroke.validate() }
        if let indexes, indexes.count != add.count { throw .invalid("There is one index per added stroke.") }
        var taken = scenes[s].shots[i].strokeIDs.subtracting(remove)
        for stroke in add where !taken.insert(stroke.id).inserted { throw .duplicateID }
        guard layer.strokes.count - remove.count + add.count <= StoryboardLimits.strokesPerLayer else {
            throw .tooLarge("A layer has at most \(StoryboardLimits.strokesPerLayer) strokes.")
        }

        removedAt.sort()
        let removed = removedAt.map { layer.strokes[$0] }
        var strokes = layer.strokes
        for k in removedAt.reversed() { strokes.remove(at: k) }
        let stamped = add.map { Self.stamped($0, author) }
        if let indexes {
            let placed = zip(indexes, stamped).enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }
            for (_, (index, stroke)) in placed { strokes.insert(stroke, at: Self.clamp(index, strokes.count)) }
        } else {
            strokes.insert(contentsOf: stamped, at: removedAt.first ?? strokes.count)
        }
        scenes[s].shots[i].layers[l].strokes = strokes

        switch op {
        case .add: return .removeStrokes(shot: shotID, layer: layerID, strokes: add.map(\.id))
        case .remove: return .addStrokes(shot: shotID, layer: layerID, strokes: removed, indexes: removedAt)
        case .replace:
            return .replaceStrokes(shot: shotID, layer: layerID, remove: add.map(\.id), add: removed, indexes: removedAt)
        }
    }

    // MARK: - Helpers

    /// An index clamped to 0...upper.
    static func clamp(_ index: Int, _ upper: Int) -> Int { min(max(index, 0), upper) }

    private func sceneIndex(_ id: String) throws(StoryboardError) -> Int {
        guard let s = scenes.firstIndex(where: { $0.id == id }) else { throw .unknownScene }
        return s
    }

    private func shotPosition(_ id: String) throws(StoryboardError) -> (Int, Int) {
        guard let position = position(ofShot: id) else { throw .unknownShot }
        return position
    }

    private func layerIndex(_ id: String, _ s: Int, _ i: Int) throws(StoryboardError) -> Int {
        guard let l = scenes[s].shots[i].layers.firstIndex(where: { $0.id == id }) else { throw .unknownLayer }
        return l
    }

    private func unlockedLayer(_ shotID: String, _ layerID: String) throws(StoryboardError) -> (Int, Int, Int) {
        let (s, i) = try shotPosition(shotID)
        let l = try layerIndex(layerID, s, i)
        guard !scenes[s].shots[i].layers[l].locked else { throw .layerLocked }
        return (s, i, l)
    }

    private func checkShotRoom(_ count: Int) throws(StoryboardError) {
        guard shotCount + count <= StoryboardLimits.shots else {
            throw .tooLarge("A project has at most \(StoryboardLimits.shots) shots.")
        }
    }

    /// Validates shots that join the project: each whole, ids new and distinct, room for them.
    private func checkNewShots(_ shots: [Shot]) throws(StoryboardError) -> [Shot] {
        var ids = Set(allShots.map(\.id))
        for shot in shots {
            try shot.validate()
            guard ids.insert(shot.id).inserted else { throw .duplicateID }
        }
        try checkShotRoom(shots.count)
        return shots
    }

    /// A new shot without a number gets the next one (counting `others`, joining with it).
    private func numbered(_ shot: Shot, others: ArraySlice<Shot>) -> Shot {
        guard shot.number.isEmpty else { return shot }
        var copy = shot
        copy.number = ShotNumber.next(in: Storyboard(scenes: scenes + [StoryScene(id: "", title: "", shots: Array(others))]))
        return copy
    }

    static func stamped(_ layer: SketchLayer, _ author: String) -> SketchLayer {
        var copy = layer
        copy.strokes = copy.strokes.map { stamped($0, author) }
        return copy
    }

    static func stamped(_ stroke: SketchStroke, _ author: String) -> SketchStroke {
        guard stroke.author.isEmpty else { return stroke }
        var copy = stroke
        copy.author = author
        return copy
    }

    static func stamped(_ shot: Shot, _ author: String) -> Shot {
        var copy = shot
        for l in copy.layers.indices { copy.layers[l].strokes = copy.layers[l].strokes.map { stamped($0, author) } }
        return copy
    }

    /// The id of a copy's layer or stroke: "<copy>-<old id>", keeping the end of the old id when
    /// that would be longer than 64 characters.
    static func derivedID(_ copy: String, _ old: String) -> String {
        let room = StoryboardLimits.idLength - copy.unicodeScalars.count - 1
        let kept = old.unicodeScalars.count <= room ? old : String(String.UnicodeScalarView(old.unicodeScalars.suffix(room)))
        return copy + "-" + kept
    }
}

extension StoryboardEdit {
    /// The edit with `author` set on every stroke it brings that has none: what the model stores
    /// when it applies the edit, so the edit that is recorded and broadcast says who drew (it
    /// applies to the same content).
    public func stamped(by author: String) -> StoryboardEdit {
        typealias S = Storyboard
        switch self {
        case .addScene(let scene, let title, let index, let shots):
            return .addScene(scene: scene, title: title, index: index, shots: shots?.map { S.stamped($0, author) })
        case .addShot(let scene, let index, let shot):
            return .addShot(scene: scene, index: index, shot: S.stamped(shot, author))
        case .restoreShot(let shot):
            return .restoreShot(shot: S.stamped(shot, author))
        case .addLayer(let shot, let layer, let index):
            return .addLayer(shot: shot, layer: S.stamped(layer, author), index: index)
        case .addStrokes(let shot, let layer, let strokes, let indexes):
            return .addStrokes(shot: shot, layer: layer, strokes: strokes.map { S.stamped($0, author) }, indexes: indexes)
        case .replaceStrokes(let shot, let layer, let remove, let add, let indexes):
            return .replaceStrokes(
                shot: shot, layer: layer, remove: remove, add: add.map { S.stamped($0, author) }, indexes: indexes)
        default:
            return self
        }
    }
}
