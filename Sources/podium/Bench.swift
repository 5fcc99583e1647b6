import ArgumentParser
import Foundation
import PodiumMedia

/// `podium bench …`: measurements behind docs/performance.md.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure Podium's performance (results go in docs/performance.md).",
        subcommands: [IngestBench.self])
}

/// `podium bench ingest deck.pdf`: pages per second of the full ingest pipeline.
struct IngestBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest", abstract: "Ingest a PDF as an upload would be, and report pages per second.")

    @Argument(help: "The PDF to ingest.")
    var pdf: String

    @Option(help: "Parallel renderer processes (default: the number of cores).")
    var parallelism: Int?

    @Option(help: "How many times to run; the best run is reported.")
    var runs = 3

    func run() async throws {
        var limits = IngestLimits()
        if let parallelism { limits.parallelism = parallelism }
        let ingester = PDFIngester(limits: limits)
        var best = Duration.seconds(Int64.max)
        var pages = 0
        for run in 1...runs {
            let work = FileManager.default.temporaryDirectory.appendingPathComponent("podium-bench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: work) }
            let clock = ContinuousClock()
            let start = clock.now
            let document = try await ingester.ingest(pdf: URL(fileURLWithPath: pdf), workDirectory: work) { _ in }
            let elapsed = clock.now - start
            pages = document.pageCount
            best = min(best, elapsed)
            print("run \(run): \(pages) pages in \(Self.seconds(elapsed)) s")
        }
        let perSecond = Double(pages) / Self.secondsValue(best)
        print(
            "best: \(pages) pages in \(Self.seconds(best)) s = \(String(format: "%.1f", perSecond)) pages/s (3 images + text per page, parallelism \(limits.parallelism))"
        )
    }

    static func secondsValue(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func seconds(_ duration: Duration) -> String { String(format: "%.2f", secondsValue(duration)) }
}
