import Foundation

/// One ink path to draw over a page, in normalised page coordinates.
public struct InkPath: Sendable {
    /// `(x, y, pressure)`, each 0...1, y from the top of the page.
    public var points: [(x: Double, y: Double, pressure: Double)]
    /// Red, green, blue, each 0...1.
    public var color: (red: Double, green: Double, blue: Double)
    /// Line width as a fraction of the page width.
    public var width: Double
    /// 1 for a pen; about 0.35 for a highlighter.
    public var opacity: Double

    public init(
        points: [(x: Double, y: Double, pressure: Double)], color: (red: Double, green: Double, blue: Double), width: Double,
        opacity: Double
    ) {
        self.points = points
        self.color = color
        self.width = width
        self.opacity = opacity
    }
}

/// Writes a PDF with one page per deck page holding only its ink, as vector paths, to be laid
/// over the deck with `qpdf --overlay`. Hand-written (``PDFWriter``): a few objects, no dependencies.
public enum AnnotationOverlay {
    /// - Parameter pages: per page its size in PDF points and its ink.
    public static func pdf(pages: [(width: Double, height: Double, ink: [InkPath])]) -> Data {
        var writer = PDFWriter()
        // 1: catalog, 2: pages, then per page: page object and its content stream.
        let kids = (0..<pages.count).map { "\(3 + $0 * 2) 0 R" }.joined(separator: " ")
        let root = writer.add("<< /Type /Catalog /Pages 2 0 R >>")
        writer.add("<< /Type /Pages /Kids [\(kids)] /Count \(pages.count) >>")
        for page in pages {
            let content = stream(for: page.ink, width: page.width, height: page.height)
            writer.add(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(number(page.width)) \(number(page.height))] "
                    + "/Resources << /ExtGState << /Hl << /CA 0.35 /ca 0.35 >> >> >> /Contents \(writer.nextNumber + 1) 0 R >>")
            writer.add(stream: Data(content.utf8))
        }
        return writer.data(root: root)
    }

    /// Round caps and joins; PDF's origin is the bottom left, so y is flipped. Pressure varies
    /// the width per path (its mean), which keeps the output one path per stroke.
    static func stream(for ink: [InkPath], width: Double, height: Double) -> String {
        var lines: [String] = []
        for path in ink where !path.points.isEmpty {
            let pressure = path.points.map(\.pressure).reduce(0, +) / Double(path.points.count)
            lines.append("q")
            if path.opacity < 1 { lines.append("/Hl gs") }
            lines.append("\(number(path.color.red)) \(number(path.color.green)) \(number(path.color.blue)) RG")
            lines.append("\(number(path.width * width * (0.5 + 0.5 * pressure))) w 1 J 1 j")
            let first = path.points[0]
            lines.append("\(number(first.x * width)) \(number((1 - first.y) * height)) m")
            // A single point still shows: a zero-length segment with round caps is a dot.
            for point in path.points.count == 1 ? path.points : Array(path.points.dropFirst()) {
                lines.append("\(number(point.x * width)) \(number((1 - point.y) * height)) l")
            }
            lines.append("S Q")
        }
        return lines.joined(separator: "\n")
    }

    static func number(_ value: Double) -> String { PDFWriter.number(value) }
}

/// Lays an overlay PDF over a deck with qpdf, page for page, under the same limits as ingest.
public struct PDFExporter: Sendable {
    let runner: any ToolRunner
    let limits: ToolLimits

    public init(runner: any ToolRunner = SystemToolRunner(), limits: ToolLimits = ToolLimits(timeout: .seconds(120))) {
        self.runner = runner
        self.limits = limits
    }

    public func overlay(_ overlay: URL, on source: URL, writingTo output: URL) async throws {
        let result = try await runner.run(
            "qpdf", [source.path, "--overlay", overlay.path, "--", output.path], limits: limits)
        // qpdf exits 3 for warnings with a usable result.
        guard result.exitCode == 0 || result.exitCode == 3 else {
            throw IngestError.corrupt(detail: "qpdf could not combine the ink with the deck: \(result.stderr.prefix(200))")
        }
    }

    /// Writes one PDF of the given pages, in this order, taken from several PDFs (a room's
    /// export: every page shown, from every presenter's deck).
    public func collect(_ pages: [(source: URL, page: Int)], writingTo output: URL) async throws {
        precondition(!pages.isEmpty, "a PDF has at least one page")
        // qpdf --pages takes `file range` pairs; runs of one file become one range list.
        var arguments = ["--empty", "--pages"]
        var index = 0
        while index < pages.count {
            let source = pages[index].source
            var numbers: [String] = []
            while index < pages.count, pages[index].source == source {
                numbers.append(String(pages[index].page))
                index += 1
            }
            arguments += [source.path, numbers.joined(separator: ",")]
        }
        arguments += ["--", output.path]
        let result = try await runner.run("qpdf", arguments, limits: limits)
        guard result.exitCode == 0 || result.exitCode == 3 else {
            throw IngestError.corrupt(detail: "qpdf could not put the shown pages together: \(result.stderr.prefix(200))")
        }
    }
}
