import Foundation

/// How a library clip is presented on a stage (`PUT /api/v1/videos/{id}/clip`, issue #41): its
/// trim and whether it loops. The whole setting each time: a trim point left out (or null) is
/// cleared, so `{"loop": false}` gives the clip back whole.
public struct VideoClipSettings: Codable, Sendable, Equatable {
    /// Seconds into the clip where it starts on a stage; nil: at 0.
    public var trimStart: Double?
    /// Seconds into the clip where it ends on a stage (after `trimStart`, at most its duration);
    /// nil: at its end.
    public var trimEnd: Double?
    /// Reaching its end, the clip starts again from its start.
    public var loop: Bool

    public init(trimStart: Double? = nil, trimEnd: Double? = nil, loop: Bool = false) {
        self.trimStart = trimStart
        self.trimEnd = trimEnd
        self.loop = loop
    }

    enum CodingKeys: String, CodingKey { case trimStart, trimEnd, loop }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        trimStart = try container.decodeIfPresent(Double.self, forKey: .trimStart)
        trimEnd = try container.decodeIfPresent(Double.self, forKey: .trimEnd)
        loop = try container.decodeIfPresent(Bool.self, forKey: .loop) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // Explicit nulls: the trim point is cleared.
        try container.encode(trimStart, forKey: .trimStart)
        try container.encode(trimEnd, forKey: .trimEnd)
        try container.encode(loop, forKey: .loop)
    }
}
