import NIOCore
import NIOPosix
import Synchronization

/// What the viewers of one event loop received. Only that loop touches it (no lock per frame);
/// the loops' records are merged once at the end.
final class LoopStats {
    /// Page events as (number, receive time in µs), in order of arrival.
    var pageNumbers: [Int32] = []
    var pageTimes: [UInt32] = []
    var pointerNumbers: [Int32] = []
    var pointerTimes: [UInt32] = []
    var duplicated = 0
    /// Every page frame, duplicates too, and when the first and the last arrived.
    var pageFrames = 0
    var firstPageFrame = UInt64.max
    var lastPageFrame: UInt64 = 0

    func snapshot() -> Snapshot {
        Snapshot(
            pageNumbers: pageNumbers, pageTimes: pageTimes, pointerNumbers: pointerNumbers, pointerTimes: pointerTimes,
            duplicated: duplicated, pageFrames: pageFrames, firstPageFrame: firstPageFrame, lastPageFrame: lastPageFrame)
    }

    struct Snapshot: Sendable {
        var pageNumbers: [Int32]
        var pageTimes: [UInt32]
        var pointerNumbers: [Int32]
        var pointerTimes: [UInt32]
        var duplicated: Int
        var pageFrames: Int
        var firstPageFrame: UInt64
        var lastPageFrame: UInt64
    }
}

/// Counts shared by every viewer: touched once per socket (welcome, close), never per frame.
final class FleetCounters: Sendable {
    let ready = Atomic(0)
    let failed = Atomic(0)
    /// Sockets the server closed after their welcome (a stalled viewer cut off, say).
    let closedEarly = Atomic(0)
    /// Set before the generator closes its own sockets, which are then not counted.
    let finishing = Atomic(false)
    /// Connections between `connect` and their welcome (or failure).
    let handshaking = Atomic(0)

    func connected() {
        ready.add(1, ordering: .relaxed)
        handshaking.subtract(1, ordering: .relaxed)
    }

    func failedToConnect() {
        failed.add(1, ordering: .relaxed)
        handshaking.subtract(1, ordering: .relaxed)
    }
}

/// A viewer: says hello (Podium), waits for its welcome, then records the number of every page
/// event and pointer move it gets.
struct ViewerReceiver: FrameReceiver {
    let stats: LoopStats
    let counters: FleetCounters
    let podium: Bool
    let stall: Bool
    private var welcomed = false
    /// Page numbers seen, one bit each, for duplicates.
    private var seen: [UInt64] = []

    init(stats: LoopStats, counters: FleetCounters, podium: Bool, stall: Bool) {
        self.stats = stats
        self.counters = counters
        self.podium = podium
        self.stall = stall
    }

    mutating func opened(now: UInt64, context: ChannelHandlerContext) -> FrameAction {
        if podium {
            context.writeAndFlush(
                NIOAny(OutgoingFrame.text(#"{"type":"hello","role":"viewer"}"#, allocator: context.channel.allocator)),
                promise: nil)
            return .proceed
        }
        // nchan has no hello: the upgrade is the subscription.
        return welcome()
    }

    private mutating func welcome() -> FrameAction {
        welcomed = true
        counters.connected()
        // A stalled viewer never reads again: the server's writes back up until it cuts it off.
        return stall ? .stopReading : .proceed
    }

    mutating func text(_ payload: UnsafeRawBufferPointer, now: UInt64, context: ChannelHandlerContext) -> FrameAction {
        switch Wire.messageType(payload) {
        case .page:
            guard let seq = Wire.integer(after: Wire.seqKey, in: payload), seq < 1 << 26 else { return .proceed }
            let word = seq >> 6
            let bit = UInt64(1) << UInt64(seq & 63)
            if word >= seen.count { seen.append(contentsOf: repeatElement(0, count: word - seen.count + 64)) }
            stats.pageFrames += 1
            if now < stats.firstPageFrame { stats.firstPageFrame = now }
            stats.lastPageFrame = now
            if seen[word] & bit != 0 {
                stats.duplicated += 1
            } else {
                seen[word] |= bit
                stats.pageNumbers.append(Int32(seq))
                stats.pageTimes.append(UInt32(truncatingIfNeeded: now))
            }
        case .pointer:
            // The pointer's number n is sent as x = n / 1,000,000.
            guard let n = Wire.micros(after: Wire.xKey, in: payload) else { return .proceed }
            stats.pointerNumbers.append(Int32(truncatingIfNeeded: n))
            stats.pointerTimes.append(UInt32(truncatingIfNeeded: now))
        case .welcome:
            if !welcomed { return welcome() }
        default:
            break
        }
        return .proceed
    }

    mutating func closed(upgraded: Bool) {
        if !welcomed {
            counters.failedToConnect()
        } else if !counters.finishing.load(ordering: .relaxed) {
            counters.closedEarly.add(1, ordering: .relaxed)
        }
    }
}

/// The measured viewers, spread over the event loops of the generator's group.
final class Fleet: Sendable {
    let loops: [NIOLoopBound<LoopStats>]
    let counters = FleetCounters()
    let channels = Mutex<[any Channel]>([])

    private init(loops: [NIOLoopBound<LoopStats>]) {
        self.loops = loops
    }

    /// One `LoopStats` per event loop of `group`, each made on its loop.
    static func make(group: MultiThreadedEventLoopGroup) async throws -> Fleet {
        var loops: [NIOLoopBound<LoopStats>] = []
        for loop in group.makeIterator() {
            loops.append(try await loop.submit { NIOLoopBound(LoopStats(), eventLoop: loop) }.get())
        }
        return Fleet(loops: loops)
    }

    /// Opens `count` viewers, spread round robin over `urls` (the nodes), at most `window` handshakes in flight; `stalls(index)` picks the
    /// ones that stop reading after their welcome. Returns once every viewer is welcomed or failed.
    func connect(
        count: Int, urls: [WebSocketURL], podium: Bool, window: Int = 256, timeout: Duration = .seconds(120),
        stalls: (Int) -> Bool
    ) async throws {
        let start = ContinuousClock.now
        for index in 0..<count {
            while counters.handshaking.load(ordering: .relaxed) >= window {
                try await Task.sleep(for: .milliseconds(1))
                if ContinuousClock.now - start > timeout { throw LoadError("only \(ready) viewers connected") }
            }
            counters.handshaking.add(1, ordering: .relaxed)
            let bound = loops[index % loops.count]
            let counters = self.counters
            let stall = stalls(index)
            WebSocketClient.connect(urls[index % urls.count], on: bound.eventLoop) {
                ViewerReceiver(stats: bound.value, counters: counters, podium: podium, stall: stall)
            }.whenComplete { result in
                switch result {
                case .success(let channel): self.channels.withLock { $0.append(channel) }
                case .failure: counters.failedToConnect()
                }
            }
        }
        while ready + failed < count {
            try await Task.sleep(for: .milliseconds(10))
            if ContinuousClock.now - start > timeout { throw LoadError("only \(ready) viewers connected") }
        }
    }

    var ready: Int { counters.ready.load(ordering: .relaxed) }
    var failed: Int { counters.failed.load(ordering: .relaxed) }
    var closedEarly: Int { counters.closedEarly.load(ordering: .relaxed) }

    /// Non-duplicate page events received so far, over all loops.
    func deliveredPages() async throws -> Int {
        var total = 0
        for bound in loops {
            total += try await bound.eventLoop.submit { bound.value.pageNumbers.count }.get()
        }
        return total
    }

    func snapshots() async throws -> [LoopStats.Snapshot] {
        var all: [LoopStats.Snapshot] = []
        for bound in loops { all.append(try await bound.eventLoop.submit { bound.value.snapshot() }.get()) }
        return all
    }

    func closeAll() async {
        counters.finishing.store(true, ordering: .relaxed)
        let all = channels.withLock { $0 }
        for channel in all { channel.close(promise: nil) }
        for channel in all { try? await channel.closeFuture.get() }
    }
}
