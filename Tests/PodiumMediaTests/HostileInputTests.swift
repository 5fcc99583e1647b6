import Foundation
import Testing

@testable import PodiumMedia

/// Small files that ask for enormous work (see `Tests/Fixtures/make-fixtures.sh`), ingested with the real
/// tools under tight limits: each must end in a clear ``IngestError`` or a bounded result, never a hang, a
/// crash or an exhausted machine.
///
/// The limits are tighter than the server's so that a runaway tool is killed early: 192 MiB of address
/// space (less than the 256 MiB the bombs inflate to, so a tool that buffered a whole stream would be
/// stopped; Poppler's tools stream it in about 14 MB) and a step timeout with a wide margin over what a
/// healthy run needs, even on a loaded CI machine (the bomb takes about 5 s alone on 2 cores). The
/// suite time limit turns a hang into a failure instead of a stuck test run.
@Suite("PDFIngester on hostile input", .timeLimit(.minutes(5)))
struct HostileInputTests {
    static let limits = IngestLimits(
        stepTimeout: .seconds(120), memoryBytes: 192 * 1024 * 1024, maxOutputBytes: 64 * 1024 * 1024,
        parallelism: 2)

    @Test("a 14400 pt square page (the PDF maximum) renders at the usual image sizes")
    func enormousPage() async throws {
        let document = try await ingest("enormous-page.pdf")
        try #require(document.pageCount == 1 && document.pages.count == 1)
        let page = document.pages[0]
        #expect(page.width == 14400 && page.height == 14400)
        #expect(page.text.contains("Enormous page"))
    }

    @Test("a content stream inflating to 256 MiB is parsed in bounded memory and the page renders")
    func decompressionBomb() async throws {
        let document = try await ingest("decompression-bomb.pdf")
        try #require(document.pageCount == 1 && document.pages.count == 1)
        let page = document.pages[0]
        #expect(page.width == 612 && page.height == 792)
        #expect(page.text.contains("Decompression bomb"))
    }

    @Test("a content stream inflating to an endless path is stopped by the memory limit, and says so")
    func pathBomb() async throws {
        let error = try await ingestError("path-bomb.pdf")
        #expect(error.code == "corrupt")
        #expect(error.message.contains("needs more memory than the server allows"), "\(error.message)")
    }

    @Test("a page tree that contains itself is corrupt, naming the loop")
    func cyclicPageTree() async throws {
        let error = try await ingestError("cyclic-page-tree.pdf")
        #expect(error.code == "corrupt")
        #expect(error.message.contains("refers back to itself"), "\(error.message)")
    }

    @Test("3000 empty pages are too_many_pages under the default page limit")
    func manyPages() async throws {
        var limits = Self.limits
        limits.maxPages = IngestLimits().maxPages
        let error = try await ingestError("many-pages-tiny.pdf", limits: limits)
        #expect(error == .tooManyPages(limit: IngestLimits().maxPages))
    }

    @Test(
        "allocation failures are recognised in a tool's standard error",
        arguments: [
            ("Out of memory\n", true), ("terminate called after throwing an instance of 'std::bad_alloc'\n", true),
            ("Syntax Error: Leftover args in content stream\n", false), ("", false),
        ])
    func recognisesOutOfMemory(stderr: String, expected: Bool) {
        #expect(PageRenderer.ranOutOfMemory(stderr: stderr) == expected)
    }

    // MARK: - Helpers

    /// Ingests a fixture and checks every page's images (see ``expectImages(of:)``) before they are removed.
    private func ingest(_ file: String) async throws -> IngestedDocument {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let document = try await PDFIngester(limits: Self.limits)
            .ingest(pdf: TestSupport.fixture(file), workDirectory: work) { _ in }
        for page in document.pages { try expectImages(of: page) }
        return document
    }

    private func ingestError(_ file: String, limits: IngestLimits = limits) async throws -> IngestError {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let ingester = PDFIngester(limits: limits)
        let error = await #expect(throws: IngestError.self) {
            _ = try await ingester.ingest(pdf: TestSupport.fixture(file), workDirectory: work) { _ in }
        }
        return try #require(error)
    }

    /// Three JPEGs with the usual long sides and the page's aspect ratio, however large the page.
    private func expectImages(of page: IngestedPage) throws {
        for (url, longSide) in [(page.large, 1920), (page.medium, 960), (page.thumbnail, 320)] {
            let size = try #require(try TestSupport.jpegSize(url), "\(url.lastPathComponent) is a JPEG")
            #expect(max(size.width, size.height) == longSide, "\(url.lastPathComponent): \(size)")
            let ratio = Double(size.width) / Double(size.height)
            #expect(abs(ratio - page.width / page.height) < 0.02, "\(url.lastPathComponent): \(size)")
        }
    }
}
