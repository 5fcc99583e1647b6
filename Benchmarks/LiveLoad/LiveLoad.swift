import ArgumentParser
import ChildProcesses
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// `podium-load`: opens N viewer sockets to one live channel, publishes page and pointer events
/// at fixed rates (or page events as fast as the server takes them), and reports connect time,
/// delivery, latency, late-join time, and the server's CPU and memory.
///
/// Two targets, same measurements: a Podium session (`--podium ws://…/live --token …`) or an
/// nginx + nchan channel (`--nchan-sub ws://…/sub/x --nchan-pub http://…/pub/x`).
///
/// The viewers are plain SwiftNIO channels: one handler per socket parses the frames from each
/// read and records numbers in its event loop's own arrays. No task per viewer, no lock per frame.
@main
struct LiveLoad: AsyncParsableCommand {
    @Option(help: "Podium live socket URL (ws://host:port/api/v1/sessions/CODE/live).") var podium: String?
    @Option(help: "Presenter token for Podium.") var token: String?
    @Option(help: "nchan subscriber WebSocket URL.") var nchanSub: String?
    @Option(help: "nchan publisher URL (HTTP POST).") var nchanPub: String?
    @Option(help: "Viewer sockets.") var viewers = 1000
    @Option(help: "Page events per second.") var pageRate = 20.0
    @Option(help: "Pointer events per second.") var pointerRate = 60.0
    @Option(help: "Seconds of publishing.") var seconds = 10.0
    @Option(help: "PID of the server, for CPU and memory from /proc; repeat it for several nodes (their sum).")
    var serverPid: [Int32] = []
    @Option(
        help:
            "Another node's live socket URL of the same session (repeatable): the viewers are spread round robin over --podium and these."
    )
    var viewerURL: [String] = []
    @Option(help: "Event-loop threads of the viewers (the publisher and late joiners have one more).") var threads = 1
    @Option(help: "Viewers that stop reading after their welcome (stalled phones); not measured.") var stalled = 0
    @Option(help: "Viewers who join one at a time, spread over the publishing phase; not in the delivery figures.")
    var lateJoiners = 50
    @Option(help: "Page image a late joiner fetches: mediumUrl (960 px, a phone), imageUrl (1920 px) or thumbnailUrl.")
    var lateJoinImage = "mediumUrl"
    @Flag(help: "Publish page events as fast as the server answers them (no pointer), for saturation throughput.")
    var saturate = false
    @Option(
        help:
            "A shell command run once every viewer has connected, before publishing (an instruction count's boundary: Benchmarks/fanout-instructions.sh)."
    )
    var beforePublishing: String?
    @Option(help: "A shell command run once every page event has been delivered (or the drain has given up).")
    var afterPublishing: String?
    @Option(
        help:
            "Podium: page changes the presenter makes before any viewer connects, each acknowledged, so the server's one-time work on its first commands is not in the figures."
    )
    var warmUpPages = 0
    @Option(help: "A shell command run after the warm-up pages, before any viewer connects (an instruction count's start).")
    var afterWarmUp: String?
    @Option(help: "Seconds to wait after publishing for every viewer to have every page event.") var drainSeconds = 3.0
    @Option(help: "Commands in flight with --saturate (Podium: unacknowledged gotos; nchan: open POSTs).") var window = 8
    @Option(
        help:
            "A file for each page event's send and answer times and its viewers' receive times (µs of the monotonic clock since boot), to line up with a server's trace (Benchmarks/command_path.py)."
    )
    var trace: String?

    func validate() throws {
        guard (0..<max(viewers, 1)).contains(stalled) else { throw ValidationError("--stalled must be below --viewers") }
        guard threads > 0, window > 0, seconds > 0, pageRate > 0 else {
            throw ValidationError("--threads, --window, --seconds and --page-rate must be positive")
        }
        guard drainSeconds >= 0 else { throw ValidationError("--drain-seconds cannot be negative") }
        guard ["mediumUrl", "imageUrl", "thumbnailUrl"].contains(lateJoinImage) else {
            throw ValidationError("--late-join-image is mediumUrl, imageUrl or thumbnailUrl")
        }
    }

    func run() async throws {
        let target: Target
        if let podium, let token {
            target = .podium(url: podium, token: token)
        } else if let nchanSub, let nchanPub {
            target = .nchan(sub: nchanSub, pub: nchanPub)
        } else {
            throw ValidationError("give --podium and --token, or --nchan-sub and --nchan-pub")
        }
        let viewerURL = try WebSocketURL(target.viewerURL)
        let viewerURLs = try [viewerURL] + self.viewerURL.map(WebSocketURL.init)
        let pids = serverPid.isEmpty ? nil : serverPid
        let isPodium = target.isPodium
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        // The presenter and the late joiners get their own loop: a busy viewer loop must not
        // delay the publisher's sends (their times are the latencies' start) or a join.
        let control = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let controlLoop = control.next()
        let fleet = try await Fleet.make(group: group)
        if case .podium(let url, let token) = target, warmUpPages > 0 {
            try await Publisher.warmUp(url: try WebSocketURL(url), token: token, pages: warmUpPages, loop: controlLoop)
        }
        if let afterWarmUp { try Hook.run(afterWarmUp) }
        let rssBefore = pids.flatMap(ProcStat.rssKiB)
        let connectCPUBefore = pids.flatMap(ProcStat.cpuSeconds)

        // Connect every viewer, at most 256 handshakes in flight; spread the stalled ones among the others.
        let connectStart = ContinuousClock.now
        let viewerCount = viewers
        let stalledCount = stalled
        try await fleet.connect(count: viewers, urls: viewerURLs, podium: isPodium) { index in
            stalledCount > 0 && index % (viewerCount / stalledCount) == 0 && index / (viewerCount / stalledCount) < stalledCount
        }
        let connectTime = ContinuousClock.now - connectStart
        // Whether the joins waited for the server's core or for something else (a turn, a write).
        let connectCPU = connectCPUBefore.flatMap { before in pids.flatMap(ProcStat.cpuSeconds).map { $0 - before } }
        try await Task.sleep(for: .seconds(2))  // let welcomes settle before measuring idle memory
        let rssIdle = pids.flatMap(ProcStat.rssKiB)
        if let beforePublishing { try Hook.run(beforePublishing) }

        // Publish, with the late joiners arriving meanwhile.
        let ledger = Ledger()
        let options = PublishOptions(
            pageRate: pageRate, pointerRate: saturate ? 0 : pointerRate, seconds: seconds, saturate: saturate, window: window)
        let sampler = pids.map { CPUSampler(pids: $0) }
        let cpuBefore = pids.flatMap(ProcStat.cpuSeconds)
        let ownCPUBefore = ProcStat.cpuSeconds(getpid())
        let publishStart = Clock.seconds()
        let joinCount = lateJoiners
        let joinImage = lateJoinImage
        let joinSeconds = seconds
        let lateJoin = Task {
            await LateJoin.run(
                count: joinCount, seconds: joinSeconds, url: viewerURL, podium: isPodium, rendition: joinImage,
                loop: controlLoop)
        }
        try await Publisher.run(target: target, options: options, ledger: ledger, loop: controlLoop)
        let (late, lateChannels) = await lateJoin.value

        // Drain: until every viewer has every page event, at most --drain-seconds.
        let expected = ledger.pagesSent * (viewers - stalled)
        let drainStart = ContinuousClock.now
        while ContinuousClock.now - drainStart < .seconds(drainSeconds) {
            if try await fleet.deliveredPages() >= expected {
                try await Task.sleep(for: .milliseconds(100))  // the last pointer moves
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let cpuAfter = pids.flatMap(ProcStat.cpuSeconds)
        let ownCPUAfter = ProcStat.cpuSeconds(getpid())
        let publishEnd = Clock.seconds()
        sampler?.stop()
        if let afterPublishing { try Hook.run(afterPublishing) }

        let records = try await fleet.snapshots()
        let sent = ledger.snapshot
        print(
            "target: \(target.name), viewers: \(viewers), page events/s: \(saturate ? "max" : "\(pageRate)"), pointer events/s: \(options.pointerRate), seconds: \(seconds)"
        )
        print(
            "connect all: \(String(format: "%.2f", connectTime.seconds)) s; sockets that failed or were closed: \(fleet.failed + fleet.closedEarly); stalled (not measured): \(stalled)"
        )
        if let connectCPU {
            print(
                String(
                    format: "server CPU while connecting: %.2f s of %.2f s (%.0f µs per join)", connectCPU, connectTime.seconds,
                    connectCPU * 1e6 / Double(max(viewers, 1))))
        }
        let report = Report(records: records, sent: sent, viewers: viewers - stalled)
        print(report.text)
        if let trace { try PageTrace.write(records: records, sent: sent, to: trace) }
        print(
            "publisher: \(sent.pageSent.count - 1) page events sent, \(sent.acknowledged) acknowledged (send to answer: \(percentiles(sent.answerTimes))), \(sent.refused) refused, \(sent.failed) failed or unanswered"
                + (sent.seqMismatches > 0
                    ? "; \(sent.seqMismatches) acks with a seq other than the page number (latencies mismatched)" : "")
        )
        print(late.lines(podium: isPodium, count: lateJoiners, rendition: lateJoinImage))
        if saturate {
            print(report.saturation(sent: sent, window: window, sampler: sampler))
        }
        if let cpuBefore, let cpuAfter {
            let deliveries = Double(report.deliveredPages + report.deliveredPointers)
            print(
                String(
                    format: "server CPU: %.2f s for %.0f deliveries = %.2f µs/delivery", cpuAfter - cpuBefore, deliveries,
                    (cpuAfter - cpuBefore) / max(deliveries, 1) * 1e6))
        }
        if let rssBefore, let rssIdle {
            print(
                String(
                    format: "server memory: %.1f KiB per idle viewer (RSS %d → %d KiB)",
                    Double(rssIdle - rssBefore) / Double(viewers), rssBefore, rssIdle))
        }
        if let ownCPUBefore, let ownCPUAfter, let ownTotal = ProcStat.cpuSeconds(getpid()) {
            print(
                String(
                    format:
                        "generator CPU: %.2f s over %.2f s of publishing and draining = %.2f of one core (%d viewer thread%@); %.2f s in all",
                    ownCPUAfter - ownCPUBefore, publishEnd - publishStart,
                    (ownCPUAfter - ownCPUBefore) / (publishEnd - publishStart),
                    threads, threads == 1 ? "" : "s", ownTotal))
        }

        await fleet.closeAll()
        for channel in lateChannels { channel.close(promise: nil) }
        try await group.shutdownGracefully()
        try await control.shutdownGracefully()
    }
}

/// `--before-publishing` and `--after-publishing`: a shell command, waited for.
enum Hook {
    static func run(_ command: String) throws {
        // Not Foundation's `Process`: with 10,000 sockets open it can crash (see ChildProcess).
        let process = ChildProcess(URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", command])
        try process.run()
        let termination = process.waitUntilExit()
        guard termination == .exit(0) else {
            throw LoadError("the hook `\(command)` failed: \(termination)")
        }
    }
}

enum Target: Sendable {
    case podium(url: String, token: String)
    case nchan(sub: String, pub: String)

    var name: String {
        switch self {
        case .podium: "podium"
        case .nchan: "nginx+nchan"
        }
    }

    var viewerURL: String {
        switch self {
        case .podium(let url, _): url
        case .nchan(let sub, _): sub
        }
    }

    var isPodium: Bool {
        if case .podium = self { return true }
        return false
    }
}

/// Delivery and latency from the viewers' records and the publisher's send times.
struct Report {
    var deliveredPages = 0
    var duplicated = 0
    var deliveredPointers = 0
    var pageLatencies: [Double] = []
    var pointerAges: [Double] = []
    var pageFrames = 0
    var lastPageFrame: UInt64 = 0
    let sentPages: Int
    let sentPointers: Int
    let refused: Int
    let viewers: Int

    init(records: [LoopStats.Snapshot], sent: Ledger.State, viewers: Int) {
        sentPages = sent.pageSent.count - 1
        sentPointers = sent.pointerSent.count - 1
        refused = sent.refused
        self.viewers = viewers
        for record in records {
            deliveredPages += record.pageNumbers.count
            deliveredPointers += record.pointerNumbers.count
            duplicated += record.duplicated
            pageFrames += record.pageFrames
            lastPageFrame = max(lastPageFrame, record.lastPageFrame)
            pageLatencies.reserveCapacity(pageLatencies.count + record.pageNumbers.count)
            for (n, time) in zip(record.pageNumbers, record.pageTimes) where n >= 1 && Int(n) < sent.pageSent.count {
                pageLatencies.append(Double(Int64(time) - Int64(sent.pageSent[Int(n)])) / 1e6)
            }
            for (n, time) in zip(record.pointerNumbers, record.pointerTimes) where n >= 1 && Int(n) < sent.pointerSent.count {
                pointerAges.append(Double(Int64(time) - Int64(sent.pointerSent[Int(n)])) / 1e6)
            }
        }
    }

    var text: String {
        let expected = sentPages * viewers
        return """
            page events: sent \(sentPages), delivered \(deliveredPages) of \(expected), lost \(expected - deliveredPages), duplicated \(duplicated); presenter commands refused: \(refused)
            page latency: \(percentiles(pageLatencies))
            pointer: sent \(sentPointers), delivered \(deliveredPointers) (coalescing may drop stale ones)
            pointer age at delivery: \(percentiles(pointerAges))
            """
    }

    /// Page frames received by all viewers from the first send to the last receive, per second,
    /// and the server's CPU seconds over the same interval.
    func saturation(sent: Ledger.State, window: Int, sampler: CPUSampler?) -> String {
        guard sent.pageSent.count > 1, lastPageFrame > sent.pageSent[1] else { return "saturation: no page frame received" }
        let first = sent.pageSent[1]
        let interval = Double(lastPageFrame - first) / 1e6
        let rate = Double(pageFrames) / interval
        var line = String(
            format:
                "saturation: %d page frames in %.2f s (first send to last receive, %d commands in flight) = %.0f deliveries/s",
            pageFrames, interval, window, rate)
        if let sampler, let start = sampler.cpu(at: first), let end = sampler.cpu(at: lastPageFrame) {
            line += String(
                format: "; server CPU %.2f s over that interval = %.2f s/s, %.2f µs/delivery", end - start,
                (end - start) / interval,
                (end - start) / Double(max(pageFrames, 1)) * 1e6)
        }
        return line
    }
}

extension LateJoin.Results {
    func lines(podium: Bool, count: Int, rendition: String) -> String {
        let failures = failed > 0 ? " (\(firstError ?? ""))" : ""
        if !podium {
            return """
                late join: \(welcome.count) of \(count) subscribed, \(failed) failed\(failures); connect + upgrade until subscribed: \(percentiles(welcome))
                late join: hello to first page image: n/a (nchan serves no page images)
                """
        }
        let bytes = imageBytes.isEmpty ? "" : ", \(imageBytes.reduce(0, +) / imageBytes.count) bytes"
        let imageFailures = imageFailed > 0 ? ", \(imageFailed) failed (\(firstError ?? ""))" : ""
        return """
            late join: \(welcome.count) of \(count) welcomed, \(failed) failed\(failures); connect + upgrade + hello to welcome: \(percentiles(welcome))
            late join: hello to first page image (\(rendition), 200\(bytes)\(imageFailures)): \(percentiles(image))
            """
    }
}

/// The server's CPU time (all its nodes'), read every 20 ms, to know it at any moment of the run.
final class CPUSampler: Sendable {
    private final class Samples: Sendable {
        let list = Mutex<[(time: UInt64, cpu: Double)]>([])
    }

    private let samples = Samples()
    private let task: Task<Void, Never>

    init(pids: [Int32]) {
        let samples = self.samples
        task = Task.detached {
            while !Task.isCancelled {
                if let cpu = ProcStat.cpuSeconds(pids) { samples.list.withLock { $0.append((Clock.micros(), cpu)) } }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    func stop() { task.cancel() }

    /// CPU seconds at `time` (µs, `Clock`), interpolated between the samples around it.
    func cpu(at time: UInt64) -> Double? {
        samples.list.withLock { samples in
            guard let after = samples.firstIndex(where: { $0.time >= time }) else { return samples.last?.cpu }
            guard after > 0 else { return samples[after].cpu }
            let (t0, c0) = samples[after - 1]
            let (t1, c1) = samples[after]
            return c0 + (c1 - c0) * Double(time - t0) / Double(max(t1 - t0, 1))
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// `--trace`: per page event n, when it was sent and answered, and when its viewers got it
/// (count, first, median, 90th and 99th percentile, last), in µs of the monotonic clock since boot.
enum PageTrace {
    static func write(records: [LoopStats.Snapshot], sent: Ledger.State, to path: String) throws {
        var received = [[UInt64]](repeating: [], count: sent.pageSent.count)
        for record in records {
            for (n, time) in zip(record.pageNumbers, record.pageTimes) where n >= 1 && Int(n) < received.count {
                received[Int(n)].append(UInt64(time))
            }
        }
        var lines = ["# page n, sent, answered, viewers, first, p50, p90, p99, last (µs since boot)"]
        for n in 1..<max(sent.pageSent.count, 1) {
            let times = received[n].sorted()
            func at(_ q: Double) -> String {
                times.isEmpty ? "-" : String(Clock.sinceBoot(times[min(times.count - 1, Int(Double(times.count) * q))]))
            }
            let answered = sent.answeredAt[n].map { String(Clock.sinceBoot($0)) } ?? "-"
            lines.append(
                "page \(n) \(Clock.sinceBoot(sent.pageSent[n])) \(answered) \(times.count) \(at(0)) \(at(0.5)) \(at(0.9)) \(at(0.99)) \(at(1))"
            )
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }
}
