import Foundation
import Testing

@testable import PodiumMedia

@Suite("Parsing and planning")
struct ParsingTests {
    @Test("looksLikePDF finds %PDF- within the first 1024 bytes")
    func sniffing() {
        #expect(PDFIngester.looksLikePDF(Array("%PDF-1.7\n".utf8)))
        #expect(PDFIngester.looksLikePDF(Array(repeating: UInt8(ascii: " "), count: 1000) + Array("%PDF-1.4".utf8)))
        #expect(!PDFIngester.looksLikePDF(Array(repeating: UInt8(ascii: " "), count: 1024) + Array("%PDF-1.4".utf8)))
        #expect(!PDFIngester.looksLikePDF([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(!PDFIngester.looksLikePDF([UInt8]()))
        #expect(!PDFIngester.looksLikePDF(Array("%PDF".utf8)))
    }

    @Test("pdfinfo output gives title, count and displayed sizes, swapping rotated pages")
    func pdfinfoOutput() throws {
        let output = """
            Title:           Quarterly review: 2025
            Producer:        cairo 1.16.0
            Pages:           3
            Encrypted:       no
            Page    1 size:  595.276 x 841.89 pts (A4)
            Page    1 rot:   0
            Page    2 size:  595 x 842 pts (A4)
            Page    2 rot:   90
            Page    3 size:  960 x 540 pts
            Page    3 rot:   270
            File size:       8817 bytes
            """
        let info = try #require(PDFInfo.parse(output))
        #expect(info.title == "Quarterly review: 2025")
        #expect(info.pageCount == 3)
        #expect(info.pageSizes[1] == PDFInfo.PageSize(width: 595.276, height: 841.89))
        #expect(info.pageSizes[2] == PDFInfo.PageSize(width: 842, height: 595))
        #expect(info.pageSizes[3] == PDFInfo.PageSize(width: 540, height: 960))
        #expect(PDFInfo.parse("Syntax Error: Couldn't read xref table") == nil)
        #expect(PDFInfo.parse("Pages: 1\nPage 1 size: 10 x 20 pts")?.title == nil)
    }

    @Test("pdftotext output splits on form feeds, one string per page")
    func pageText() {
        let output = "\n  Title   \nbody  \n\n\u{0C}\u{0C}last\n\u{0C}"
        #expect(PageText.split(output, pageCount: 3) == ["  Title\nbody", "", "last"])
        #expect(PageText.split("only one\u{0C}", pageCount: 2) == ["only one", ""])
        #expect(PageText.split("", pageCount: 1) == [""])
    }

    @Test("pages are cut into at least `parallelism` chunks of at most 20 pages")
    func chunks() {
        #expect(PageRenderer.chunks(pageCount: 3, parallelism: 2) == [1...2, 3...3])
        #expect(PageRenderer.chunks(pageCount: 1, parallelism: 8) == [1...1])
        #expect(PageRenderer.chunks(pageCount: 45, parallelism: 2) == [1...15, 16...30, 31...45])
        #expect(PageRenderer.chunks(pageCount: 10, parallelism: 0) == [1...10])
        #expect(PageRenderer.chunks(pageCount: 0, parallelism: 2).isEmpty)
        let big = PageRenderer.chunks(pageCount: 2000, parallelism: 2)
        #expect(big.count == 100)
        #expect(big.first == 1...20 && big.last == 1981...2000)
        #expect(PageRenderer.jobs(pageCount: 2, parallelism: 1).map(\.rendition) == [.large, .medium, .thumbnail])
    }

    @Test("output names: pdftoppm's padded numbers in, fixed four digits out")
    func names() {
        #expect(PageRenderer.pageNumber(fileName: "page-7.jpg") == 7)
        #expect(PageRenderer.pageNumber(fileName: "page-0012.jpg") == 12)
        #expect(PageRenderer.pageNumber(fileName: "page-.jpg") == nil)
        #expect(PageRenderer.pageNumber(fileName: "page-1.png") == nil)
        #expect(Rendition.large.fileName(page: 1) == "large-0001.jpg")
        #expect(Rendition.thumbnail.fileName(page: 12345) == "thumbnail-12345.jpg")
    }

    @Test("error messages are written for people and codes are stable")
    func errors() {
        #expect(IngestError.tooLarge(limit: 200 * 1024 * 1024).message.contains("200 MB"))
        #expect(IngestError.tooManyPages(limit: 2000).code == "too_many_pages")
        #expect(IngestError.toolMissing(tool: "pdftoppm").message.contains("poppler-utils"))
        #expect(IngestError.corrupt(detail: "x").code == "corrupt")
        #expect(IngestError.timeout(tool: "pdftoppm").code == "timeout")
        #expect(IngestError.notPDF.code == "not_pdf")
        #expect(IngestError.noPages.code == "empty")
    }
}
