import Foundation
import PodiumCore

// The storyboard socket's frames (docs/protocol.md, "The storyboard socket"): the server encodes
// them, the SDK decodes them. Each encodes its `type` first; decoding ignores it (the reader has
// already switched on it).

/// Someone editing a storyboard: one connection (a person in two tabs is two editors).
public struct StoryboardEditorInfo: Codable, Sendable, Equatable {
    /// This connection's number in the project.
    public var editor: Int
    public var userId: String
    public var name: String
    /// Their cursor's and name tag's colour.
    public var color: String

    public init(editor: Int, userId: String, name: String, color: String) {
        self.editor = editor
        self.userId = userId
        self.name = name
        self.color = color
    }
}

extension StoryboardEditorInfo: Comparable {
    /// By editor number (the order the editors list shows).
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.editor < rhs.editor }
}

/// A stroke being drawn, shown live to the other editors (not stored; the edit that ends it is):
/// no id yet, only what the others need to draw it.
public struct StoryboardDrawingStroke: Codable, Sendable, Equatable {
    public var tool: SketchStroke.Tool
    public var color: String
    public var width: Double
    /// `[x, y, pressure]` each, 0...1.
    public var points: [[Double]]

    public init(tool: SketchStroke.Tool, color: String, width: Double, points: [[Double]]) {
        self.tool = tool
        self.color = color
        self.width = width
        self.points = points
    }
}

/// `{"type": "edited", "seq", "author", "by", "edit"}`: an edit stored as `seq` (the durable event
/// of the storyboard socket). `by` is the id the author's editor gave it, `null` when none.
public struct StoryboardEdited: Codable, Sendable, Equatable {
    public var seq: Int
    /// The user whose edit it is.
    public var author: String
    /// The id the author's editor gave it (nil: none; sent as `null`).
    public var by: String?
    public var edit: StoryboardEdit

    public init(seq: Int, author: String, by: String?, edit: StoryboardEdit) {
        self.seq = seq
        self.author = author
        self.by = by
        self.edit = edit
    }

    enum CodingKeys: String, CodingKey { case type, seq, author, by, edit }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decode(Int.self, forKey: .seq)
        author = try container.decode(String.self, forKey: .author)
        by = try container.decodeIfPresent(String.self, forKey: .by)
        edit = try container.decode(StoryboardEdit.self, forKey: .edit)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("edited", forKey: .type)
        try container.encode(seq, forKey: .seq)
        try container.encode(author, forKey: .author)
        try container.encode(by, forKey: .by)
        try container.encode(edit, forKey: .edit)
    }
}

/// The storyboard socket's welcome (`{"type": "welcome", "seq", "storyboard", "you", "editors",
/// "missed"?}`): the project's content as of `seq`, who you are, who edits, and after a hello
/// with `lastSeq` the `edited` frames missed (left out when there were none to replay, or when
/// the editor must take `storyboard` whole).
public struct StoryboardWelcome: Codable, Sendable, Equatable {
    public var seq: Int
    public var storyboard: Storyboard
    public var you: StoryboardEditorInfo
    public var editors: [StoryboardEditorInfo]
    public var missed: [StoryboardEdited]?

    public init(
        seq: Int, storyboard: Storyboard, you: StoryboardEditorInfo, editors: [StoryboardEditorInfo],
        missed: [StoryboardEdited]? = nil
    ) {
        self.seq = seq
        self.storyboard = storyboard
        self.you = you
        self.editors = editors
        self.missed = missed
    }

    enum CodingKeys: String, CodingKey { case type, seq, storyboard, you, editors, missed }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decode(Int.self, forKey: .seq)
        storyboard = try container.decode(Storyboard.self, forKey: .storyboard)
        you = try container.decode(StoryboardEditorInfo.self, forKey: .you)
        editors = try container.decode([StoryboardEditorInfo].self, forKey: .editors)
        missed = try container.decodeIfPresent([StoryboardEdited].self, forKey: .missed)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("welcome", forKey: .type)
        try container.encode(seq, forKey: .seq)
        try container.encode(storyboard, forKey: .storyboard)
        try container.encode(you, forKey: .you)
        try container.encode(editors, forKey: .editors)
        try container.encodeIfPresent(missed, forKey: .missed)
    }
}

/// `{"type": "ack", "id", "seq"}`: the editor's edit `id` is stored as `seq`.
public struct StoryboardAck: Codable, Sendable, Equatable {
    public var id: String
    public var seq: Int

    public init(id: String, seq: Int) {
        self.id = id
        self.seq = seq
    }

    enum CodingKeys: String, CodingKey { case type, id, seq }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        seq = try container.decode(Int.self, forKey: .seq)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("ack", forKey: .type)
        try container.encode(id, forKey: .id)
        try container.encode(seq, forKey: .seq)
    }
}

/// `{"type": "editors", "editors"}`: who edits the project now.
public struct StoryboardEditors: Codable, Sendable, Equatable {
    public var editors: [StoryboardEditorInfo]

    public init(editors: [StoryboardEditorInfo]) {
        self.editors = editors
    }

    enum CodingKeys: String, CodingKey { case type, editors }

    public init(from decoder: any Decoder) throws {
        editors = try decoder.container(keyedBy: CodingKeys.self).decode([StoryboardEditorInfo].self, forKey: .editors)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("editors", forKey: .type)
        try container.encode(editors, forKey: .editors)
    }
}

/// `{"type": "drawing", "editor", "shot", "layer", "stroke"}`: another editor's stroke in
/// progress (`stroke` is `null` when it ended).
public struct StoryboardDrawing: Codable, Sendable, Equatable {
    public var editor: Int
    public var shot: String
    public var layer: String
    public var stroke: StoryboardDrawingStroke?

    public init(editor: Int, shot: String, layer: String, stroke: StoryboardDrawingStroke?) {
        self.editor = editor
        self.shot = shot
        self.layer = layer
        self.stroke = stroke
    }

    enum CodingKeys: String, CodingKey { case type, editor, shot, layer, stroke }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        editor = try container.decode(Int.self, forKey: .editor)
        shot = try container.decode(String.self, forKey: .shot)
        layer = try container.decode(String.self, forKey: .layer)
        stroke = try container.decodeIfPresent(StoryboardDrawingStroke.self, forKey: .stroke)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("drawing", forKey: .type)
        try container.encode(editor, forKey: .editor)
        try container.encode(shot, forKey: .shot)
        try container.encode(layer, forKey: .layer)
        try container.encode(stroke, forKey: .stroke)
    }
}

/// `{"type": "cursor", "editor", "shot", "x", "y"}`: another editor's pointer on a shot.
public struct StoryboardCursor: Codable, Sendable, Equatable {
    public var editor: Int
    public var shot: String
    public var x: Double
    public var y: Double

    public init(editor: Int, shot: String, x: Double, y: Double) {
        self.editor = editor
        self.shot = shot
        self.x = x
        self.y = y
    }

    enum CodingKeys: String, CodingKey { case type, editor, shot, x, y }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        editor = try container.decode(Int.self, forKey: .editor)
        shot = try container.decode(String.self, forKey: .shot)
        x = try container.decode(Double.self, forKey: .x)
        y = try container.decode(Double.self, forKey: .y)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("cursor", forKey: .type)
        try container.encode(editor, forKey: .editor)
        try container.encode(shot, forKey: .shot)
        try container.encode(x, forKey: .x)
        try container.encode(y, forKey: .y)
    }
}

/// `{"type": "error", "id", "code", "message"}`: an error on the storyboard socket, about a
/// command (`id`) or the socket itself (`id` is `null`).
public struct StoryboardErrorMessage: Codable, Sendable, Equatable {
    public var id: String?
    public var code: String
    public var message: String

    public init(id: String? = nil, code: String, message: String) {
        self.id = id
        self.code = code
        self.message = message
    }

    enum CodingKeys: String, CodingKey { case type, id, code, message }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        code = try container.decode(String.self, forKey: .code)
        message = try container.decode(String.self, forKey: .message)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("error", forKey: .type)
        try container.encode(id, forKey: .id)
        try container.encode(code, forKey: .code)
        try container.encode(message, forKey: .message)
    }
}
