/// An edit of a storyboard was refused; nothing changed.
///
/// `code` is stable and meant for programs (the browser's `model.js` throws the same codes);
/// `message` is for people.
public struct StoryboardError: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    public let code: String
    public let message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    public static let unknownScene = StoryboardError(code: "unknown_scene", message: "There is no such scene.")
    public static let unknownShot = StoryboardError(code: "unknown_shot", message: "There is no such shot.")
    public static let unknownLayer = StoryboardError(code: "unknown_layer", message: "There is no such layer in this shot.")
    public static let unknownStroke = StoryboardError(
        code: "unknown_stroke", message: "There is no such stroke in this layer.")
    public static let duplicateID = StoryboardError(code: "duplicate_id", message: "That id is taken already.")
    public static let layerLocked = StoryboardError(code: "layer_locked", message: "This layer is locked.")
    public static let lastLayer = StoryboardError(code: "last_layer", message: "A shot keeps at least one layer.")
    public static let nothingToUndo = StoryboardError(code: "nothing_to_undo", message: "You have nothing left to undo.")
    public static let nothingToRedo = StoryboardError(code: "nothing_to_redo", message: "You have nothing left to redo.")

    /// A value out of range or malformed (an id, a colour, a number, a point).
    public static func invalid(_ detail: String) -> StoryboardError {
        StoryboardError(code: "invalid_edit", message: detail)
    }

    /// A limit: scenes, shots, layers, strokes, points or characters.
    public static func tooLarge(_ detail: String) -> StoryboardError {
        StoryboardError(code: "too_large", message: detail)
    }
}
