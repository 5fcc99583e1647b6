import Foundation
import Logging

/// Turns an untrusted PDF into page images, page sizes and page text.
///
/// The pipeline: sniff the bytes → check the size → `qpdf --requires-password` → `pdfinfo` (title, page
/// count, displayed page sizes) → check the page count → `pdftoppm` at three sizes in parallel →
/// `pdftotext -layout`. Every program runs through a ``ToolRunner`` under ``IngestLimits``; every way a
/// bad file can fail ends as an ``IngestError`` with a stable code.
public struct PDFIngester: Sendable {
    /// The limits applied to documents and subprocesses.
    public let limits: IngestLimits
    private let runner: any ToolRunner
    private let logger: Logger

    /// Standard output kept from `pdfinfo`: generous for 2000 pages of two lines each.
    private static let infoOutputLimit = 4 * 1024 * 1024
    /// Standard output kept from `pdftotext`; text past it is dropped, not fatal.
    private static let textOutputLimit = 16 * 1024 * 1024

    /// Creates an ingester.
    /// - Parameters:
    ///   - limits: document and subprocess limits.
    ///   - runner: how subprocesses are run; the default runs local programs under `prlimit`.
    ///   - logger: where diagnostics go (tool stderr of failed runs, text extraction problems).
    public init(
        limits: IngestLimits = IngestLimits(), runner: any ToolRunner = SystemToolRunner(),
        logger: Logger = Logger(label: "podium.media")
    ) {
        self.limits = limits
        self.runner = runner
        self.logger = logger
    }

    /// Cheap check usable on the first bytes of an upload: a PDF has `%PDF-` within its first 1024 bytes.
    ///
    /// Readers accept junk before the header (some producers write a MacBinary or e-mail preamble), so the
    /// marker is looked for rather than required at offset 0.
    public static func looksLikePDF(_ prefix: some Collection<UInt8>) -> Bool {
        let marker = Array("%PDF-".utf8)
        let head = Array(prefix.prefix(1024 + marker.count - 1))
        guard head.count >= marker.count else { return false }
        return (0...(head.count - marker.count)).contains { start in
            head[start..<(start + marker.count)].elementsEqual(marker)
        }
    }

    /// Sniffs the bytes, then inspects, renders and extracts text.
    ///
    /// - Parameters:
    ///   - pdf: the uploaded file.
    ///   - workDirectory: where the images are written (created if missing); the caller removes it.
    ///   - progress: called as work finishes, one call at a time, in order.
    /// - Returns: the document, with `large`, `medium` and `thumbnail` JPEGs for every page.
    /// - Throws: ``IngestError`` for every bad input and for a missing tool; `CancellationError` when the
    ///   task is cancelled (running tools are killed); file-system errors when `pdf` cannot be opened or
    ///   `workDirectory` cannot be written.
    public func ingest(
        pdf: URL, workDirectory: URL, progress: @escaping @Sendable (IngestProgress) -> Void
    ) async throws -> IngestedDocument {
        // The deck's deadline: past it the running tools are killed (cancelling them does) and
        // the deck fails with a clear error.
        let deadline = limits.deckTimeout
        return try await withThrowingTaskGroup(of: IngestedDocument?.self) { group in
            group.addTask { try await self.ingestWithoutDeadline(pdf: pdf, workDirectory: workDirectory, progress: progress) }
            group.addTask {
                try await Task.sleep(for: deadline)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let document = first else { throw IngestError.deckTimeout(deadline) }
            return document
        }
    }

    private func ingestWithoutDeadline(
        pdf: URL, workDirectory: URL, progress: @escaping @Sendable (IngestProgress) -> Void
    ) async throws -> IngestedDocument {
        let source = pdf.standardizedFileURL.resolvingSymlinksInPath()
        try checkFile(source)

        progress(IngestProgress(stage: "inspecting", done: 0, total: 2))
        try await checkPassword(source)
        progress(IngestProgress(stage: "inspecting", done: 1, total: 2))
        let info = try await inspect(source)
        progress(IngestProgress(stage: "inspecting", done: 2, total: 2))

        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        let images = info.pageCount * Rendition.allCases.count
        progress(IngestProgress(stage: "rendering", done: 0, total: images))
        let renderer = PageRenderer(runner: runner, limits: limits, logger: logger)
        try await renderer.render(pdf: source, pageCount: info.pageCount, into: workDirectory) { written in
            progress(IngestProgress(stage: "rendering", done: written, total: images))
        }

        progress(IngestProgress(stage: "text", done: 0, total: info.pageCount))
        let texts = try await extractText(source, pageCount: info.pageCount)
        progress(IngestProgress(stage: "text", done: info.pageCount, total: info.pageCount))

        let pages = (1...info.pageCount).map { number in
            let size = info.pageSizes[number] ?? PDFInfo.PageSize(width: 0, height: 0)
            return IngestedPage(
                number: number, width: size.width, height: size.height, text: texts[number - 1],
                large: workDirectory.appendingPathComponent(Rendition.large.fileName(page: number)),
                medium: workDirectory.appendingPathComponent(Rendition.medium.fileName(page: number)),
                thumbnail: workDirectory.appendingPathComponent(Rendition.thumbnail.fileName(page: number)))
        }
        return IngestedDocument(title: info.title, pageCount: info.pageCount, pages: pages)
    }

    /// Refuses empty, oversized and non-PDF files before any tool sees them.
    private func checkFile(_ source: URL) throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: source.path)
        // A FIFO or device would block the sniff read (and the tools) forever.
        guard attributes[.type] as? FileAttributeType == .typeRegular else { throw IngestError.notPDF }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        if size == 0 { throw IngestError.empty }
        if size > limits.maxBytes { throw IngestError.tooLarge(limit: limits.maxBytes) }
        let handle = try FileHandle(forReadingFrom: source)
        defer { try? handle.close() }
        let prefix = try handle.read(upToCount: 1024 + 4) ?? Data()
        guard Self.looksLikePDF(prefix) else { throw IngestError.notPDF }
    }

    /// `qpdf --requires-password` exits 0 only when a user password is needed to open the file; 2 (not
    /// encrypted, or unreadable) and 3 (encrypted, opens without a password) let the file through, and
    /// damage is left for `pdfinfo` to judge.
    private func checkPassword(_ source: URL) async throws {
        let result = try await runner.run(
            "qpdf", ["--requires-password", source.path], limits: limits.toolLimits(capturedOutput: 64 * 1024))
        if result.timedOut { throw IngestError.timeout(tool: "qpdf") }
        if result.exitCode == 0 { throw IngestError.encrypted }
    }

    /// Reads the title, the page count and the displayed size of every page.
    private func inspect(_ source: URL) async throws -> PDFInfo {
        // `-l` is capped at maxPages so a huge document cannot flood the output; `Pages:` still gives
        // the true count, which is then refused.
        let arguments = ["-enc", "UTF-8", "-f", "1", "-l", String(max(1, limits.maxPages)), source.path]
        let result = try await runner.run(
            "pdfinfo", arguments, limits: limits.toolLimits(capturedOutput: Self.infoOutputLimit))
        if result.timedOut { throw IngestError.timeout(tool: "pdfinfo") }
        if result.stderr.contains("Incorrect password") { throw IngestError.encrypted }
        guard result.exitCode == 0, let info = PDFInfo.parse(String(decoding: result.stdout, as: UTF8.self)) else {
            logger.notice(
                "pdfinfo failed", metadata: ["exit": "\(result.exitCode)", "stderr": "\(result.stderr.prefix(500))"])
            throw IngestError.corrupt(detail: "its structure is damaged")
        }
        if info.pageCount <= 0 { throw IngestError.noPages }
        if info.pageCount > limits.maxPages { throw IngestError.tooManyPages(limit: limits.maxPages) }
        if let missing = (1...info.pageCount).first(where: { info.pageSizes[$0] == nil }) {
            // A page tree whose Pages node lists itself or an ancestor among its kids: Poppler stops at
            // the loop (and says so), but the root's /Count still promises the pages it never reached,
            // which pdfinfo lists as 0 x 0. Naming the loop tells the uploader more than "size unread".
            if result.stderr.contains("Loop in Pages tree") {
                throw IngestError.corrupt(detail: "its page list refers back to itself, so page \(missing) cannot be found")
            }
            throw IngestError.corrupt(detail: "the size of page \(missing) could not be read")
        }
        return info
    }

    /// Extracts the text of every page with one `pdftotext` run.
    ///
    /// Text only feeds search and accessibility, so a failure here leaves pages without text instead of
    /// failing a deck whose images are fine. A missing tool and cancellation still propagate.
    private func extractText(_ source: URL, pageCount: Int) async throws -> [String] {
        let arguments = [
            "-layout", "-enc", "UTF-8", "-eol", "unix", "-f", "1", "-l", String(pageCount), source.path, "-",
        ]
        do {
            let result = try await runner.run(
                "pdftotext", arguments, limits: limits.toolLimits(capturedOutput: Self.textOutputLimit))
            if result.timedOut || result.exitCode != 0 {
                logger.notice(
                    "pdftotext failed; pages will have no text",
                    metadata: ["exit": "\(result.exitCode)", "timedOut": "\(result.timedOut)"])
                return Array(repeating: "", count: pageCount)
            }
            if result.stdoutTruncated { logger.notice("pdftotext output truncated; later pages lose text") }
            return PageText.split(String(decoding: result.stdout, as: UTF8.self), pageCount: pageCount)
        } catch let error as IngestError where error.code != "tool_missing" {
            logger.notice("pdftotext failed; pages will have no text", metadata: ["error": "\(error)"])
            return Array(repeating: "", count: pageCount)
        }
    }
}
