import Foundation
import Synchronization

/// Send times by sequence number and what every viewer received.
final class Stats: Sendable {
    struct State {
        var pageSent: [Double]
        var pointerSent: [Double] = []
        var pageLatencies: [Double] = []
        var pointerAges: [Double] = []
        var deliveredPages = 0
        var duplicated = 0
        var deliveredPointers = 0
        var refusedCommands = 0
    }

    func refusedCommand() { state.withLock { $0.refusedCommands += 1 } }

    let state: Mutex<State>
    let expectedPages: Int
    static let clock = ContinuousClock()
    static let start = ContinuousClock.now

    init(expectedPages: Int) {
        self.expectedPages = expectedPages
        state = Mutex(State(pageSent: [.nan]))
    }

    static func now() -> Double { (ContinuousClock.now - start).seconds }

    func sentPage(_ n: Int) {
        state.withLock { state in
            while state.pageSent.count <= n { state.pageSent.append(.nan) }
            state.pageSent[n] = Self.now()
        }
    }

    func sentPointer(_ n: Int) {
        state.withLock { state in
            while state.pointerSent.count <= n { state.pointerSent.append(.nan) }
            state.pointerSent[n] = Self.now()
        }
    }

    /// One viewer's page event `n`. `seen` is that viewer's own record, for duplicates.
    func receivedPage(_ n: Int, duplicate: Bool) {
        let now = Self.now()
        state.withLock { state in
            if duplicate {
                state.duplicated += 1
                return
            }
            state.deliveredPages += 1
            if n < state.pageSent.count, !state.pageSent[n].isNaN { state.pageLatencies.append(now - state.pageSent[n]) }
        }
    }

    /// A pointer update: its age is now minus the send time of the newest pointer at this moment
    /// (what the viewer sees versus where the pointer really is).
    func receivedPointer(_ n: Int) {
        let now = Self.now()
        state.withLock { state in
            state.deliveredPointers += 1
            if n < state.pointerSent.count, !state.pointerSent[n].isNaN { state.pointerAges.append(now - state.pointerSent[n]) }
        }
    }

    var deliveredPages: Int { state.withLock { $0.deliveredPages } }
    var deliveredPointers: Int { state.withLock { $0.deliveredPointers } }

    func report(viewers: Int) -> String {
        state.withLock { state in
            let sentPages = state.pageSent.dropFirst().filter { !$0.isNaN }.count
            let expected = sentPages * viewers
            func percentiles(_ values: [Double]) -> String {
                guard !values.isEmpty else { return "n/a" }
                let sorted = values.sorted()
                func at(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1000 }
                return String(
                    format: "p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms", at(0.5), at(0.9), at(0.99), sorted.last! * 1000)
            }
            return """
                page events: sent \(sentPages), delivered \(state.deliveredPages) of \(expected), lost \(expected - state.deliveredPages), duplicated \(state.duplicated); presenter commands refused: \(state.refusedCommands)
                page latency: \(percentiles(state.pageLatencies))
                pointer: sent \(state.pointerSent.count), delivered \(state.deliveredPointers) (coalescing may drop stale ones)
                pointer age at delivery: \(percentiles(state.pointerAges))
                """
        }
    }
}

final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// CPU time and memory of a process, from /proc.
enum ProcStat {
    static func cpuSeconds(_ pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the command: state is field 3; utime and stime are fields 14 and 15.
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func rssKiB(_ pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        }
        return nil
    }
}
