import Logging
import NIOCore
import NIOWebSocket
import PodiumCore
import Synchronization

/// The bounded outbound queue of one socket, written from the socket's event loop.
///
/// The hub queues already-encoded frames: an event's whole WebSocket frame (header and payload)
/// is built once and the same bytes go to every socket. Durable frames queue up to `limit`; past
/// it the socket is cut off and the client reconnects and catches up by `lastSeq`. Ephemeral
/// frames (pointer, presence, tallies…) keep only the latest of each kind, so a slow viewer sees
/// where the pointer is now, not where it was.
///
/// No task runs per socket or per delivery: a push schedules one flush on the channel's loop
/// (a broadcast schedules one per event loop for all its sockets, see ``broadcast(_:to:)``),
/// which writes every pending frame past NIO's frame encoder and flushes once. A channel that
/// cannot take more (the client stopped reading and the kernel's and NIO's buffers are full) is
/// left alone until it can. Closing, the hello deadline and the keep-alive ping happen on the
/// loop too (``close(_:)``, ``LiveSocketWatcher``).
final class Outbox: Sendable {
    enum Ephemeral: Int, CaseIterable {
        case pointer
        case presence
        case results
        case myAnswer
        case questions
        case viewerList
        case publicQuestions
        case myVotes
        case leaderboard
        case myScore
        case inking
        case roomPresence
    }

    enum CloseReason: Sendable, Equatable {
        /// The server is done with this socket (a hello refused, a session left): pending frames,
        /// then a normal close.
        case finished
        /// The client fell `limit` durable frames behind: the connection is cut at once (it
        /// cannot take a goodbye), and the client resumes by `lastSeq`.
        case tooSlow
        /// The server is stopping: a `reconnect` message, then "going away".
        case shutdown
        case kicked(String)
        /// The client closed or vanished: nothing more is written.
        case clientGone
    }

    /// A text frame as it goes on the wire: header and payload, built once.
    struct Frame: Sendable {
        let wire: ByteBuffer

        /// Built once per event: a broadcast queues the same frame on every socket.
        init(_ payload: ByteBuffer) { wire = Frames.wire(payload) }
    }

    private struct State {
        var durable: [Frame] = []
        var ephemeral: [Frame?] = Array(repeating: nil, count: Ephemeral.allCases.count)
        var hasEphemeral = false
        var closed: CloseReason?
        /// Set while a flush is scheduled on the loop.
        var flushScheduled = false
        /// The channel has closed: nothing more to do.
        var done = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []

        var hasFrames: Bool { !durable.isEmpty || hasEphemeral }
    }

    /// What only the channel's loop touches: no lock. A class, so a flush mutates it in place.
    private final class LoopState {
        /// NIO's WebSocket frame encoder: whole frames are written from there, past the encoder
        /// (which would build a header per socket).
        var encoder: ChannelHandlerContext?
        /// Reused for each flush, so a flush allocates nothing.
        var spareDurable: [Frame] = []
        var spareEphemeral: [Frame?] = Array(repeating: nil, count: Ephemeral.allCases.count)
        var watcher: LiveSocketWatcher?
        var heartbeat: RepeatedTask?
    }

    /// How often an idle socket is checked and pinged if the client has been quiet, and after how
    /// long without a word (not even a pong) the client is taken for gone.
    struct Heartbeat: Sendable {
        var interval = TimeAmount.seconds(25)
        var silenceLimit = TimeAmount.seconds(75)
    }
    /// How long a goodbye (pending frames and the close frame) may take to leave.
    static let closeGrace = TimeAmount.seconds(2)
    /// NIO may hold up to this much unsent per socket before frames wait in the outbox (and count
    /// against its limit): a reader that is a burst behind is not cut off.
    static let waterMark = ChannelOptions.Types.WriteBufferWaterMark(low: 128 * 1024, high: 256 * 1024)

    let limit: Int
    let channel: any Channel
    let loop: any EventLoop
    private let state = Mutex(State())
    private let loopState: NIOLoopBoundBox<LoopState?>

    private let logger: Logger?
    private let heartbeat: Heartbeat

    /// - Parameter logger: where a cut-off is reported.
    init(limit: Int, channel: any Channel, logger: Logger? = nil, heartbeat: Heartbeat = Heartbeat()) {
        self.limit = limit
        self.heartbeat = heartbeat
        self.channel = channel
        self.logger = logger
        self.loop = channel.eventLoop
        self.loopState = .makeEmptyBox(valueType: LoopState.self, eventLoop: channel.eventLoop)
        channel.closeFuture.whenComplete { [self] _ in channelClosed() }
        loop.execute { [self] in attachOnLoop() }
    }

    private func attachOnLoop() {
        // A client that left at once: its close ran first, and a heartbeat started now would
        // never be cancelled.
        guard !state.withLock({ $0.done }) else { return }
        _ = channel.setOption(ChannelOptions.writeBufferWaterMark, value: Self.waterMark)
        let loopState = LoopState()
        loopState.encoder = try? channel.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self)
        let watcher = LiveSocketWatcher(outbox: self)
        // First in the pipeline: it sees every byte read (the client is alive) and is told first
        // when the socket can take more again.
        try? channel.pipeline.syncOperations.addHandler(watcher, position: .first)
        loopState.watcher = watcher
        loopState.heartbeat = loop.scheduleRepeatedTask(initialDelay: heartbeat.interval, delay: heartbeat.interval) {
            [self] _ in heartbeatOnLoop()
        }
        self.loopState.value = loopState
        flushOnLoop()
    }

    /// Queues a durable frame. Returns false if the outbox is closed or the socket fell too far
    /// behind (it is then cut off). With `flushing` false the caller schedules the flush itself.
    @discardableResult
    func push(_ frame: ByteBuffer, flushing: Bool = true) -> Bool {
        push(Frame(frame), flushing: flushing)
    }

    @discardableResult
    func push(_ frame: Frame, flushing: Bool = true) -> Bool {
        enum Outcome { case queued, refused, cutOff }
        let outcome = state.withLock { state -> Outcome in
            guard state.closed == nil else { return .refused }
            guard state.durable.count < limit else {
                state.closed = .tooSlow
                return .cutOff
            }
            state.durable.append(frame)
            return .queued
        }
        switch outcome {
        case .queued:
            if flushing { schedule() }
            return true
        case .cutOff:
            logger?.notice(
                "live socket \(channel.remoteAddress?.description ?? "?") fell \(limit) frames behind: cut off, it resumes by lastSeq"
            )
            loop.execute { [self] in finishOnLoop() }
            return false
        case .refused:
            return false
        }
    }

    /// Replaces the pending ephemeral frame of this kind.
    func replace(_ kind: Ephemeral, with frame: ByteBuffer, flushing: Bool = true) {
        replace(kind, with: Frame(frame), flushing: flushing)
    }

    func replace(_ kind: Ephemeral, with frame: Frame, flushing: Bool = true) {
        let queued = state.withLock { state -> Bool in
            guard state.closed == nil else { return false }
            state.ephemeral[kind.rawValue] = frame
            state.hasEphemeral = true
            return true
        }
        if queued, flushing { schedule() }
    }

    enum Delivery {
        case push(Frame)
        case replace(Ephemeral, Frame)
    }

    /// Queues a frame on many outboxes and schedules their flushes with one task per event loop:
    /// a broadcast to thousands of sockets costs a handful of loop hops, not one per socket.
    static func broadcast(_ delivery: Delivery, to groups: [Outbox]...) {
        var byLoop: [ObjectIdentifier: (loop: any EventLoop, outboxes: [Outbox])] = [:]
        for outboxes in groups {
            for outbox in outboxes {
                switch delivery {
                case .push(let frame): outbox.push(frame, flushing: false)
                case .replace(let kind, let frame): outbox.replace(kind, with: frame, flushing: false)
                }
                guard outbox.claimFlush() else { continue }
                byLoop[ObjectIdentifier(outbox.loop), default: (outbox.loop, [])].outboxes.append(outbox)
            }
        }
        for (loop, batch) in byLoop.values {
            loop.execute {
                for outbox in batch { outbox.flushOnLoop() }
            }
        }
    }

    /// Schedules a flush on the channel's loop, unless one is scheduled already.
    private func schedule() {
        guard claimFlush() else { return }
        loop.execute { [self] in flushOnLoop() }
    }

    /// Marks a flush as scheduled; false when there is nothing to do (a flush already scheduled,
    /// nothing pending, or closed).
    private func claimFlush() -> Bool {
        state.withLock { state in
            guard !state.flushScheduled, state.closed == nil, state.hasFrames else { return false }
            state.flushScheduled = true
            return true
        }
    }

    /// Writes every pending frame and flushes once. A channel that cannot take more is left
    /// alone: its frames wait here until ``LiveSocketWatcher`` says it can take more again.
    fileprivate func flushOnLoop() {
        guard let loopState = loopState.value else { return }  // not attached yet: attaching flushes
        guard channel.isWritable else {
            state.withLock { $0.flushScheduled = false }
            return
        }
        let hasEphemeral = state.withLock { state -> Bool in
            state.flushScheduled = false
            guard state.closed == nil else { return false }
            swap(&state.durable, &loopState.spareDurable)
            guard state.hasEphemeral else { return false }
            swap(&state.ephemeral, &loopState.spareEphemeral)
            state.hasEphemeral = false
            return true
        }
        write(loopState.spareDurable, loopState.spareEphemeral, ephemeral: hasEphemeral, with: loopState.encoder)
        loopState.spareDurable.removeAll(keepingCapacity: true)
        if hasEphemeral {
            for index in loopState.spareEphemeral.indices { loopState.spareEphemeral[index] = nil }
        }
    }

    private func write(
        _ durable: [Frame], _ ephemeral: [Frame?], ephemeral hasEphemeral: Bool, with encoder: ChannelHandlerContext?
    ) {
        guard !durable.isEmpty || hasEphemeral else { return }
        for frame in durable { write(frame.wire, with: encoder) }
        if hasEphemeral {
            for case let frame? in ephemeral { write(frame.wire, with: encoder) }
        }
        if let encoder { encoder.flush() } else { channel.flush() }
    }

    private func write(_ wire: ByteBuffer, with encoder: ChannelHandlerContext?, promise: EventLoopPromise<Void>? = nil) {
        if let encoder {
            encoder.write(NIOAny(wire), promise: promise)
        } else {
            // No encoder where we looked (a pipeline we do not know): go through the front door.
            channel.write(Frames.webSocketFrame(fromWire: wire), promise: promise)
        }
    }

    /// Closes the outbox: see ``CloseReason`` for what the client is told.
    func close(_ reason: CloseReason) {
        let first = state.withLock { state -> Bool in
            guard state.closed == nil else { return false }
            state.closed = reason
            return true
        }
        guard first else { return }
        if loop.inEventLoop {
            finishOnLoop()
        } else {
            loop.execute { [self] in finishOnLoop() }
        }
    }

    /// Says goodbye as the close reason asks, then closes the channel.
    private func finishOnLoop() {
        let (reason, frames) = state.withLock { state -> (CloseReason?, [Frame]) in
            var frames = state.durable
            for case let frame? in state.ephemeral { frames.append(frame) }
            state.durable = []
            state.ephemeral = Array(repeating: nil, count: Ephemeral.allCases.count)
            state.hasEphemeral = false
            return (state.closed, frames)
        }
        guard let reason, channel.isActive else { return }
        let encoder = loopState.value?.encoder
        let close: (code: WebSocketErrorCode, reason: String?, tell: String?)
        switch reason {
        case .clientGone: return  // Hummingbird finishes the close handshake the client began
        case .tooSlow:
            channel.close(promise: nil)
            return
        case .finished: close = (.normalClosure, nil, nil)
        case .shutdown: close = (.goingAway, "server shutting down", "shutdown")
        case .kicked(let why): close = (.policyViolation, why, nil)
        }
        for frame in frames { write(frame.wire, with: encoder) }
        if let tell = close.tell { write(Frames.wire(Frames.encode(ReconnectMessage(reason: tell))), with: encoder) }
        let written = loop.makePromise(of: Void.self)
        write(Frames.closeWire(code: close.code, reason: close.reason), with: encoder, promise: written)
        if let encoder { encoder.flush() } else { channel.flush() }
        // Close once the goodbye is out, or after a grace period if the client stopped reading.
        let deadline = loop.scheduleTask(in: Self.closeGrace) { [channel] in channel.close(promise: nil) }
        written.futureResult.whenComplete { [channel] _ in
            deadline.cancel()
            channel.close(promise: nil)
        }
    }

    /// The channel closed (by us or the client): wake whoever waits, stop the heartbeat.
    private func channelClosed() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.done = true
            if state.closed == nil { state.closed = .clientGone }
            defer { state.closeWaiters = [] }
            return state.closeWaiters
        }
        for waiter in waiters { waiter.resume() }
        loopState.value?.heartbeat?.cancel()
        loopState.value = nil
    }

    /// Returns once the channel has closed.
    private func waitUntilClosed() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if !state.done { state.closeWaiters.append(continuation) }
                return state.done
            }
            if done { continuation.resume() }
        }
    }

    var isClosed: Bool { state.withLock { $0.closed != nil } }

    /// The socket's reading side ended. If the server closed the outbox (a refused hello, a
    /// shutdown, a cut-off), waits until the goodbye is out, so Hummingbird does not finish the
    /// socket before it; otherwise the client left and nothing more is written.
    func readerEnded() async {
        if isClosed {
            await waitUntilClosed()
        } else {
            close(.clientGone)
        }
    }

    /// Every heartbeat: a client silent for too long is gone; a quiet one is pinged (browsers
    /// answer by themselves), which also keeps NAT and proxy mappings alive.
    private func heartbeatOnLoop() {
        guard let loopState = loopState.value, let watcher = loopState.watcher else { return }
        let silent = NIODeadline.now() - watcher.lastRead
        if silent > heartbeat.silenceLimit {
            channel.close(promise: nil)
        } else if silent >= heartbeat.interval {
            write(Frames.pingWire, with: loopState.encoder)
            if let encoder = loopState.encoder { encoder.flush() } else { channel.flush() }
        }
    }

    /// Runs `body` on the loop after `delay`, unless the socket has closed by then: the hello
    /// deadline, without a task waiting for it.
    func scheduleTask(in delay: TimeAmount, _ body: @escaping @Sendable () -> Void) -> Scheduled<Void> {
        loop.scheduleTask(in: delay, body)
    }

    fileprivate func writabilityChanged() {
        if channel.isWritable { schedule() }
    }
}

/// First handler of a live socket's pipeline: notes when the client last sent anything, and
/// resumes the outbox's writing when the socket can take more bytes again. Loop-confined.
final class LiveSocketWatcher: ChannelInboundHandler {
    typealias InboundIn = NIOAny
    private let outbox: Outbox
    private(set) var lastRead = NIODeadline.now()

    init(outbox: Outbox) { self.outbox = outbox }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastRead = .now()
        context.fireChannelRead(data)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        outbox.writabilityChanged()
        context.fireChannelWritabilityChanged()
    }
}
