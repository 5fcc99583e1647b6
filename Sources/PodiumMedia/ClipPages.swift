import Foundation

/// A page that stands for a video clip in an export: its poster frame fitted above a caption.
public struct ClipPage: Sendable {
    /// In PDF points: the export's pages around it, so the document prints evenly.
    public var width: Double
    public var height: Double
    /// The poster frame (JPEG); nil, or a file that is not a usable JPEG: a plain frame instead.
    public var poster: Data?
    public var title: String
    /// The line under the title (when it was shown, how much played).
    public var detail: String

    public init(width: Double, height: Double, poster: Data?, title: String, detail: String) {
        self.width = width
        self.height = height
        self.poster = poster
        self.title = title
        self.detail = detail
    }
}

/// Writes one PDF page per clip, to be put among the slides with `qpdf --pages` like any deck's
/// pages. The poster goes in as the JPEG it is; the caption in Helvetica, which every reader has.
public enum ClipPages {
    public static func pdf(pages: [ClipPage]) -> Data {
        var writer = PDFWriter()
        let tree = writer.reserve()
        let root = writer.add("<< /Type /Catalog /Pages \(tree) 0 R >>")
        let font = writer.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
        var kids: [Int] = []
        for page in pages {
            let image = page.poster.flatMap { data in JPEGInfo(data).map { (data: data, info: $0) } }
            var resources = "/Font << /F1 \(font) 0 R >>"
            if let image {
                let poster = writer.add(
                    stream: image.data,
                    dictionary: "/Type /XObject /Subtype /Image /Width \(image.info.width) /Height \(image.info.height) "
                        + "/ColorSpace /\(image.info.components == 1 ? "DeviceGray" : "DeviceRGB") /BitsPerComponent 8 "
                        + "/Filter /DCTDecode")
                resources += " /XObject << /Poster \(poster) 0 R >>"
            }
            let size = image.map { (width: Double($0.info.width), height: Double($0.info.height)) }
            let contents = writer.add(stream: Data(Layout(page: page, image: size).content.utf8))
            kids.append(
                writer.add(
                    "<< /Type /Page /Parent \(tree) 0 R /MediaBox [0 0 \(PDFWriter.number(page.width)) "
                        + "\(PDFWriter.number(page.height))] /Resources << \(resources) >> /Contents \(contents) 0 R >>"))
        }
        writer.set(tree, "<< /Type /Pages /Kids [\(kids.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(kids.count) >>")
        return writer.data(root: root)
    }

    /// Where the poster and the caption go on a page, as PDF content (origin at the bottom left).
    struct Layout {
        let page: ClipPage
        /// The poster's pixel size, when there is one.
        let image: (width: Double, height: Double)?

        var content: String {
            let (width, height) = (page.width, page.height)
            let margin = min(width, height) * 0.06
            let titleSize = max(10, min(28, height * 0.055))
            let detailSize = titleSize * 0.6
            let caption = margin + titleSize * 1.3 + detailSize * 1.6
            // The picture's box: the page above the caption, inside the margins.
            let box = (x: margin, y: caption, width: width - 2 * margin, height: max(1, height - margin - caption))
            let aspect = image.map { $0.width / $0.height } ?? 16 / 9
            let scale = min(box.width / aspect, box.height)
            let (w, h) = (scale * aspect, scale)
            let (x, y) = (box.x + (box.width - w) / 2, box.y + (box.height - h) / 2)
            let n = PDFWriter.number
            var lines: [String] = []
            if image != nil {
                lines.append("q \(n(w)) 0 0 \(n(h)) \(n(x)) \(n(y)) cm /Poster Do Q")
            } else {
                // No poster (an audio clip, a deleted clip, a missing file): a grey frame with a
                // play mark says "a clip was here".
                let side = h * 0.2
                let (cx, cy) = (x + w / 2, y + h / 2)
                lines.append("q 0.85 g \(n(x)) \(n(y)) \(n(w)) \(n(h)) re f")
                lines.append(
                    "1 g \(n(cx - side * 0.4)) \(n(cy - side / 2)) m \(n(cx + side * 0.6)) \(n(cy)) l "
                        + "\(n(cx - side * 0.4)) \(n(cy + side / 2)) l h f Q")
            }
            let textWidth = width - 2 * margin
            lines.append(
                "BT 0.1 g /F1 \(n(titleSize)) Tf \(n(margin)) \(n(margin + detailSize * 1.6)) Td "
                    + "\(Self.text(page.title, size: titleSize, width: textWidth)) Tj ET")
            lines.append(
                "BT 0.35 g /F1 \(n(detailSize)) Tf \(n(margin)) \(n(margin)) Td "
                    + "\(Self.text(page.detail, size: detailSize, width: textWidth)) Tj ET")
            return lines.joined(separator: "\n")
        }

        /// A PDF string in WinAnsi (Helvetica's encoding), cut with an ellipsis to about `width`
        /// points. Characters WinAnsi lacks become "?": the poster and the title's Latin letters
        /// still say which clip it was.
        static func text(_ string: String, size: Double, width: Double) -> String {
            // Helvetica's letters average about half an em; long titles are cut, not overflowing.
            let fits = max(4, Int(width / (size * 0.52)))
            var bytes = string.unicodeScalars.map(winAnsi)
            if bytes.count > fits { bytes = Array(bytes.prefix(fits - 1)) + [0x85] }
            var output = "("
            for byte in bytes {
                switch byte {
                case 0x28, 0x29, 0x5C: output += "\\" + String(UnicodeScalar(byte))
                case 0x20..<0x7F: output += String(UnicodeScalar(byte))
                default: output += "\\" + String(byte, radix: 8)
                }
            }
            return output + ")"
        }

        /// WinAnsiEncoding: Latin-1 with typographic quotes, dashes and a few more in 0x80–0x9F.
        static func winAnsi(_ scalar: Unicode.Scalar) -> UInt8 {
            let extra: [UInt32: UInt8] = [
                0x20AC: 0x80, 0x2026: 0x85, 0x2018: 0x91, 0x2019: 0x92, 0x201C: 0x93, 0x201D: 0x94, 0x2022: 0x95,
                0x2013: 0x96, 0x2014: 0x97, 0x2122: 0x99, 0x0152: 0x8C, 0x0153: 0x9C,
            ]
            let value = scalar.value
            if (0x20..<0x7F).contains(value) || (0xA0...0xFF).contains(value) { return UInt8(value) }
            return extra[value] ?? 0x3F
        }
    }
}
