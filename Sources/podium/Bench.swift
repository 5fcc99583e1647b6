import ArgumentParser
import Foundation
import PodiumMedia
import Synchronization

/// `podium bench …`: measurements behind docs/performance.md.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure Podium's performance (results go in docs/performance.md).",
        subcommands: [IngestBench.self, PackageVideoBench.self])
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

/// `podium bench package-video clip.mp4`: seconds of clip packaged per second, as a video job
/// packages an upload (probe, then the whole ``VideoPackager``: ladder, MP4, poster, thumbnails).
struct PackageVideoBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "package-video",
        abstract: "Package a video as an upload would be, and report seconds of clip packaged per second.")

    @Argument(help: "The video to package.")
    var file: String

    @Option(help: "How many times to run; the best run is reported.")
    var runs = 1

    @Option(
        help: ArgumentHelp(
            "Print the ffmpeg command that encodes the ladder into this directory, one argument a line, and exit.",
            discussion: "Run by hand, it is the benchmark's baseline.",
            valueName: "directory"))
    var printCommand: String?

    func run() async throws {
        // The limits `podium serve` packages with by default: the same encoder threads.
        let limits = VideoLimits()
        let source = URL(fileURLWithPath: file)
        let probed = try await VideoProbe(limits: limits).probe(source)
        let packager = VideoPackager(limits: limits)
        if let printCommand {
            let arguments = packager.ladderArguments(
                source: source, probed: probed, into: URL(fileURLWithPath: printCommand, isDirectory: true))
            print((["ffmpeg"] + arguments).joined(separator: "\n"))
            return
        }
        print(
            "clip: \(String(format: "%.1f", probed.duration)) s, \(probed.width)x\(probed.height) at "
                + "\(String(format: "%.2f", probed.frameRate)) fps\(probed.hasAudio ? " with audio" : ""); "
                + "\(limits.threads) encoder threads")
        var best: Timing?
        for run in 1...max(1, runs) {
            let work = FileManager.default.temporaryDirectory.appendingPathComponent("podium-bench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: work) }
            let clock = ContinuousClock()
            // The ladder has ended when the extras (MP4, poster, thumbnails) begin; its ffmpeg has
            // been waited for by then, so its CPU time is counted among the children's.
            let ladderEnd = Mutex<(ContinuousClock.Instant, Double)?>(nil)
            let start = clock.now
            let startCPU = Self.childrenCPUSeconds()
            _ = try await packager.package(source, probed: probed, into: work.appendingPathComponent("hls")) { step in
                guard step.stage == "finishing" else { return }
                let now = (clock.now, Self.childrenCPUSeconds())
                ladderEnd.withLock { $0 = $0 ?? now }
            }
            let end = (clock.now, Self.childrenCPUSeconds())
            let ladder = ladderEnd.withLock { $0 } ?? end
            let timing = Timing(
                whole: IngestBench.secondsValue(end.0 - start), wholeCPU: end.1 - startCPU,
                ladder: IngestBench.secondsValue(ladder.0 - start), ladderCPU: ladder.1 - startCPU)
            print("run \(run): \(timing.report(duration: probed.duration))")
            if best.map({ timing.whole < $0.whole }) ?? true { best = timing }
        }
        if let best { print("best: \(best.report(duration: probed.duration))") }
    }

    /// One run's wall-clock and CPU seconds (ffmpeg's, the tools being children of this process):
    /// on a busy machine the CPU time still says what the work costs.
    struct Timing {
        var whole: Double
        var wholeCPU: Double
        var ladder: Double
        var ladderCPU: Double

        /// `612.30 s (CPU 1190.2 s) = 0.980 s of clip per second; ladder 580.10 s (CPU 1150.0 s), …`
        func report(duration: Double) -> String {
            String(
                format:
                    "%.2f s (CPU %.1f s) = %.3f s of clip per second; ladder %.2f s (CPU %.1f s), "
                    + "MP4, poster and thumbnails %.2f s (CPU %.1f s)",
                whole, wholeCPU, duration / whole, ladder, ladderCPU, whole - ladder, wholeCPU - ladderCPU)
        }
    }

    /// User and system CPU seconds of the children that have finished and been waited for.
    static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        #else
            getrusage(RUSAGE_CHILDREN, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
