import Foundation
import Logging

/// Renders every page of a PDF to JPEG at the three ``Rendition`` sizes with parallel `pdftoppm` runs.
///
/// The page range is cut into chunks and each (chunk, size) pair is one `pdftoppm` run; at most
/// ``IngestLimits/parallelism`` runs go at once. There are at least `parallelism` chunks, to use every core,
/// and no chunk is longer than ``maxPagesPerJob`` pages, so that one run stays well inside the per-step
/// timeout and progress moves in steps a person can see, even for a 2000-page deck.
struct PageRenderer: Sendable {
    /// One `pdftoppm` run: a range of pages at one size.
    struct Job: Sendable, Equatable {
        var rendition: Rendition
        var pages: ClosedRange<Int>
    }

    /// The longest chunk given to one `pdftoppm` run.
    static let maxPagesPerJob = 20

    let runner: any ToolRunner
    let limits: IngestLimits
    let logger: Logger

    /// Cuts pages `1...pageCount` into contiguous chunks of nearly equal length.
    static func chunks(pageCount: Int, parallelism: Int) -> [ClosedRange<Int>] {
        guard pageCount > 0 else { return [] }
        let needed = (pageCount + maxPagesPerJob - 1) / maxPagesPerJob
        let count = min(pageCount, max(1, parallelism, needed))
        let base = pageCount / count
        let extra = pageCount % count
        var start = 1
        return (0..<count).map { index in
            let length = base + (index < extra ? 1 : 0)
            defer { start += length }
            return start...(start + length - 1)
        }
    }

    /// The jobs for a document, chunk by chunk, so the first pages are finished at every size first.
    static func jobs(pageCount: Int, parallelism: Int) -> [Job] {
        chunks(pageCount: pageCount, parallelism: parallelism).flatMap { pages in
            Rendition.allCases.map { Job(rendition: $0, pages: pages) }
        }
    }

    /// Renders all pages into `workDirectory` as `large-0001.jpg`, `medium-0001.jpg`, `thumbnail-0001.jpg`, ...
    /// - Parameter progress: called with the number of images written so far, from one task at a time.
    func render(pdf: URL, pageCount: Int, into workDirectory: URL, progress: (Int) -> Void) async throws {
        let staging = workDirectory.appendingPathComponent(".render", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: staging) }
        for rendition in Rendition.allCases {
            try FileManager.default.createDirectory(
                at: staging.appendingPathComponent(rendition.rawValue), withIntermediateDirectories: true)
        }
        var pending = Self.jobs(pageCount: pageCount, parallelism: limits.parallelism)[...]
        var written = 0
        try await withThrowingTaskGroup(of: Job.self) { group in
            func startNext() {
                guard let job = pending.popFirst() else { return }
                group.addTask {
                    try await run(job, pdf: pdf, staging: staging, workDirectory: workDirectory)
                    return job
                }
            }
            for _ in 0..<max(1, limits.parallelism) { startNext() }
            // Leaving this loop by a throw cancels the other runs, and the runner kills their processes.
            while let job = try await group.next() {
                written += job.pages.count
                progress(written)
                startNext()
            }
        }
    }

    private func run(_ job: Job, pdf: URL, staging: URL, workDirectory: URL) async throws {
        let directory = staging.appendingPathComponent(job.rendition.rawValue)
        let arguments = [
            "-jpeg", "-jpegopt", "quality=85", "-cropbox", "-scale-to",
            String(job.rendition.longSide(large: limits.pageImageSize)),
            "-f", String(job.pages.lowerBound), "-l", String(job.pages.upperBound),
            pdf.path, directory.appendingPathComponent("page").path,
        ]
        let result = try await runner.run("pdftoppm", arguments, limits: limits.toolLimits(capturedOutput: 64 * 1024))
        if result.timedOut { throw IngestError.timeout(tool: "pdftoppm") }
        let pageNames = job.pages.count == 1 ? "page \(job.pages.lowerBound)" : "pages \(job.pages)"
        guard result.exitCode == 0 else {
            logger.notice(
                "pdftoppm failed",
                metadata: [
                    "pages": "\(job.pages)", "exit": "\(result.exitCode)", "stderr": "\(result.stderr.prefix(500))",
                ])
            // A page that asks for more memory than `prlimit --as` grants (a content stream inflating to
            // an endless path, say) makes Poppler print "Out of memory", or the C++ runtime report
            // std::bad_alloc, and abort. Say that, rather than just "could not be drawn", so the uploader
            // knows the page is too heavy rather than unreadable.
            if Self.ranOutOfMemory(stderr: result.stderr) {
                throw IngestError.corrupt(detail: "drawing \(pageNames) needs more memory than the server allows")
            }
            throw IngestError.corrupt(detail: "\(pageNames) could not be drawn")
        }
        // pdftoppm pads page numbers to the width of the document's page count ("page-07.jpg" in a
        // 12-page deck), so find the files by parsing names rather than by guessing the padding.
        var missing = Set(job.pages)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            guard let number = Self.pageNumber(fileName: name), missing.contains(number) else { continue }
            let target = workDirectory.appendingPathComponent(job.rendition.fileName(page: number))
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.moveItem(at: directory.appendingPathComponent(name), to: target)
            missing.remove(number)
        }
        if let first = missing.min() {
            throw IngestError.corrupt(detail: "page \(first) produced no image")
        }
    }

    /// Whether a tool's standard error shows that it stopped because an allocation failed.
    static func ranOutOfMemory(stderr: String) -> Bool {
        stderr.contains("Out of memory") || stderr.contains("bad_alloc")
    }

    /// The page number in a `pdftoppm` output name such as `page-007.jpg`.
    static func pageNumber(fileName: String) -> Int? {
        guard fileName.hasPrefix("page-"), fileName.hasSuffix(".jpg") else { return nil }
        let digits = fileName.dropFirst("page-".count).dropLast(".jpg".count)
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
        return Int(digits)
    }
}
