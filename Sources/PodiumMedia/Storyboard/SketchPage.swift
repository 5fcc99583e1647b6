import Foundation

/// A storyboard shot ready to be drawn into a PDF: filled outlines already computed (the model's
/// stroke outlines), in the drawing's own units (`width` × `height`, y down, origin top left).
public struct SketchDrawing: Sendable {
    public var width: Double
    public var height: Double
    /// Red, green, blue, each 0...1.
    public var background: (red: Double, green: Double, blue: Double)
    /// Bottom first; hidden layers left out.
    public var layers: [SketchDrawingLayer]

    public init(
        width: Double, height: Double, background: (red: Double, green: Double, blue: Double), layers: [SketchDrawingLayer]
    ) {
        self.width = width
        self.height = height
        self.background = background
        self.layers = layers
    }
}

public struct SketchDrawingLayer: Sendable {
    /// 0...1, multiplied into each shape's alpha (overlaps inside a translucent layer come out a
    /// little darker than a group's opacity would draw them).
    public var opacity: Double
    /// Scale, turn and move of the layer's drawing, as a matrix `[a, b, c, d, e, f]` in drawing
    /// units (x' = a·x + c·y + e, y' = b·x + d·y + f).
    public var matrix: [Double]
    public var shapes: [SketchShape]

    public init(opacity: Double, matrix: [Double] = [1, 0, 0, 1, 0, 0], shapes: [SketchShape]) {
        self.opacity = opacity
        self.matrix = matrix
        self.shapes = shapes
    }
}

/// One stroke's filled outline.
public struct SketchShape: Sendable {
    /// `[[x, y]]`, closed (the last vertex joins the first).
    public var polygon: [[Double]]
    public var color: (red: Double, green: Double, blue: Double)
    public var alpha: Double

    public init(polygon: [[Double]], color: (red: Double, green: Double, blue: Double), alpha: Double) {
        self.polygon = polygon
        self.color = color
        self.alpha = alpha
    }
}

/// A shot on a sheet: its scene's title over it, its drawing and the text under it.
public struct SheetPanel: Sendable {
    public var drawing: SketchDrawing
    /// The title of the shot's scene, written over the panel ("" for none).
    public var scene: String
    /// "Shot 2A · 3.0 s".
    public var heading: String
    /// Labelled lines ("Dialogue", "Action", "Notes"), empty ones left out.
    public var fields: [(label: String, text: String)]

    public init(drawing: SketchDrawing, scene: String = "", heading: String, fields: [(label: String, text: String)]) {
        self.drawing = drawing
        self.scene = scene
        self.heading = heading
        self.fields = fields
    }
}
