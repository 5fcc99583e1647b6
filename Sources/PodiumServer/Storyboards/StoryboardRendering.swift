import Foundation
import PodiumCore
import PodiumMedia

/// Turns a storyboard's shots into drawings for the PDF writer: each stroke's filled outline (the
/// same algorithm as the editor's `freehand.js`), each visible layer with its opacity and
/// transform, in points of a shot `width` wide.
enum StoryboardRendering {
    /// The shot's size in points for an aspect ratio such as "16:9" or "2.39:1" (960 wide).
    static func size(aspectRatio: String, width: Double = 960) -> (width: Double, height: Double) {
        let parts = aspectRatio.split(separator: ":").compactMap { Double($0) }
        let ratio = parts.count == 2 && parts[0] > 0 && parts[1] > 0 ? parts[0] / parts[1] : 16.0 / 9.0
        return (width, (width / ratio).rounded())
    }

    static func drawing(_ shot: Shot, width: Double, height: Double) -> SketchDrawing {
        let layers = shot.layers.filter(\.visible).map { layer in
            SketchDrawingLayer(
                opacity: layer.opacity, matrix: matrix(layer.transform, width: width, height: height),
                shapes: layer.strokes.map { shape($0, width: width, height: height) })
        }
        return SketchDrawing(width: width, height: height, background: rgb(shot.background), layers: layers)
    }

    static func shape(_ stroke: SketchStroke, width: Double, height: Double) -> SketchShape {
        // Outlines are made where x and y have the same unit (points), or round ends come out oval.
        let points = stroke.points.map { point in [point[0] * width, point[1] * height, point.count > 2 ? point[2] : 0.5] }
        let options = StrokeOutline.options(for: stroke.tool.rawValue, width: stroke.width * width, points: stroke.points)
        var last = options
        last.last = true
        return SketchShape(
            polygon: StrokeOutline.outline(points, options: last), color: rgb(stroke.color),
            alpha: StrokeOutline.toolAlpha[stroke.tool.rawValue] ?? 1)
    }

    /// A layer's transform: scaled and turned about the shot's centre, then moved by (x, y) of
    /// the shot's size (what the editor draws).
    static func matrix(_ transform: LayerTransform, width: Double, height: Double) -> [Double] {
        let (cx, cy) = (width / 2, height / 2)
        let cosine = cos(transform.rotation) * transform.scale
        let sine = sin(transform.rotation) * transform.scale
        // p' = R·S·(p − c) + c + t
        let e = cx - cosine * cx + sine * cy + transform.x * width
        let f = cy - sine * cx - cosine * cy + transform.y * height
        return [cosine, sine, -sine, cosine, e, f]
    }

    static func rgb(_ hex: String) -> (red: Double, green: Double, blue: Double) {
        guard hex.count == 7, let value = Int(hex.dropFirst(), radix: 16) else { return (1, 1, 1) }
        return (Double((value >> 16) & 0xFF) / 255, Double((value >> 8) & 0xFF) / 255, Double(value & 0xFF) / 255)
    }

    /// Every shot in story order.
    static func shots(of storyboard: Storyboard) -> [Shot] { storyboard.scenes.flatMap(\.shots) }

    /// One page per shot.
    static func shotsPDF(_ storyboard: Storyboard, aspectRatio: String) -> Data {
        let size = size(aspectRatio: aspectRatio)
        return StoryboardPDF.shots(shots(of: storyboard).map { drawing($0, width: size.width, height: size.height) })
    }

    static func sheetPDF(_ storyboard: Storyboard, title: String, aspectRatio: String, perPage: Int) -> Data {
        let size = size(aspectRatio: aspectRatio, width: 480)
        let panels = storyboard.scenes.flatMap { scene in scene.shots.map { (scene, $0) } }.map { scene, shot in
            SheetPanel(
                drawing: drawing(shot, width: size.width, height: size.height), scene: scene.title,
                heading: "Shot \(shot.number) · \(seconds(shot.duration))",
                fields: [("Dialogue", shot.dialogue), ("Action", shot.action), ("Notes", shot.notes)].filter { !$0.1.isEmpty })
        }
        return StoryboardPDF.sheet(title: title, panels: panels, perPage: perPage)
    }

    static func seconds(_ value: Double) -> String { String(format: "%.1f s", value) }
}
