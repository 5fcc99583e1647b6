import Foundation
import Testing

@testable import PodiumMedia

/// What a good fixture must ingest to.
struct GoodFixture: Sendable, CustomTestStringConvertible {
    var file: String
    var title: String?
    /// Displayed page sizes in points.
    var sizes: [(width: Double, height: Double)]
    /// A phrase expected in the text of each page.
    var phrases: [String]

    var testDescription: String { file }

    static let cairoSizes: [(width: Double, height: Double)] = [(960, 540), (720, 540), (960, 540)]
    static let cairoPhrases = ["First slide wide", "Second slide classic", "Third slide wide"]
    static let a4: (width: Double, height: Double) = (595, 842)
    static let ghostscriptPhrases = ["Ghostscript page one", "Ghostscript page two"]

    static let all: [GoodFixture] = [
        GoodFixture(file: "cairo-slides.pdf", title: "Cairo Slides", sizes: cairoSizes, phrases: cairoPhrases),
        GoodFixture(file: "ghostscript-a4.pdf", title: "Ghostscript A4", sizes: [a4, a4], phrases: ghostscriptPhrases),
        GoodFixture(file: "recoded.pdf", title: nil, sizes: [a4, a4], phrases: ghostscriptPhrases),
        GoodFixture(file: "linearized.pdf", title: "Cairo Slides", sizes: cairoSizes, phrases: cairoPhrases),
        GoodFixture(
            file: "rotated.pdf", title: "Ghostscript A4", sizes: [(842, 595), a4], phrases: ghostscriptPhrases),
        GoodFixture(file: "owner-locked.pdf", title: "Cairo Slides", sizes: cairoSizes, phrases: cairoPhrases),
    ]
}

@Suite("PDFIngester")
struct PDFIngesterTests {
    @Test("good PDFs ingest with pages, sizes, title, text and three JPEGs a page", arguments: GoodFixture.all)
    func ingestsGoodFixture(_ fixture: GoodFixture) async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let log = ProgressLog()

        let document = try await PDFIngester(limits: IngestLimits(parallelism: 2))
            .ingest(pdf: TestSupport.fixture(fixture.file), workDirectory: work.appendingPathComponent("out")) {
                log.record($0)
            }

        #expect(document.title == fixture.title)
        #expect(document.pageCount == fixture.sizes.count)
        try #require(document.pages.count == fixture.sizes.count)
        for (index, page) in document.pages.enumerated() {
            #expect(page.number == index + 1)
            #expect(abs(page.width - fixture.sizes[index].width) < 1, "width of page \(page.number)")
            #expect(abs(page.height - fixture.sizes[index].height) < 1, "height of page \(page.number)")
            #expect(page.text.contains(fixture.phrases[index]), "text of page \(page.number): \(page.text)")
            try expectImages(of: page)
        }
        let rendering = log.reports(stage: "rendering")
        #expect(
            rendering.last
                == IngestProgress(stage: "rendering", done: 3 * fixture.sizes.count, total: 3 * fixture.sizes.count))
        #expect(zip(rendering, rendering.dropFirst()).allSatisfy { $0.done <= $1.done })
        #expect(log.stages.first == "inspecting")
        #expect(log.reports(stage: "text").last?.done == fixture.sizes.count)
    }

    @Test("a 24-page deck is rendered in chunks and every page keeps its own number")
    func rendersManyPagesInChunks() async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        // Twelve copies of the two-page A4 fixture: page numbers get two digits in pdftoppm's names.
        let source = TestSupport.fixture("ghostscript-a4.pdf").path
        let deck = work.appendingPathComponent("deck.pdf")
        let pages = (0..<12).flatMap { _ in [source, "1-z"] }
        let made = try await SystemToolRunner().run(
            "qpdf", ["--empty", "--pages"] + pages + ["--", deck.path], limits: ToolLimits(timeout: .seconds(60)))
        try #require(made.exitCode == 0, "qpdf: \(made.stderr)")
        let log = ProgressLog()

        let document = try await PDFIngester(limits: IngestLimits(parallelism: 2))
            .ingest(pdf: deck, workDirectory: work.appendingPathComponent("out")) { log.record($0) }

        #expect(document.pageCount == 24)
        let expectedText = (0..<24).map { $0 % 2 == 0 ? "page one" : "page two" }
        #expect(
            document.pages.map { $0.text.contains(expectedText[$0.number - 1]) } == Array(repeating: true, count: 24))
        for page in document.pages {
            #expect(page.large.lastPathComponent == String(format: "large-%04d.jpg", page.number))
            try expectImages(of: page)
        }
        let rendering = log.reports(stage: "rendering")
        #expect(rendering.count > 2, "progress is reported per chunk, not only at the end")
        #expect(rendering.last?.done == 72)
    }

    @Test("a one-page document ingests (pdftoppm numbers even a single page)")
    func onePage() async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let single = work.appendingPathComponent("single.pdf")
        let made = try await SystemToolRunner().run(
            "qpdf", ["--empty", "--pages", TestSupport.fixture("rotated.pdf").path, "1", "--", single.path],
            limits: ToolLimits(timeout: .seconds(60)))
        try #require(made.exitCode == 0, "qpdf: \(made.stderr)")
        let document = try await PDFIngester(limits: IngestLimits(parallelism: 4))
            .ingest(pdf: single, workDirectory: work.appendingPathComponent("out")) { _ in }
        try #require(document.pageCount == 1)
        #expect(document.pages[0].width == 842 && document.pages[0].height == 595)
        try expectImages(of: document.pages[0])
    }

    @Test("a deck that takes longer than the whole-deck deadline fails with a clear timeout")
    func deckDeadline() async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        // No deck renders in a millisecond: the deadline always wins.
        let ingester = PDFIngester(limits: IngestLimits(deckTimeout: .milliseconds(1), parallelism: 2))
        let error = await #expect(throws: IngestError.self) {
            _ = try await ingester.ingest(pdf: TestSupport.demoDeck, workDirectory: work) { _ in }
        }
        #expect(error?.code == "timeout")
        #expect(error?.message.contains("took longer than the 1 second") == true, "\(String(describing: error))")
    }

    @Test("the shipped demo deck ingests: six 16:9 slides titled Welcome to Podium")
    func demoDeck() async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let document = try await PDFIngester().ingest(pdf: TestSupport.demoDeck, workDirectory: work) { _ in }
        #expect(document.title == "Welcome to Podium")
        #expect(document.pageCount == 6)
        #expect(document.pages.allSatisfy { $0.width == 1280 && $0.height == 720 })
        #expect(document.pages.first?.text.contains("Welcome to Podium") == true)
        #expect(document.pages.last?.text.contains("Thank you") == true)
        for page in document.pages { try expectImages(of: page) }
    }

    @Test(
        "broken files fail with a stable code",
        arguments: [
            ("empty.pdf", "empty"), ("not-a-pdf.pdf", "not_pdf"), ("truncated.pdf", "corrupt"),
            ("garbage.pdf", "corrupt"), ("encrypted.pdf", "encrypted"),
        ])
    func rejectsBrokenFixture(file: String, code: String) async throws {
        let error = try await ingestError(TestSupport.fixture(file))
        #expect(error.code == code)
        #expect(!error.message.isEmpty)
    }

    @Test("the encrypted file's message tells the uploader what to do")
    func encryptedMessage() async throws {
        let error = try await ingestError(TestSupport.fixture("encrypted.pdf"))
        #expect(error == .encrypted)
        #expect(error.message.contains("password"))
    }

    @Test("a file over maxBytes is too_large before any tool runs")
    func tooLarge() async throws {
        let error = try await ingestError(
            TestSupport.fixture("cairo-slides.pdf"), limits: IngestLimits(maxBytes: 1000))
        #expect(error == .tooLarge(limit: 1000))
    }

    @Test("a document over maxPages is too_many_pages")
    func tooManyPages() async throws {
        let error = try await ingestError(TestSupport.fixture("cairo-slides.pdf"), limits: IngestLimits(maxPages: 1))
        #expect(error == .tooManyPages(limit: 1))
    }

    @Test("a tool killed by its memory limit makes the file corrupt, not a server error")
    func memoryLimit() async throws {
        let error = try await ingestError(
            TestSupport.fixture("cairo-slides.pdf"), limits: IngestLimits(memoryBytes: 1024 * 1024))
        #expect(error.code == "corrupt")
    }

    @Test("a tool that runs past its deadline ends the ingest with timeout")
    func stepTimeout() async throws {
        // The deadline is every tool's: 3 s, not less, so the real tools beside the sleeping one
        // finish within it even on a loaded machine (300 ms once timed out qpdf first).
        let runner = SubstitutingRunner(replacing: "pdfinfo", with: ("sleep", ["30"]))
        let error = try await ingestError(
            TestSupport.fixture("cairo-slides.pdf"), limits: IngestLimits(stepTimeout: .seconds(3)),
            runner: runner)
        #expect(error == .timeout(tool: "pdfinfo"))
    }

    @Test("a missing tool is tool_missing, naming the tool")
    func missingTool() async throws {
        let runner = SubstitutingRunner(replacing: "pdftoppm", with: ("/nonexistent/pdftoppm", []))
        let error = try await ingestError(TestSupport.fixture("cairo-slides.pdf"), runner: runner)
        #expect(error.code == "tool_missing")
        #expect(error.message.contains("pdftoppm"))
    }

    @Test("text extraction failing is not fatal: pages come back without text")
    func textFailureIsNotFatal() async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let runner = SubstitutingRunner(replacing: "pdftotext", with: ("false", []))
        let document = try await PDFIngester(runner: runner)
            .ingest(pdf: TestSupport.fixture("ghostscript-a4.pdf"), workDirectory: work) { _ in }
        #expect(document.pages.map(\.text) == ["", ""])
    }

    @Test("a smaller page image size gives every page its three images at that size, a half and a sixth")
    func pageImageSizeSetsTheThreeSizes() async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let document = try await PDFIngester(limits: IngestLimits(parallelism: 2, pageImageSize: 480))
            .ingest(pdf: TestSupport.fixture("cairo-slides.pdf"), workDirectory: work) { _ in }
        try #require(!document.pages.isEmpty)
        for page in document.pages { try expectImages(of: page, large: 480) }
    }

    // MARK: - Helpers

    private func ingestError(
        _ pdf: URL, limits: IngestLimits = IngestLimits(), runner: any ToolRunner = SystemToolRunner()
    ) async throws -> IngestError {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let error = await #expect(throws: IngestError.self) {
            _ = try await PDFIngester(limits: limits, runner: runner).ingest(pdf: pdf, workDirectory: work) { _ in }
        }
        return try #require(error)
    }

    private func expectImages(of page: IngestedPage, large: Int = 1920) throws {
        let renditions = [(page.large, large), (page.medium, large / 2), (page.thumbnail, large / 6)]
        for (url, longSide) in renditions {
            let size = try #require(try TestSupport.jpegSize(url), "\(url.lastPathComponent) is a JPEG")
            #expect(max(size.width, size.height) == longSide, "\(url.lastPathComponent): \(size)")
            // The image has the page's displayed orientation and, within rounding, its aspect ratio.
            let pageRatio = page.width / page.height
            let imageRatio = Double(size.width) / Double(size.height)
            #expect(
                abs(pageRatio - imageRatio) < 0.02, "\(url.lastPathComponent): \(size) for \(page.width)x\(page.height)"
            )
        }
    }
}

/// Runs real tools, but one chosen tool is replaced by another real program: a way to make a step hang,
/// fail or go missing without a broken system.
struct SubstitutingRunner: ToolRunner {
    var replacing: String
    var with: (tool: String, arguments: [String])
    let base = SystemToolRunner()

    func run(_ tool: String, _ arguments: [String], limits: ToolLimits) async throws -> ToolResult {
        if tool == replacing { return try await base.run(with.tool, with.arguments, limits: limits) }
        return try await base.run(tool, arguments, limits: limits)
    }
}
