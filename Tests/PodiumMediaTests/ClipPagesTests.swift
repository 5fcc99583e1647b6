import Foundation
import Testing

@testable import PodiumMedia

/// The pages that stand for clips in an export, read back by Poppler: the poster embedded as the
/// JPEG it is, the caption as text (typographic punctuation included), a plain frame when there is
/// no usable poster.
@Suite("Clip pages")
struct ClipPagesTests {
    static func tool(_ name: String, _ arguments: [String]) async throws -> String {
        let result = try await SystemToolRunner().run(name, arguments, limits: ToolLimits(timeout: .seconds(30)))
        #expect(result.succeeded, "\(name): \(result.stderr)")
        return String(decoding: result.stdout, as: UTF8.self)
    }

    @Test func postersAndCaptionsComeOutAsPopplerReadsThem() async throws {
        let directory = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let jpeg = directory.appendingPathComponent("poster.jpg")
        _ = try await Self.tool(
            "ffmpeg",
            ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x180", "-frames:v", "1", jpeg.path])
        let poster = try Data(contentsOf: jpeg)
        #expect(JPEGInfo(poster) == JPEGInfo(width: 320, height: 180, components: 3))

        let title = #"Café – “Intro” (part 1) \ 100%"#
        let pdf = directory.appendingPathComponent("clips.pdf")
        try ClipPages.pdf(pages: [
            ClipPage(width: 960, height: 540, poster: poster, title: title, detail: "Shown at 10:15:02 UTC · 42 s played"),
            ClipPage(width: 595, height: 842, poster: nil, title: "Audio only", detail: "no picture"),
            ClipPage(
                width: 595, height: 842, poster: Data("not a picture".utf8), title: String(repeating: "Long ", count: 80),
                detail: ""),
        ]).write(to: pdf)

        let info = try await Self.tool("pdfinfo", ["-f", "1", "-l", "3", pdf.path])
        #expect(info.contains("Pages:           3"))
        #expect(info.contains("Page    1 size:  960 x 540 pts"), "\(info)")
        #expect(info.contains("Page    2 size:  595 x 842 pts"), "\(info)")
        let images = try await Self.tool("pdfimages", ["-list", pdf.path]).split(separator: "\n").dropFirst(2)
            .map { $0.split(separator: " ") }
        // One image, on page 1, the JPEG as it was: 320 × 180, RGB, DCT.
        #expect(images.count == 1)
        #expect(images.first.map { [$0[0], $0[3], $0[4], $0[5], $0[8]] } == ["1", "320", "180", "rgb", "jpeg"])
        let first = try await Self.tool("pdftotext", ["-f", "1", "-l", "1", pdf.path, "-"])
        #expect(first.contains(title), "\(first)")
        #expect(first.contains("Shown at 10:15:02 UTC · 42 s played"))
        #expect(try await Self.tool("pdftotext", ["-f", "2", "-l", "2", pdf.path, "-"]).contains("Audio only"))
        // A title too long for the page is cut, with an ellipsis.
        let third = try await Self.tool("pdftotext", ["-f", "3", "-l", "3", pdf.path, "-"])
        #expect(third.contains("Long Long"))
        #expect(third.contains("…"))
        #expect(third.count < 200)
    }

    @Test func onlyAnEightBitGreyOrColourJPEGIsEmbeddedAsItIs() {
        #expect(JPEGInfo(Data()) == nil)
        #expect(JPEGInfo(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0])) == nil)  // PNG
        // SOI, then a baseline frame header: 8 bits, 2 × 3 pixels, 4 components (CMYK).
        let cmyk: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x14, 8, 0, 2, 0, 3, 4] + Array(repeating: 0, count: 12)
        #expect(JPEGInfo(Data(cmyk)) == nil)
        var grey = cmyk
        grey[11] = 1
        #expect(JPEGInfo(Data(grey)) == JPEGInfo(width: 3, height: 2, components: 1))
    }
}
