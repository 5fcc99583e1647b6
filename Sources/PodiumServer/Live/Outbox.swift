import NIOCore
import NIOWebSocket
import Synchronization

/// The bounded outbound queue of one socket.
///
/// The hub pushes already-encoded frames (the same `ByteBuffer` storage for every socket: an event
/// is encoded once, however many viewers there are); the socket's writer task drains them.
/// Durable frames queue up to `limit`; past it the outbox closes with `.tooSlow` and the client
/// reconnects and catches up by `lastSeq`. Ephemeral frames (pointer, presence) keep only the
/// latest of each kind, so a slow viewer sees where the pointer is now, not where it was.
///
/// With a channel attached (``attach(_:)``), frames are written from the channel's event loop:
/// a push schedules one flush on the loop, which writes every pending frame and flushes once. No
/// task wakes up per delivery, and a broadcast schedules one loop task per event loop for all its
/// sockets (``flush(_:)``). A channel that is not writable (the client stopped reading and the
/// kernel's and NIO's buffers are full) is left alone: frames wait here, ephemeral ones
/// coalesced, durable ones up to `limit`. The writer task then only handles closing.
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
        case finished
        case tooSlow
        case shutdown
        case kicked(String)
    }

    /// A frame's payload and, for broadcasts, its whole WebSocket frame (header and payload),
    /// built once and written as it is to every socket.
    struct Frame: Sendable {
        var payload: ByteBuffer
        var wire: ByteBuffer?

        init(_ payload: ByteBuffer, wire: ByteBuffer? = nil) {
            self.payload = payload
            self.wire = wire
        }

        /// For a broadcast: the wire form is built here, once for every socket.
        static func shared(_ payload: ByteBuffer) -> Frame { Frame(payload, wire: Frames.wire(payload)) }
    }

    private struct State {
        var durable: [Frame] = []
        var ephemeral: [Frame?] = Array(repeating: nil, count: Ephemeral.allCases.count)
        var waiter: CheckedContinuation<Void, Never>?
        var closed: CloseReason?
        /// Set while a flush is scheduled on the channel's event loop.
        var flushScheduled = false
        /// A channel is attached: the writer task waits only for the close.
        var attached = false

        /// The writer task to wake for new frames: none while the event loop writes them.
        mutating func takeWaiter() -> CheckedContinuation<Void, Never>? {
            guard !attached else { return nil }
            defer { waiter = nil }
            return waiter
        }

        var hasFrames: Bool { !durable.isEmpty || ephemeral.contains { $0 != nil } }
    }

    static let waterMark = ChannelOptions.Types.WriteBufferWaterMark(low: 128 * 1024, high: 256 * 1024)

    /// The socket's channel, once attached: frames are then written from its event loop.
    private let channel = Mutex<(any Channel)?>(nil)
    /// The context of NIO's WebSocket frame encoder: whole frames are written from there, past
    /// the encoder (which would build a header per socket). Looked up on the loop, once.
    private let encoderContext = Mutex<EncoderContext>(.notLookedUp)

    enum EncoderContext {
        case notLookedUp
        case found(NIOLoopBound<ChannelHandlerContext>)
        case missing
    }

    private let state = Mutex(State())
    let limit: Int
    /// Called once when the outbox gives up on a client that stopped reading. The writer may be
    /// stuck in a write to a full socket and never come back to ``next()``, so the connection
    /// itself must be closed.
    private let onTooSlow: @Sendable () -> Void

    init(limit: Int, onTooSlow: @escaping @Sendable () -> Void = {}) {
        self.limit = limit
        self.onTooSlow = onTooSlow
    }

    /// From now on, frames go out from this channel's event loop rather than through ``next()``.
    func attach(_ channel: any Channel) {
        self.channel.withLock { $0 = channel }
        state.withLock { $0.attached = true }
        channel.eventLoop.execute {
            // NIO may hold up to this much unsent per socket before frames wait in the outbox
            // (and count against its limit): a reader that is a burst behind is not cut off.
            _ = channel.setOption(ChannelOptions.writeBufferWaterMark, value: Self.waterMark)
            // Told first when the socket can take more again, to resume writing at once.
            try? channel.pipeline.syncOperations.addHandler(WritabilityWatcher(outbox: self), position: .first)
            self.schedule()
        }
    }

    /// Queues a durable frame. Returns false (and closes) if the socket has fallen too far behind.
    /// With `flushing` false the caller schedules the flush itself (see ``flush(_:)``).
    @discardableResult
    func push(_ frame: ByteBuffer, flushing: Bool = true) -> Bool {
        push(Frame(frame), flushing: flushing)
    }

    @discardableResult
    func push(_ frame: Frame, flushing: Bool = true) -> Bool {
        let (accepted, waiter, gaveUp) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?, Bool) in
            guard state.closed == nil else { return (false, nil, false) }
            guard state.durable.count < limit else {
                state.closed = .tooSlow
                let waiter = state.waiter
                state.waiter = nil
                return (false, waiter, true)
            }
            state.durable.append(frame)
            return (true, state.takeWaiter(), false)
        }
        waiter?.resume()
        if gaveUp { onTooSlow() }
        if accepted, flushing { schedule() }
        return accepted
    }

    /// Replaces the pending ephemeral frame of this kind.
    func replace(_ kind: Ephemeral, with frame: ByteBuffer, flushing: Bool = true) {
        replace(kind, with: Frame(frame), flushing: flushing)
    }

    func replace(_ kind: Ephemeral, with frame: Frame, flushing: Bool = true) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.closed == nil else { return nil }
            state.ephemeral[kind.rawValue] = frame
            return state.takeWaiter()
        }
        waiter?.resume()
        if flushing { schedule() }
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
                guard let loop = outbox.claimFlush() else { continue }
                byLoop[ObjectIdentifier(loop), default: (loop, [])].outboxes.append(outbox)
            }
        }
        for (loop, batch) in byLoop.values {
            loop.execute {
                for outbox in batch { outbox.flushOnLoop() }
            }
        }
    }

    /// Schedules a flush of this outbox on its channel's loop, unless one is scheduled already.
    fileprivate func schedule() {
        guard let loop = claimFlush() else { return }
        loop.execute { self.flushOnLoop() }
    }

    /// Marks a flush as scheduled and returns the loop to run it on; nil when there is nothing
    /// to do (no channel yet, a flush already scheduled, nothing pending, or closed).
    private func claimFlush() -> (any EventLoop)? {
        guard let loop = channel.withLock({ $0?.eventLoop }) else { return nil }
        let claimed = state.withLock { state -> Bool in
            guard !state.flushScheduled, state.closed == nil, state.hasFrames else { return false }
            state.flushScheduled = true
            return true
        }
        return claimed ? loop : nil
    }

    /// Writes every pending frame and flushes once, on the channel's event loop. A channel that
    /// cannot take more is left alone: its frames wait here until ``WritabilityWatcher`` says it
    /// can take more again.
    private func flushOnLoop() {
        guard let channel = channel.withLock({ $0 }) else { return }
        guard channel.isWritable else {
            state.withLock { $0.flushScheduled = false }
            return
        }
        let frames = state.withLock { state -> [Frame] in
            state.flushScheduled = false
            guard state.closed == nil else { return [] }
            return Self.takeFrames(&state)
        }
        guard !frames.isEmpty else { return }
        if let encoder = encoder(of: channel) {
            for frame in frames {
                encoder.write(NIOAny(frame.wire ?? Frames.wire(frame.payload)), promise: nil)
            }
            // From the encoder on: the handlers behind it have nothing of ours to flush.
            encoder.flush()
        } else {
            for frame in frames {
                channel.write(WebSocketFrame(fin: true, opcode: .text, data: frame.payload), promise: nil)
            }
            channel.flush()
        }
    }

    /// The frame encoder's context, on the channel's loop; nil if the pipeline has none.
    private func encoder(of channel: any Channel) -> ChannelHandlerContext? {
        switch encoderContext.withLock({ $0 }) {
        case .found(let context): return context.value
        case .missing: return nil
        case .notLookedUp:
            guard let context = try? channel.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self) else {
                encoderContext.withLock { $0 = .missing }
                return nil
            }
            encoderContext.withLock { $0 = .found(NIOLoopBound(context, eventLoop: channel.eventLoop)) }
            return context
        }
    }

    /// Takes everything pending: durable frames in order, then the latest ephemeral ones.
    private static func takeFrames(_ state: inout State) -> [Frame] {
        var frames = state.durable
        state.durable.removeAll(keepingCapacity: true)
        for index in state.ephemeral.indices {
            if let frame = state.ephemeral[index] { frames.append(frame) }
            state.ephemeral[index] = nil
        }
        return frames
    }

    func close(_ reason: CloseReason) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.closed == nil { state.closed = reason }
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Waits for frames and takes all of them: durable first, then the latest ephemeral ones.
    /// Returns the close reason instead once the outbox is closed and drained (a closed outbox
    /// still hands out what it queued before, except when it closed for being too slow).
    func next() async -> Result<[ByteBuffer], CloseReason> {
        while true {
            enum Step {
                case frames([ByteBuffer])
                case closed(CloseReason)
                case wait
            }
            let step = state.withLock { state -> Step in
                let attached = state.attached
                if state.closed == .tooSlow { return .closed(.tooSlow) }
                // Attached: the event loop writes the frames; a closed outbox hands out what is
                // left before saying why it closed.
                if attached && state.closed == nil { return .wait }
                let frames = Self.takeFrames(&state)
                if !frames.isEmpty { return .frames(frames.map(\.payload)) }
                if let reason = state.closed { return .closed(reason) }
                return .wait
            }
            switch step {
            case .frames(let frames): return .success(frames)
            case .closed(let reason): return .failure(reason)
            case .wait:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLock { state -> Bool in
                        let hasWork = (state.hasFrames && !state.attached) || state.closed != nil
                        if hasWork { return true }
                        state.waiter = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
        }
    }

    var isClosed: Bool { state.withLock { $0.closed != nil } }
}

extension Outbox.CloseReason: Error {}

/// Resumes an outbox's writing when its channel can take more bytes again.
private final class WritabilityWatcher: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny
    let outbox: Outbox

    init(outbox: Outbox) { self.outbox = outbox }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { outbox.schedule() }
        context.fireChannelWritabilityChanged()
    }
}
