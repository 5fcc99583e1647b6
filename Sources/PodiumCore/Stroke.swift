/// A committed ink stroke on one page: points in normalised page coordinates with pen pressure.
public struct Stroke: Codable, Sendable, Equatable {
    public enum Tool: String, Codable, Sendable {
        case pen
        case highlighter
    }

    /// The id of the command that committed it.
    public var id: String
    /// In a room, the deck it was drawn on (set by the server); nil in a session of one deck.
    public var deck: String?
    public var page: Int
    public var tool: Tool
    /// `#RRGGBB`.
    public var color: String
    /// Line width as a fraction of the page width.
    public var width: Double
    /// `[x, y, pressure]`, each 0...1.
    public var points: [[Double]]

    public init(
        id: String = "", deck: String? = nil, page: Int, tool: Tool, color: String, width: Double, points: [[Double]]
    ) {
        self.id = id
        self.deck = deck
        self.page = page
        self.tool = tool
        self.color = color
        self.width = width
        self.points = points
    }

    enum CodingKeys: String, CodingKey { case id, deck, page, tool, color, width, points }

    /// Clients send strokes without `id`: it is the id of their command.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(String.self, forKey: .id) ?? ""
        deck = try container.decodeIfPresent(String.self, forKey: .deck)
        page = try container.decode(Int.self, forKey: .page)
        tool = try container.decode(Tool.self, forKey: .tool)
        color = try container.decode(String.self, forKey: .color)
        width = try container.decode(Double.self, forKey: .width)
        points = try container.decode([[Double]].self, forKey: .points)
    }

    public static let maxPoints = 2000
    public static let widths = 0.0005...0.05

    /// Whether the stroke follows the rules for a deck of `pageCount` pages.
    public func isValid(pageCount: Int) -> Bool {
        guard page >= 1, page <= pageCount, Self.widths.contains(width), (1...Self.maxPoints).contains(points.count) else {
            return false
        }
        guard Self.isColor(color) else { return false }
        return points.allSatisfy { point in
            (2...3).contains(point.count) && point.allSatisfy { $0.isFinite && (0...1).contains($0) }
        }
    }
}

extension Stroke {
    /// Whether a string is a colour as `#RRGGBB`.
    public static func isColor(_ text: String) -> Bool {
        text.count == 7 && text.first == "#" && text.dropFirst().allSatisfy(\.isHexDigit)
    }
}

/// The stroke being drawn, sent whole so far while the pen moves (ephemeral).
public struct InkingMessage: Codable, Sendable, Equatable {
    public var type = "inking"
    /// In a room, the deck on the stage (set by the server).
    public var deck: String?
    public var page: Int?
    public var tool: Stroke.Tool?
    public var color: String?
    public var width: Double?
    public var points: [[Double]]?
    /// True when the stroke ended (committed or abandoned): hide it.
    public var done: Bool?

    public init(page: Int?, tool: Stroke.Tool?, color: String?, width: Double?, points: [[Double]]?, done: Bool?) {
        self.page = page
        self.tool = tool
        self.color = color
        self.width = width
        self.points = points
        self.done = done
    }

    /// Whether it can be passed on: a finished marker, or a drawable stroke in progress.
    public func isValid(pageCount: Int) -> Bool {
        if done == true { return true }
        guard let page, let tool, let color, let width, let points else { return false }
        return Stroke(page: page, tool: tool, color: color, width: width, points: points).isValid(pageCount: pageCount)
    }
}
