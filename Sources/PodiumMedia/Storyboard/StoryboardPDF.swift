import Foundation

/// Writes storyboards as PDF, by hand (``PDFWriter``) and as vectors: strokes are filled
/// outlines, so a sheet prints sharp at any size.
///
/// - ``shots(_:)``: one page per shot, the page the shot's size: what a storyboard is presented
///   as (a deck, shots as pages), rasterised for PNGs and the animatic.
/// - ``sheet(title:panels:perPage:)``: A4 landscape pages of 1, 2, 4 or 6 panels, each with its
///   scene's title over it and the shot's number, duration, dialogue, action and notes under it.
public enum StoryboardPDF {
    public static let layouts = [1, 2, 4, 6]

    public static func shots(_ drawings: [SketchDrawing]) -> Data {
        var document = Document()
        for drawing in drawings {
            var content = Content()
            content.draw(drawing, in: (x: 0, y: 0, width: drawing.width, height: drawing.height))
            document.addPage(width: drawing.width, height: drawing.height, content: content)
        }
        return document.data()
    }

    /// A4 landscape, in points.
    static let sheetSize = (width: 842.0, height: 595.0)

    public static func sheet(title: String, panels: [SheetPanel], perPage: Int) -> Data {
        let perPage = layouts.contains(perPage) ? perPage : 4
        let (columns, rows) =
            switch perPage {
            case 1: (1, 1)
            case 2: (2, 1)
            case 4: (2, 2)
            default: (3, 2)
            }
        var document = Document()
        let pages = max(1, (panels.count + perPage - 1) / perPage)
        let (width, height) = sheetSize
        let margin = 28.0
        let header = 22.0
        let gap = 16.0
        let cellWidth = (width - 2 * margin - Double(columns - 1) * gap) / Double(columns)
        let cellHeight = (height - 2 * margin - header - Double(rows - 1) * gap) / Double(rows)
        for page in 0..<pages {
            var content = Content()
            content.text(title, at: (margin, height - margin - 12), size: 12, gray: 0.1, width: width - 2 * margin - 60)
            content.text("\(page + 1) / \(pages)", at: (width - margin - 40, height - margin - 12), size: 9, gray: 0.4, width: 40)
            for slot in 0..<perPage {
                let index = page * perPage + slot
                guard index < panels.count else { break }
                let panel = panels[index]
                let column = Double(slot % columns)
                let row = Double(slot / columns)
                let cell = (
                    x: margin + column * (cellWidth + gap),
                    top: height - margin - header - row * (cellHeight + gap)
                )
                // The text takes what the picture leaves, at least a third of the cell; the
                // scene's title a line over the picture.
                let textSize = perPage == 1 ? 10.0 : (perPage == 6 ? 7.0 : 8.0)
                let sceneLine = panel.scene.isEmpty ? 0 : textSize * 1.6
                if !panel.scene.isEmpty {
                    content.text(
                        panel.scene, at: (cell.x, cell.top - textSize * 1.1), size: textSize * 1.1, gray: 0.35,
                        width: cellWidth)
                }
                let aspect = panel.drawing.width / panel.drawing.height
                let pictureHeight = min(cellWidth / aspect, (cellHeight - sceneLine) * 0.66)
                let pictureWidth = pictureHeight * aspect
                let picture = (
                    x: cell.x + (cellWidth - pictureWidth) / 2, y: cell.top - sceneLine - pictureHeight, width: pictureWidth,
                    height: pictureHeight
                )
                content.draw(panel.drawing, in: picture)
                content.frame(picture)
                var line = picture.y - textSize * 1.6
                content.text(panel.heading, at: (cell.x, line), size: textSize * 1.15, gray: 0.05, width: cellWidth)
                let bottom = cell.top - cellHeight
                for field in panel.fields {
                    let wrapped = Content.wrap("\(field.label): \(field.text)", size: textSize, width: cellWidth)
                    for text in wrapped {
                        line -= textSize * 1.35
                        guard line > bottom else { break }
                        content.text(text, at: (cell.x, line), size: textSize, gray: 0.25, width: cellWidth)
                    }
                }
            }
            document.addPage(width: width, height: height, content: content)
        }
        return document.data()
    }

    /// The pages and the resources they share (the font, one graphics state per alpha).
    struct Document {
        var writer = PDFWriter()
        let tree: Int
        let root: Int
        let font: Int
        var kids: [Int] = []

        init() {
            tree = writer.reserve()
            root = writer.add("<< /Type /Catalog /Pages \(tree) 0 R >>")
            font = writer.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
        }

        mutating func addPage(width: Double, height: Double, content: Content) {
            let states = content.alphas.sorted().map { alpha in
                "/A\(alpha) << /Type /ExtGState /ca \(PDFWriter.number(Double(alpha) / 100)) >>"
            }
            let stream = writer.add(stream: Data(content.lines.joined(separator: "\n").utf8))
            let resources = "/Font << /F1 \(font) 0 R >> /ExtGState << \(states.joined(separator: " ")) >>"
            kids.append(
                writer.add(
                    "<< /Type /Page /Parent \(tree) 0 R /MediaBox [0 0 \(PDFWriter.number(width)) \(PDFWriter.number(height))] "
                        + "/Resources << \(resources) >> /Contents \(stream) 0 R >>"))
        }

        func data() -> Data {
            var writer = writer
            writer.set(tree, "<< /Type /Pages /Kids [\(kids.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(kids.count) >>")
            return writer.data(root: root)
        }
    }

    /// A page's content stream, origin at the bottom left.
    struct Content {
        var lines: [String] = []
        /// Alphas in hundredths, each a graphics state `/A<n>` of the page.
        var alphas: Set<Int> = []

        static let n = PDFWriter.number

        /// Draws a shot into `box` (PDF coordinates): its background, then each layer's shapes,
        /// clipped to the box.
        mutating func draw(_ drawing: SketchDrawing, in box: (x: Double, y: Double, width: Double, height: Double)) {
            let n = Self.n
            let background = drawing.background
            lines.append("q \(n(box.x)) \(n(box.y)) \(n(box.width)) \(n(box.height)) re W n")
            lines.append(
                "\(n(background.red)) \(n(background.green)) \(n(background.blue)) rg "
                    + "\(n(box.x)) \(n(box.y)) \(n(box.width)) \(n(box.height)) re f")
            // Drawing units (y down) onto the box (y up).
            let scale = box.width / drawing.width
            lines.append("\(n(scale)) 0 0 \(n(-scale)) \(n(box.x)) \(n(box.y + box.height)) cm")
            for layer in drawing.layers where layer.opacity > 0 {
                let m = layer.matrix
                lines.append("q \(m.map { n($0) }.joined(separator: " ")) cm")
                for shape in layer.shapes where shape.polygon.count >= 3 {
                    let alpha = Int((min(1, max(0, shape.alpha * layer.opacity)) * 100).rounded())
                    guard alpha > 0 else { continue }
                    var path = "\(n(shape.color.red)) \(n(shape.color.green)) \(n(shape.color.blue)) rg"
                    if alpha < 100 {
                        alphas.insert(alpha)
                        path += " /A\(alpha) gs"
                    } else {
                        path += " /A100 gs"
                        alphas.insert(100)
                    }
                    let first = shape.polygon[0]
                    path += "\n\(n(first[0])) \(n(first[1])) m"
                    for point in shape.polygon.dropFirst() { path += " \(n(point[0])) \(n(point[1])) l" }
                    lines.append(path + " h f")
                }
                lines.append("Q")
            }
            lines.append("Q")
        }

        mutating func frame(_ box: (x: Double, y: Double, width: Double, height: Double)) {
            let n = Self.n
            lines.append("q 0.6 G 0.5 w \(n(box.x)) \(n(box.y)) \(n(box.width)) \(n(box.height)) re S Q")
        }

        mutating func text(_ string: String, at point: (Double, Double), size: Double, gray: Double, width: Double) {
            let n = Self.n
            lines.append(
                "BT \(n(gray)) g /F1 \(n(size)) Tf \(n(point.0)) \(n(point.1)) Td "
                    + "\(ClipPages.Layout.text(string, size: size, width: width)) Tj ET")
        }

        /// Words in lines of about `width` points (Helvetica averages half an em a letter).
        static func wrap(_ text: String, size: Double, width: Double) -> [String] {
            let fits = max(8, Int(width / (size * 0.5)))
            var lines: [String] = []
            var current = ""
            for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
                if current.isEmpty {
                    current = String(word)
                } else if current.count + 1 + word.count <= fits {
                    current += " " + word
                } else {
                    lines.append(current)
                    current = String(word)
                }
            }
            if !current.isEmpty { lines.append(current) }
            return lines
        }
    }
}
