/// A rectangle of a page in normalised page space: 0...1 from the left/top edge of the page box.
///
/// Zoom is sent as the visible rectangle, never as a scale factor or screen pixels, so every
/// screen shape reproduces it with its own best fit (the seed 001 authors learned this when their
/// pointer landed in the wrong place on other devices).
public struct Viewport: Codable, Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var w: Double
    public var h: Double

    public init(x: Double, y: Double, w: Double, h: Double) {
        self.x = x
        self.y = y
        self.w = w
        self.h = h
    }

    /// The whole page.
    public static let fullPage = Viewport(x: 0, y: 0, w: 1, h: 1)

    /// The smallest side a viewport may have: a 20x zoom. Anything smaller is a client bug.
    public static let minimumSide = 0.05

    /// Values computed in floating point by clients may overshoot the page edge by a hair.
    static let tolerance = 1e-6

    /// Whether the rectangle lies inside the page and is not degenerate.
    public var isValid: Bool {
        let values = [x, y, w, h]
        guard values.allSatisfy(\.isFinite) else { return false }
        return x >= -Self.tolerance && y >= -Self.tolerance
            && w >= Self.minimumSide && h >= Self.minimumSide
            && x + w <= 1 + Self.tolerance && y + h <= 1 + Self.tolerance
    }
}

/// A point in normalised page space, used by the laser pointer.
public struct PagePoint: Codable, Sendable, Equatable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public var isValid: Bool {
        x.isFinite && y.isFinite && (0...1).contains(x) && (0...1).contains(y)
    }
}
