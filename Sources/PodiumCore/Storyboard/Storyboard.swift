/// The content of a storyboard project: its scenes, their shots, the shots' layers and strokes.
///
/// Pure data, edited only through ``StoryboardEdit`` (see `Storyboard+Apply.swift`); the browser
/// keeps the same JSON (`Public/app/storyboard/model.js`).
public struct Storyboard: Codable, Sendable, Equatable {
    public var scenes: [StoryScene]

    public init(scenes: [StoryScene] = []) {
        self.scenes = scenes
    }

    /// A new project's content: one scene "Scene 1" with one shot "1" of 3 s on white, with one
    /// empty layer "Layer 1". The ids are the caller's (clients make ids).
    public static func empty(firstScene: String, firstShot: String, layer: String) -> Storyboard {
        let shot = Shot(id: firstShot, number: "1", layers: [SketchLayer(id: layer, name: "Layer 1")])
        return Storyboard(scenes: [StoryScene(id: firstScene, title: "Scene 1", shots: [shot])])
    }
}

/// A scene: a title and its shots, in order.
public struct StoryScene: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var shots: [Shot]

    public init(id: String, title: String, shots: [Shot] = []) {
        self.id = id
        self.title = title
        self.shots = shots
    }
}

/// One panel of the storyboard.
public struct Shot: Codable, Sendable, Equatable {
    public var id: String
    /// "1", "2", "2A"… (given by the model when a shot is added with none; see `ShotNumber.swift`).
    public var number: String
    /// Seconds, 0.1...600.
    public var duration: Double
    public var dialogue: String
    public var action: String
    public var notes: String
    /// `#RRGGBB`.
    public var background: String
    /// Bottom first; at least one.
    public var layers: [SketchLayer]

    public init(
        id: String, number: String = "", duration: Double = 3, dialogue: String = "", action: String = "",
        notes: String = "", background: String = "#ffffff", layers: [SketchLayer] = []
    ) {
        self.id = id
        self.number = number
        self.duration = duration
        self.dialogue = dialogue
        self.action = action
        self.notes = notes
        self.background = background
        self.layers = layers
    }

    enum CodingKeys: String, CodingKey { case id, number, duration, dialogue, action, notes, background, layers }

    /// A client adding a shot may leave out `number` (the model gives it one).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        number = try container.decodeIfPresent(String.self, forKey: .number) ?? ""
        duration = try container.decode(Double.self, forKey: .duration)
        dialogue = try container.decode(String.self, forKey: .dialogue)
        action = try container.decode(String.self, forKey: .action)
        notes = try container.decode(String.self, forKey: .notes)
        background = try container.decode(String.self, forKey: .background)
        layers = try container.decode([SketchLayer].self, forKey: .layers)
    }
}

/// A layer of a shot's drawing.
public struct SketchLayer: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var visible: Bool
    public var locked: Bool
    /// 0...1.
    public var opacity: Double
    /// Layers with the same group id are a group; nil: in no group.
    public var group: String?
    public var transform: LayerTransform
    /// Oldest (bottom) first.
    public var strokes: [SketchStroke]
    /// A reference picture under the layer's strokes (absent: none), moved, scaled and turned by
    /// the layer's transform and dimmed by its opacity. A guide: the editor shows it, the
    /// exports and the project page leave it out.
    public var image: LayerImage?

    public init(
        id: String, name: String, visible: Bool = true, locked: Bool = false, opacity: Double = 1, group: String? = nil,
        transform: LayerTransform = .identity, strokes: [SketchStroke] = [], image: LayerImage? = nil
    ) {
        self.id = id
        self.name = name
        self.visible = visible
        self.locked = locked
        self.opacity = opacity
        self.group = group
        self.transform = transform
        self.strokes = strokes
        self.image = image
    }
}

/// A reference picture on a layer: an uploaded blob (`POST /api/v1/storyboards/{id}/images`),
/// fitted whole into the shot and centred before the layer's transform.
public struct LayerImage: Codable, Sendable, Equatable {
    /// The blob's name, `<sha256>.jpg|png|webp`, served at `/blobs/<name>`.
    public var blob: String
    /// Its size in pixels (for its proportions), 1...``StoryboardLimits/imageSide``.
    public var width: Int
    public var height: Int

    public init(blob: String, width: Int, height: Int) {
        self.blob = blob
        self.width = width
        self.height = height
    }
}

/// How a layer's drawing is moved, scaled and rotated on its own (about the shot's centre).
public struct LayerTransform: Codable, Sendable, Equatable {
    /// Offsets in normalised shot units.
    public var x: Double
    public var y: Double
    /// 0.05...20.
    public var scale: Double
    /// Radians.
    public var rotation: Double

    public init(x: Double = 0, y: Double = 0, scale: Double = 1, rotation: Double = 0) {
        self.x = x
        self.y = y
        self.scale = scale
        self.rotation = rotation
    }

    public static let identity = LayerTransform()
}

/// A committed vector stroke.
public struct SketchStroke: Codable, Sendable, Equatable {
    public enum Tool: String, Codable, Sendable {
        case pen
        /// Translucent.
        case marker
        case pencil
    }

    public var id: String
    /// The user id of who drew it (set by the model from the edit's author when sent empty).
    public var author: String
    public var tool: Tool
    /// `#RRGGBB`.
    public var color: String
    /// A fraction of the shot's width, 0.0005...0.2.
    public var width: Double
    /// `[x, y, pressure]`: x and y normalised to the shot (-1...2), pressure 0...1.
    public var points: [[Double]]

    public init(id: String, author: String = "", tool: Tool = .pen, color: String, width: Double, points: [[Double]]) {
        self.id = id
        self.author = author
        self.tool = tool
        self.color = color
        self.width = width
        self.points = points
    }

    enum CodingKeys: String, CodingKey { case id, author, tool, color, width, points }

    /// A client may leave out `author`: the model sets it to the edit's author.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        author = try container.decodeIfPresent(String.self, forKey: .author) ?? ""
        tool = try container.decode(Tool.self, forKey: .tool)
        color = try container.decode(String.self, forKey: .color)
        width = try container.decode(Double.self, forKey: .width)
        points = try container.decode([[Double]].self, forKey: .points)
    }
}

// MARK: - Finding things

extension Storyboard {
    /// Where a shot is: its scene's index and its index in that scene.
    public func position(ofShot id: String) -> (scene: Int, shot: Int)? {
        for (sceneIndex, scene) in scenes.enumerated() {
            if let shotIndex = scene.shots.firstIndex(where: { $0.id == id }) { return (sceneIndex, shotIndex) }
        }
        return nil
    }

    public func shot(id: String) -> Shot? {
        position(ofShot: id).map { scenes[$0.scene].shots[$0.shot] }
    }

    public func scene(id: String) -> StoryScene? {
        scenes.first { $0.id == id }
    }

    public func scene(containingShot id: String) -> StoryScene? {
        position(ofShot: id).map { scenes[$0.scene] }
    }

    /// Every shot, in story order (scene by scene).
    public var allShots: [Shot] { scenes.flatMap(\.shots) }

    public var shotCount: Int { scenes.reduce(0) { $0 + $1.shots.count } }

    /// The shots around a shot in story order, across scenes (for the onion skin): up to `before`
    /// shots before it and `after` after it, each list nearest first. Empty lists for an unknown shot.
    public func neighbours(of shot: String, before: Int, after: Int) -> (before: [Shot], after: [Shot]) {
        let shots = allShots
        guard let index = shots.firstIndex(where: { $0.id == shot }) else { return ([], []) }
        let earlier = shots[max(0, index - max(0, before))..<index].reversed()
        let later = shots[(index + 1)..<min(shots.count, index + 1 + max(0, after))]
        return (Array(earlier), Array(later))
    }
}
