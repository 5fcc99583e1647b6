import ArgumentParser
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// `podium-load`: opens N viewer sockets to one live channel, publishes page and pointer events
/// at fixed rates, and reports connect time, delivery, latency, and the server's CPU and memory.
///
/// Two targets, same measurements: a Podium session (`--podium ws://…/live --token …`) or an
/// nginx + nchan channel (`--nchan-sub ws://…/sub/x --nchan-pub http://…/pub/x`).
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
    @Option(help: "PID of the server, for CPU and memory from /proc.") var serverPid: Int32?
    @Option(help: "Event-loop threads of the generator.") var threads = 1
    @Option(help: "Viewers that stop reading after their welcome (stalled phones); not measured.") var stalled = 0

    func run() async throws {
        var logger = Logger(label: "podium-load")
        logger.logLevel = .error
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        let target: Target
        if let podium, let token {
            target = .podium(url: podium, token: token)
        } else if let nchanSub, let nchanPub {
            target = .nchan(sub: nchanSub, pub: nchanPub)
        } else {
            throw ValidationError("give --podium and --token, or --nchan-sub and --nchan-pub")
        }
        guard (0..<viewers).contains(stalled) else { throw ValidationError("--stalled must be below --viewers") }
        let stats = Stats(expectedPages: Int(pageRate * seconds))
        let rssBefore = serverPid.flatMap(ProcStat.rssKiB)

        // Connect every viewer, at most 256 handshakes in flight.
        let connectStart = ContinuousClock.now
        let ready = Counter()
        let failures = Counter()
        let viewerCount = viewers
        let stalledCount = stalled
        let viewerTasks = Task { [target, stats, logger, failures] in
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for index in 0..<viewerCount {
                    // At most 256 handshakes in flight: wait for earlier viewers to be welcomed.
                    while index - ready.value >= 256 { try await Task.sleep(for: .milliseconds(5)) }
                    tasks.addTask {
                        // A viewer the server drops (too slow, say) is counted as lost, not fatal.
                        do {
                            // Spread the stalled ones among the others.
                            let stalls =
                                stalledCount > 0 && index % (viewerCount / stalledCount) == 0
                                && index / (viewerCount / stalledCount) < stalledCount
                            try await Viewer.run(
                                target: target, stats: stats, ready: ready, stall: stalls, group: group, logger: logger)
                        } catch {
                            failures.increment()
                        }
                    }
                }
                try await tasks.waitForAll()
            }
        }
        while ready.value + failures.value < viewers {
            try await Task.sleep(for: .milliseconds(20))
            if ContinuousClock.now - connectStart > .seconds(120) {
                throw ValidationError("only \(ready.value) viewers connected")
            }
        }
        let connectTime = ContinuousClock.now - connectStart
        try await Task.sleep(for: .seconds(2))  // let welcomes settle before measuring idle memory
        let rssIdle = serverPid.flatMap(ProcStat.rssKiB)
        let cpuBefore = serverPid.flatMap(ProcStat.cpuSeconds)

        try await Publisher.run(
            target: target, stats: stats, pageRate: pageRate, pointerRate: pointerRate, seconds: seconds, group: group,
            logger: logger)
        try await Task.sleep(for: .seconds(3))  // drain
        let cpuAfter = serverPid.flatMap(ProcStat.cpuSeconds)
        viewerTasks.cancel()

        let report = stats.report(viewers: viewers - stalled)
        print(
            "target: \(target.name), viewers: \(viewers), page events/s: \(pageRate), pointer events/s: \(pointerRate), seconds: \(seconds)"
        )
        print(
            "connect all: \(String(format: "%.2f", connectTime.seconds)) s; sockets that failed or were closed: \(failures.value); stalled (not measured): \(stalled)"
        )
        print(report)
        if let cpuBefore, let cpuAfter {
            let deliveries = Double(stats.deliveredPages + stats.deliveredPointers)
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
        try await group.shutdownGracefully()
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
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
