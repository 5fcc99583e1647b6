import Foundation
import NIOCore
import Synchronization

/// Timestamps of a durable command's way through the server, for measuring where its time goes:
/// read on the socket's loop, its turn in the socket's tasks, the session's gate, the decision,
/// the store's append, the fan-out queued on each loop, and each loop's passes. Off unless the
/// environment names a file in `PODIUM_TRACE_COMMAND_PATH`; then one line per stage goes there
/// (buffered, written once a second). Off, every call site is one check of a constant.
///
/// Times are the monotonic clock's microseconds since boot (`NIODeadline.now()`), the clock the
/// load generator (`podium-load --trace`) writes its send and receive times in, so the two files
/// line up. `Benchmarks/command_path.py` reads both.
enum CommandPathTrace {
    /// Set once from the environment: a constant afterwards.
    static let enabled: Bool = file >= 0

    /// The trace file's descriptor, -1 when off.
    private static let file: Int32 = {
        guard let path = ProcessInfo.processInfo.environment["PODIUM_TRACE_COMMAND_PATH"], !path.isEmpty else { return -1 }
        return open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    }()

    /// The seq of the decision whose frames are being queued (set around the fan-out), so the
    /// loops' queues can say which pass will write them.
    @TaskLocal static var seq: Int?

    /// Runs `body` (synchronous: the fan-out's queueing) with ``seq`` set.
    static func withSeq<R>(_ seq: Int, _ body: () throws -> R) rethrows -> R {
        try $seq.withValue(seq, operation: body)
    }

    private static let lines = Mutex<[String]>([])
    private static let writer: Void = {
        let thread = Thread {
            while true {
                Thread.sleep(forTimeInterval: 1)
                flush()
            }
        }
        thread.name = "command-path-trace"
        thread.start()
    }()

    static var now: UInt64 { NIODeadline.now().uptimeNanoseconds / 1000 }

    /// One line: the stage, then its fields (ids, seqs, loop numbers, times in µs). Call sites
    /// check ``enabled`` first, so that nothing is built for a trace that is off.
    static func note(_ stage: String, _ fields: any CustomStringConvertible...) {
        guard enabled else { return }
        let line = ([stage] + fields.map(\.description)).joined(separator: " ")
        _ = writer
        lines.withLock { $0.append(line) }
    }

    /// Notes `stage` for `id` at the present moment.
    static func stamp(_ stage: String, _ id: any CustomStringConvertible) {
        guard enabled else { return }
        note(stage, id, now)
    }

    static func flush() {
        guard enabled else { return }
        let taken = lines.withLock { lines -> [String] in
            defer { lines = [] }
            return lines
        }
        guard !taken.isEmpty else { return }
        var text = taken.joined(separator: "\n") + "\n"
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(file, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }

    /// Arrival times of the messages each socket has not handled yet, on the socket's loop (see
    /// ``LiveSocket/chargeArrival()``): kept here, not on the socket, so tracing costs a socket
    /// nothing when it is off.
    private static let arrivals = Mutex<[ObjectIdentifier: [UInt64]]>([:])

    static func arrived(_ socket: AnyObject) {
        guard enabled else { return }
        let time = now
        arrivals.withLock { $0[ObjectIdentifier(socket), default: []].append(time) }
    }

    /// The arrival time of the socket's oldest unhandled message, taken off its list.
    static func takeArrival(_ socket: AnyObject) -> UInt64? {
        guard enabled else { return nil }
        return arrivals.withLock { arrivals -> UInt64? in
            let key = ObjectIdentifier(socket)
            guard var list = arrivals[key], !list.isEmpty else { return nil }
            let first = list.removeFirst()
            arrivals[key] = list.isEmpty ? nil : list
            return first
        }
    }
}
