import Foundation

/// One change to a storyboard's content. Its JSON is an object whose `"op"` names the case, with
/// camelCase keys; optional fields are absent when nil. Applied by ``Storyboard/apply(_:by:)``.
///
/// Indexes are clamped to the valid range; `index` of a move is the place the thing ends up at.
public enum StoryboardEdit: Sendable, Equatable {
    /// `shots` (absent from a client's edit) brings the scene's shots back: the inverse of `deleteScene`.
    case addScene(scene: String, title: String, index: Int? = nil, shots: [Shot]? = nil)
    case renameScene(scene: String, title: String)
    case deleteScene(scene: String)
    case moveScene(scene: String, index: Int)
    /// The new shot, whole; an empty `number` is given the next number.
    case addShot(scene: String, index: Int? = nil, shot: Shot)
    /// The copy goes right after the original, numbered with the next letter ("2" → "2A").
    case duplicateShot(shot: String, newShot: String)
    case deleteShot(shot: String)
    /// Within or across scenes.
    case moveShot(shot: String, scene: String, index: Int)
    case updateShot(
        shot: String, duration: Double? = nil, dialogue: String? = nil, action: String? = nil, notes: String? = nil,
        background: String? = nil)
    /// Numbers every shot 1, 2, 3… in story order; with `numbers` (shot id → number), sets just
    /// those (the inverse of a renumbering).
    case renumberShots(numbers: [String: String]? = nil)
    /// Replaces the shot with the same id, whole (a version restored).
    case restoreShot(shot: Shot)
    /// `index` from the bottom; default on top.
    case addLayer(shot: String, layer: SketchLayer, index: Int? = nil)
    case updateLayer(
        shot: String, layer: String, name: String? = nil, visible: Bool? = nil, locked: Bool? = nil, opacity: Double? = nil,
        transform: LayerTransform? = nil)
    case moveLayer(shot: String, layer: String, index: Int)
    /// A shot keeps at least one layer.
    case deleteLayer(shot: String, layer: String)
    /// Puts layers in no group into a new group.
    case groupLayers(shot: String, layers: [String], group: String)
    case ungroupLayers(shot: String, group: String)
    /// Appended on top; with `indexes` (one per stroke), each stroke ends up at its index
    /// (the inverse of a removal puts strokes back where they were).
    case addStrokes(shot: String, layer: String, strokes: [SketchStroke], indexes: [Int]? = nil)
    case removeStrokes(shot: String, layer: String, strokes: [String])
    /// The added strokes take the place of the first removed one in the layer's order (on top
    /// when nothing is removed), or their `indexes` when given.
    case replaceStrokes(shot: String, layer: String, remove: [String], add: [SketchStroke], indexes: [Int]? = nil)

    /// The name of the case: the JSON's `op`.
    public var op: String {
        switch self {
        case .addScene: "addScene"
        case .renameScene: "renameScene"
        case .deleteScene: "deleteScene"
        case .moveScene: "moveScene"
        case .addShot: "addShot"
        case .duplicateShot: "duplicateShot"
        case .deleteShot: "deleteShot"
        case .moveShot: "moveShot"
        case .updateShot: "updateShot"
        case .renumberShots: "renumberShots"
        case .restoreShot: "restoreShot"
        case .addLayer: "addLayer"
        case .updateLayer: "updateLayer"
        case .moveLayer: "moveLayer"
        case .deleteLayer: "deleteLayer"
        case .groupLayers: "groupLayers"
        case .ungroupLayers: "ungroupLayers"
        case .addStrokes: "addStrokes"
        case .removeStrokes: "removeStrokes"
        case .replaceStrokes: "replaceStrokes"
        }
    }

    public static let ops = [
        "addScene", "renameScene", "deleteScene", "moveScene", "addShot", "duplicateShot", "deleteShot", "moveShot",
        "updateShot", "renumberShots", "restoreShot", "addLayer", "updateLayer", "moveLayer", "deleteLayer", "groupLayers",
        "ungroupLayers", "addStrokes", "removeStrokes", "replaceStrokes",
    ]
}

extension StoryboardEdit: Codable {
    enum CodingKeys: String, CodingKey {
        case op, scene, title, index, shots, shot, newShot, duration, dialogue, action, notes, background, numbers
        case layer, name, visible, locked, opacity, transform, layers, group, strokes, indexes, remove, add
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let op = try c.decode(String.self, forKey: .op)
        func string(_ key: CodingKeys) throws -> String { try c.decode(String.self, forKey: key) }
        switch op {
        case "addScene":
            self = .addScene(
                scene: try string(.scene), title: try string(.title), index: try c.decodeIfPresent(Int.self, forKey: .index),
                shots: try c.decodeIfPresent([Shot].self, forKey: .shots))
        case "renameScene": self = .renameScene(scene: try string(.scene), title: try string(.title))
        case "deleteScene": self = .deleteScene(scene: try string(.scene))
        case "moveScene": self = .moveScene(scene: try string(.scene), index: try c.decode(Int.self, forKey: .index))
        case "addShot":
            self = .addShot(
                scene: try string(.scene), index: try c.decodeIfPresent(Int.self, forKey: .index),
                shot: try c.decode(Shot.self, forKey: .shot))
        case "duplicateShot": self = .duplicateShot(shot: try string(.shot), newShot: try string(.newShot))
        case "deleteShot": self = .deleteShot(shot: try string(.shot))
        case "moveShot":
            self = .moveShot(shot: try string(.shot), scene: try string(.scene), index: try c.decode(Int.self, forKey: .index))
        case "updateShot":
            self = .updateShot(
                shot: try string(.shot), duration: try c.decodeIfPresent(Double.self, forKey: .duration),
                dialogue: try c.decodeIfPresent(String.self, forKey: .dialogue),
                action: try c.decodeIfPresent(String.self, forKey: .action),
                notes: try c.decodeIfPresent(String.self, forKey: .notes),
                background: try c.decodeIfPresent(String.self, forKey: .background))
        case "renumberShots": self = .renumberShots(numbers: try c.decodeIfPresent([String: String].self, forKey: .numbers))
        case "restoreShot": self = .restoreShot(shot: try c.decode(Shot.self, forKey: .shot))
        case "addLayer":
            self = .addLayer(
                shot: try string(.shot), layer: try c.decode(SketchLayer.self, forKey: .layer),
                index: try c.decodeIfPresent(Int.self, forKey: .index))
        case "updateLayer":
            self = .updateLayer(
                shot: try string(.shot), layer: try string(.layer), name: try c.decodeIfPresent(String.self, forKey: .name),
                visible: try c.decodeIfPresent(Bool.self, forKey: .visible),
                locked: try c.decodeIfPresent(Bool.self, forKey: .locked),
                opacity: try c.decodeIfPresent(Double.self, forKey: .opacity),
                transform: try c.decodeIfPresent(LayerTransform.self, forKey: .transform))
        case "moveLayer":
            self = .moveLayer(shot: try string(.shot), layer: try string(.layer), index: try c.decode(Int.self, forKey: .index))
        case "deleteLayer": self = .deleteLayer(shot: try string(.shot), layer: try string(.layer))
        case "groupLayers":
            self = .groupLayers(
                shot: try string(.shot), layers: try c.decode([String].self, forKey: .layers), group: try string(.group))
        case "ungroupLayers": self = .ungroupLayers(shot: try string(.shot), group: try string(.group))
        case "addStrokes":
            self = .addStrokes(
                shot: try string(.shot), layer: try string(.layer), strokes: try c.decode([SketchStroke].self, forKey: .strokes),
                indexes: try c.decodeIfPresent([Int].self, forKey: .indexes))
        case "removeStrokes":
            self = .removeStrokes(
                shot: try string(.shot), layer: try string(.layer), strokes: try c.decode([String].self, forKey: .strokes))
        case "replaceStrokes":
            self = .replaceStrokes(
                shot: try string(.shot), layer: try string(.layer), remove: try c.decode([String].self, forKey: .remove),
                add: try c.decode([SketchStroke].self, forKey: .add), indexes: try c.decodeIfPresent([Int].self, forKey: .indexes)
            )
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .op, in: c, debugDescription: "Unknown storyboard edit op \"\(op)\".")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(op, forKey: .op)
        switch self {
        case .addScene(let scene, let title, let index, let shots):
            try c.encode(scene, forKey: .scene)
            try c.encode(title, forKey: .title)
            try c.encodeIfPresent(index, forKey: .index)
            try c.encodeIfPresent(shots, forKey: .shots)
        case .renameScene(let scene, let title):
            try c.encode(scene, forKey: .scene)
            try c.encode(title, forKey: .title)
        case .deleteScene(let scene):
            try c.encode(scene, forKey: .scene)
        case .moveScene(let scene, let index):
            try c.encode(scene, forKey: .scene)
            try c.encode(index, forKey: .index)
        case .addShot(let scene, let index, let shot):
            try c.encode(scene, forKey: .scene)
            try c.encodeIfPresent(index, forKey: .index)
            try c.encode(shot, forKey: .shot)
        case .duplicateShot(let shot, let newShot):
            try c.encode(shot, forKey: .shot)
            try c.encode(newShot, forKey: .newShot)
        case .deleteShot(let shot):
            try c.encode(shot, forKey: .shot)
        case .moveShot(let shot, let scene, let index):
            try c.encode(shot, forKey: .shot)
            try c.encode(scene, forKey: .scene)
            try c.encode(index, forKey: .index)
        case .updateShot(let shot, let duration, let dialogue, let action, let notes, let background):
            try c.encode(shot, forKey: .shot)
            try c.encodeIfPresent(duration, forKey: .duration)
            try c.encodeIfPresent(dialogue, forKey: .dialogue)
            try c.encodeIfPresent(action, forKey: .action)
            try c.encodeIfPresent(notes, forKey: .notes)
            try c.encodeIfPresent(background, forKey: .background)
        case .renumberShots(let numbers):
            try c.encodeIfPresent(numbers, forKey: .numbers)
        case .restoreShot(let shot):
            try c.encode(shot, forKey: .shot)
        case .addLayer(let shot, let layer, let index):
            try c.encode(shot, forKey: .shot)
            try c.encode(layer, forKey: .layer)
            try c.encodeIfPresent(index, forKey: .index)
        case .updateLayer(let shot, let layer, let name, let visible, let locked, let opacity, let transform):
            try c.encode(shot, forKey: .shot)
            try c.encode(layer, forKey: .layer)
            try c.encodeIfPresent(name, forKey: .name)
            try c.encodeIfPresent(visible, forKey: .visible)
            try c.encodeIfPresent(locked, forKey: .locked)
            try c.encodeIfPresent(opacity, forKey: .opacity)
            try c.encodeIfPresent(transform, forKey: .transform)
        case .moveLayer(let shot, let layer, let index):
            try c.encode(shot, forKey: .shot)
            try c.encode(layer, forKey: .layer)
            try c.encode(index, forKey: .index)
        case .deleteLayer(let shot, let layer):
            try c.encode(shot, forKey: .shot)
            try c.encode(layer, forKey: .layer)
        case .groupLayers(let shot, let layers, let group):
            try c.encode(shot, forKey: .shot)
            try c.encode(layers, forKey: .layers)
            try c.encode(group, forKey: .group)
        case .ungroupLayers(let shot, let group):
            try c.encode(shot, forKey: .shot)
            try c.encode(group, forKey: .group)
        case .addStrokes(let shot, let layer, let strokes, let indexes):
            try c.encode(shot, forKey: .shot)
            try c.encode(layer, forKey: .layer)
            try c.encode(strokes, forKey: .strokes)
            try c.encodeIfPresent(indexes, forKey: .indexes)
        case .removeStrokes(let shot, let layer, let strokes):
            try c.encode(shot, forKey: .shot)
            try c.encode(layer, forKey: .layer)
            try c.encode(strokes, forKey: .strokes)
        case .replaceStrokes(let shot, let layer, let remove, let add, let indexes):
            try c.encode(shot, forKey: .shot)
            try c.encode(layer, forKey: .layer)
            try c.encode(remove, forKey: .remove)
            try c.encode(add, forKey: .add)
            try c.encodeIfPresent(indexes, forKey: .indexes)
        }
    }
}
