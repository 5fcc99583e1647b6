import Foundation

/// Makes a PDF of images, one page per image, in the order given.
///
/// The PDF is written by Podium's own ``PDFWriter`` with each page's picture a JPEG embedded as
/// it is (`/DCTDecode`): a baseline colour or grey JPEG is not decoded at all, and PNG, WebP and
/// unusual JPEGs (CMYK, 12-bit) are turned into one by FFmpeg, which the server already needs for
/// videos, with any transparency laid over white. No new tool: `img2pdf` would add a Python
/// program and refuses PNGs with an alpha channel; LibreOffice Draw would start a whole office
/// suite per image; Poppler's `pdftocairo` reads PDFs, it does not write them from images.
struct ImagePages {
    let runner: any ToolRunner
    let limits: IngestLimits

    /// The longest side of a page, in points (an image's aspect ratio is kept).
    static let pageSide = 960.0
    /// The most pixels in one image (about 100 megapixels).
    static let maxPixels = 100_000_000

    func write(_ images: [(name: String, url: URL)], to pdf: URL, workDirectory: URL) async throws {
        guard !images.isEmpty else { throw IngestError.noPages }
        var writer = PDFWriter()
        let tree = writer.reserve()
        var kids: [Int] = []
        for (index, image) in images.enumerated() {
            try Task.checkCancellation()
            let (data, info) = try await jpeg(image, index: index, workDirectory: workDirectory)
            let scale = Self.pageSide / Double(max(info.width, info.height))
            let width = Double(info.width) * scale
            let height = Double(info.height) * scale
            let picture = writer.add(
                stream: data,
                dictionary: "/Type /XObject /Subtype /Image /Width \(info.width) /Height \(info.height) "
                    + "/ColorSpace /\(info.components == 1 ? "DeviceGray" : "DeviceRGB") /BitsPerComponent 8 /Filter /DCTDecode")
            let content = writer.add(
                stream: Data(
                    "q \(PDFWriter.number(width)) 0 0 \(PDFWriter.number(height)) 0 0 cm /Im0 Do Q".utf8))
            kids.append(
                writer.add(
                    "<< /Type /Page /Parent \(tree) 0 R /MediaBox [0 0 \(PDFWriter.number(width)) \(PDFWriter.number(height))] "
                        + "/Resources << /XObject << /Im0 \(picture) 0 R >> >> /Contents \(content) 0 R >>"))
        }
        writer.set(tree, "<< /Type /Pages /Kids [\(kids.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(kids.count) >>")
        let catalog = writer.add("<< /Type /Catalog /Pages \(tree) 0 R >>")
        try writer.data(root: catalog).write(to: pdf)
    }

    /// The image as a JPEG a PDF shows as it is.
    private func jpeg(_ image: (name: String, url: URL), index: Int, workDirectory: URL) async throws -> (Data, JPEGInfo) {
        let handle = try FileHandle(forReadingFrom: image.url)
        let prefix = [UInt8]((try handle.read(upToCount: 16)) ?? Data())
        try? handle.close()
        guard let format = DeckFormat.sniff(prefix: prefix), [.png, .jpeg, .webp].contains(format) else {
            throw IngestError.badImage(image.name)
        }
        if format == .jpeg {
            let data = try Data(contentsOf: image.url)
            if let info = JPEGInfo(data), info.width * info.height <= Self.maxPixels { return (data, info) }
        }
        let output = workDirectory.appendingPathComponent("image-\(index).jpg")
        // Transparency over white: a white canvas the size of the image, the image laid over it.
        let filter =
            "color=c=white[bg];[bg][0:v]scale2ref[bg][img];[bg][img]overlay=shortest=1:format=auto,format=yuvj444p"
        let result = try await runner.run(
            "ffmpeg",
            [
                "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", image.url.path, "-frames:v", "1",
                "-filter_complex", filter, "-q:v", "2", output.path,
            ],
            limits: ToolLimits(
                timeout: limits.stepTimeout, memoryBytes: limits.memoryBytes, maxOutputBytes: limits.maxOutputBytes,
                maxCapturedOutput: 64 * 1024))
        if result.timedOut { throw IngestError.timeout(tool: "ffmpeg") }
        guard result.exitCode == 0, let data = try? Data(contentsOf: output), let info = JPEGInfo(data),
            info.width * info.height <= Self.maxPixels
        else { throw IngestError.badImage(image.name) }
        return (data, info)
    }
}
