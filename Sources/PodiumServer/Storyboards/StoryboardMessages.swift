import Foundation
import PodiumCore
import PodiumWire

/// What an editor sends on the storyboard socket (`docs/protocol.md`, "Storyboard editing").
enum StoryboardClientMessage: Sendable {
    /// `token`: an API token; nil from a signed-in browser, whose cookie came with the upgrade
    /// (its API token is HttpOnly, out of the page's reach). `lastSeq`: the seq of the last
    /// `edited` a reconnecting editor applied (its welcome then carries what it missed).
    case hello(token: String?, lastSeq: Int? = nil)
    case edit(id: String, edit: StoryboardEdit)
    case undo(id: String)
    case redo(id: String)
    /// The stroke being drawn (nil when it ended), for the others to see while it is drawn.
    case drawing(shot: String, layer: String, stroke: DrawingStroke?)
    case cursor(shot: String, x: Double, y: Double)
    case ping(t: Double?)

    /// The command's id, for an error about it.
    var commandID: String? {
        switch self {
        case .edit(let id, _), .undo(let id), .redo(let id): id
        default: nil
        }
    }

    /// Command ids: what editors make, short enough to keep.
    static func isValidID(_ id: String) -> Bool { (1...64).contains(id.utf8.count) }
}

extension StoryboardClientMessage: Decodable {
    enum CodingKeys: String, CodingKey { case type, token, lastSeq, id, edit, shot, layer, stroke, x, y, t }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "hello":
            self = .hello(
                token: try container.decodeIfPresent(String.self, forKey: .token),
                lastSeq: try container.decodeIfPresent(Int.self, forKey: .lastSeq))
        case "edit":
            self = .edit(
                id: try container.decode(String.self, forKey: .id), edit: try container.decode(StoryboardEdit.self, forKey: .edit)
            )
        case "undo": self = .undo(id: try container.decode(String.self, forKey: .id))
        case "redo": self = .redo(id: try container.decode(String.self, forKey: .id))
        case "drawing":
            self = .drawing(
                shot: try container.decode(String.self, forKey: .shot), layer: try container.decode(String.self, forKey: .layer),
                stroke: try container.decodeIfPresent(DrawingStroke.self, forKey: .stroke))
        case "cursor":
            self = .cursor(
                shot: try container.decode(String.self, forKey: .shot), x: try container.decode(Double.self, forKey: .x),
                y: try container.decode(Double.self, forKey: .y))
        case "ping": self = .ping(t: try container.decodeIfPresent(Double.self, forKey: .t))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "Unknown message type \"\(type)\".")
        }
    }
}

/// A stroke while it is drawn (PodiumWire's, which the SDK decodes).
typealias DrawingStroke = StoryboardDrawingStroke

extension StoryboardDrawingStroke {
    /// Whether it could become a stroke (the same limits as a committed one).
    var isValid: Bool {
        (try? SketchStroke(id: "drawing", author: "drawing", tool: tool, color: color, width: width, points: points)
            .validate()) != nil
    }
}

// The frames the server sends (StoryboardWelcome, StoryboardEdited, StoryboardAck,
// StoryboardEditors, StoryboardDrawing, StoryboardCursor, StoryboardErrorMessage) are PodiumWire's.

extension StoryboardEdited {
    /// A stored edit as sent (nil when it could not be read).
    init?(_ entry: StoryboardLogEntry) {
        guard let edit = entry.edit else { return nil }
        self.init(seq: entry.seq, author: entry.author, by: entry.commandID, edit: edit)
    }
}

extension StoryboardErrorMessage {
    init(id: String? = nil, _ error: StoryboardError) {
        self.init(id: id, code: error.code, message: error.message)
    }

    init(id: String? = nil, _ error: SessionError) {
        self.init(id: id, code: error.code, message: error.message)
    }
}

extension StoryboardEdit {
    /// The shot whose version history this edit belongs to (nil: a scene or the whole project).
    var touchedShot: String? {
        switch self {
        case .addShot(_, _, let shot): shot.id
        case .duplicateShot(_, let newShot): newShot
        case .deleteShot(let shot), .moveShot(let shot, _, _), .updateShot(let shot, _, _, _, _, _): shot
        case .restoreShot(let shot): shot.id
        case .addLayer(let shot, _, _), .updateLayer(let shot, _, _, _, _, _, _), .moveLayer(let shot, _, _),
            .deleteLayer(let shot, _), .groupLayers(let shot, _, _), .ungroupLayers(let shot, _),
            .addStrokes(let shot, _, _, _), .removeStrokes(let shot, _, _), .replaceStrokes(let shot, _, _, _, _):
            shot
        case .addScene, .renameScene, .deleteScene, .moveScene, .renumberShots: nil
        }
    }
}
