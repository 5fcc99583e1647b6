import Logging
import NIOCore
import NIOWebSocket
import PodiumCore
import Synchronization

/// The bounded outbound queue of one socket, written from the socket's event loop.
///
/// The hub queues already-encoded frames: an event's whole WebSocket frame (header and payload)
/// is built once and the same bytes go to every socket. Every frame for a socket goes through its
/// loop's ``LoopBatch``, in order, and is written at once while the socket can take it. Only a
/// socket that cannot (its client stopped reading; the kernel's and NIO's buffers are full)
/// keeps frames here: durable ones up to `limit`, past which the socket is cut off and the client
/// reconnects and catches up by `lastSeq`; ephemeral ones (pointer, presence, tallies…) only the
/// latest of each kind, so a slow viewer sees where the pointer is now, not where it was.
///
/// No task runs per socket or per delivery, and no lock is taken per delivery: the state below
/// belongs to the channel's loop. Closing, the hello deadline and the keep-alive ping happen on
/// the loop too (``close(_:)``); the socket's ``SocketHandler`` reports reads and writability.
final class Outbox: Sendable {
    /// A newest-wins slot, named by the feature that owns it.
    typealias Ephemeral = EphemeralKey

    enum CloseReason: Sendable, Equatable {
        /// The server is done with this socket (a hello refused, a session left): pending frames,
        /// then a normal close.
        case finished
        /// The client fell `limit` durable frames behind: the connection is cut at once (it
        /// cannot take a goodbye), and the client resumes by `lastSeq`.
        case tooSlow
        /// The server is stopping: a `reconnect` message, then "going away".
        case shutdown
        /// The client broke the protocol: a close frame with the code and why.
        case failed(WebSocketErrorCode, String)
        /// The client closed or vanished: nothing more is written.
        case clientGone
    }

    /// A text frame as it goes on the wire: header and payload, built once.
    struct Frame: Sendable {
        let wire: ByteBuffer

        /// Built once per event: a broadcast queues the same frame on every socket.
        init(_ payload: ByteBuffer) { wire = Frames.wire(payload) }
    }

    /// A pass's frames for a group, end to end in one buffer, built once per turn (see
    /// ``deliverOnLoop(_:joined:)``); nil when the deliveries hold anything but frames. A class:
    /// every socket of the run is handed the same one, for one retain instead of a copy of each
    /// field.
    final class JoinedFrames {
        let wire: ByteBuffer
        /// The group frames it holds, which a socket must not have had.
        let versions: [(kind: Ephemeral, version: Int)]

        init?(_ deliveries: [(index: Int, delivery: Delivery)]) {
            var frames: [ByteBuffer] = []
            var versions: [(kind: Ephemeral, version: Int)] = []
            for (_, delivery) in deliveries {
                switch delivery {
                case .push(let frame): frames.append(frame.wire)
                case .versioned(let kind, let newest):
                    frames.append(newest.frame.wire)
                    versions.append((kind, newest.version))
                case .latest: continue  // nothing yet to send
                case .replace, .close: return nil
                }
            }
            guard let first = frames.first else { return nil }
            if frames.count == 1 {
                wire = first
            } else {
                var joined = ByteBuffer()
                joined.reserveCapacity(frames.reduce(0) { $0 + $1.readableBytes })
                for var frame in frames { joined.writeBuffer(&frame) }
                wire = joined
            }
            self.versions = versions
        }
    }

    enum Delivery: Sendable {
        case push(Frame)
        case replace(Ephemeral, Frame)
        /// Goes through the queue like a frame, so whatever was queued before it leaves first.
        case close(CloseReason)
        /// A group's newest frame of this kind, looked up when the socket's turn comes (see
        /// ``OutboxGroups/Token``): queued as `latest`, written as `versioned`.
        case latest(Ephemeral)
        case versioned(Ephemeral, Versioned)
    }

    /// An ephemeral frame with its place in the order of all such frames, so a socket never
    /// gets the same one twice, nor an older one after a newer.
    struct Versioned: Sendable {
        let version: Int
        let frame: Frame

        private static let counter = Atomic<Int>(0)
        init(_ frame: Frame) {
            version = Self.counter.wrappingAdd(1, ordering: .relaxed).newValue
            self.frame = frame
        }
    }

    /// Where the outbox writes its whole frames, past the encoder (which would build a header per
    /// socket).
    private enum WritePath {
        /// The channel's core (`write0`, `flush0`), when nothing outbound sits below the socket's
        /// ``WebSocketFraming`` (``WebSocketFraming/aboveChannel``): a write from the framing
        /// handler's context would reach NIO's head handler, which calls the same two with the
        /// same arguments and does nothing else. The walk there (the context, the head handler,
        /// the channel fetched from it) was about a tenth of a delivery's instructions.
        case core(any ChannelCore)
        /// The socket's frame encoder's context (``WebSocketFraming`` under TLS, NIO's
        /// `WebSocketFrameEncoder` on NIO's upgrade path).
        case encoder(ChannelHandlerContext)
        /// No encoder where we looked (a pipeline we do not know): frames go through the front
        /// door as `WebSocketFrame`s.
        case pipeline
    }

    /// What only the channel's loop touches: no lock.
    private final class LoopState {
        /// Where whole frames are written; the front door until the socket attaches, and again
        /// once the channel has closed.
        var path = WritePath.pipeline
        var attached = false
        /// Durable frames waiting for the socket to take more.
        var durable: [Frame] = []
        /// By kind; empty until the socket first has to keep one (most never do).
        var ephemeral: [Frame?] = []
        var hasEphemeral = false
        var closed: CloseReason?
        /// The version of the newest group frame of each kind sent (or waiting in `ephemeral`);
        /// empty until the first.
        var sentVersion: [Int] = []
        /// Frames for this socket alone that must wait for broadcasts queued before them, by
        /// their place in the loop's pass (see ``LoopBatch``).
        var stash: [(index: Int, delivery: Delivery)] = []
        /// When the client last sent anything, by the loop's clock (set as the socket attaches).
        var lastRead = NIODeadline.uptimeNanoseconds(0)
        /// Its place among the loop's heartbeats, from attaching until the channel closes.
        var heartbeatSlot: Int?

        var isQueueing: Bool { !durable.isEmpty || hasEphemeral }

        /// The version of the newest group frame of this kind sent, 0 for none.
        func sent(_ kind: Ephemeral) -> Int { kind.index < sentVersion.count ? sentVersion[kind.index] : 0 }

        func markSent(_ kind: Ephemeral, _ version: Int) {
            sentVersion.growing(toInclude: kind.index, with: 0)
            sentVersion[kind.index] = version
        }

        func keep(_ kind: Ephemeral, _ frame: Frame) {
            ephemeral.growing(toInclude: kind.index, with: nil)
            ephemeral[kind.index] = frame
            hasEphemeral = true
        }
    }

    /// How often an idle socket is checked and pinged if the client has been quiet, and after how
    /// long without a word (not even a pong) the client is taken for gone.
    struct Heartbeat: Sendable, Hashable {
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
    /// The loop's queue, which every frame for this socket goes through.
    let batch: LoopBatch
    /// Set as soon as the server closes the outbox or the channel closes: read by the socket's
    /// reading task, which stops reading.
    private let closing = Atomic<Bool>(false)
    private let onLoop: NIOLoopBoundBox<LoopState>

    private let log: SocketLog?
    /// The loop's keep-alive, which visits this socket every interval.
    private let heartbeats: LoopHeartbeats

    /// - Parameter log: where a cut-off is reported.
    init(limit: Int, channel: any Channel, log: SocketLog? = nil, heartbeat: Heartbeat = Heartbeat()) {
        self.limit = limit
        self.heartbeats = LoopHeartbeats.of(channel.eventLoop, heartbeat)
        self.channel = channel
        self.log = log
        self.loop = channel.eventLoop
        self.batch = LoopBatch.of(channel.eventLoop)
        self.onLoop = .makeBoxSendingValue(LoopState(), eventLoop: channel.eventLoop)
        channel.closeFuture.whenComplete { [self] _ in channelClosed() }
        loop.execute { [self] in attach(onLoop.value) }
    }

    private func attach(_ state: LoopState) {
        guard !state.attached else { return }
        state.attached = true
        // A client that left at once: its close ran first, and a socket added to the loop's
        // heartbeats now would never leave them.
        guard state.closed != .clientGone else { return }
        _ = channel.setOption(ChannelOptions.writeBufferWaterMark, value: Self.waterMark)
        // The upgrade's reads are over: the socket keeps one small receive buffer for its life.
        try? ReceiveBuffers.settle(channel)
        let pipeline = channel.pipeline.syncOperations
        if let framing = try? pipeline.context(handlerType: WebSocketFraming.self) {
            let aboveChannel = (framing.handler as? WebSocketFraming)?.aboveChannel ?? false
            state.path = aboveChannel ? .core(channel._channelCore) : .encoder(framing)
        } else if let encoder = try? pipeline.context(handlerType: WebSocketFrameEncoder.self) {
            state.path = .encoder(encoder)
        }
        state.lastRead = loop.now
        state.heartbeatSlot = heartbeats.add(self)
    }

    /// Queues a durable frame. A socket that falls `limit` frames behind is cut off.
    func push(_ frame: ByteBuffer) {
        push(Frame(frame))
    }

    func push(_ frame: Frame) {
        batch.enqueue(.push(frame), to: [self])
    }

    /// Replaces the pending ephemeral frame of this kind.
    func replace(_ kind: Ephemeral, with frame: ByteBuffer) {
        batch.enqueue(.replace(kind, Frame(frame)), to: [self])
    }

    /// Queues one delivery for many sockets: one queue entry per event loop, not one per socket.
    static func broadcast(_ delivery: Delivery, to groups: OutboxGroups...) {
        for group in groups { group.send(delivery) }
    }

    // MARK: Called by the loop's LoopBatch, on the loop only (the state they touch is the loop's,
    // which `onLoop.value` checks).

    /// Writes a socket's share of a pass: the pass's deliveries with whatever was stashed for
    /// this socket in between. Returns true when it wrote to the channel and left the flush to
    /// the caller.
    ///
    /// `joined`, when given, is the same deliveries as one buffer: a socket that can take them
    /// all as they are (nothing stashed or waiting, writable, none of the group's frames sent to
    /// it already) gets that buffer in one write, so a pass costs one write per socket however
    /// many events it carries. That write is flushed with it, on the path nearly every delivery
    /// takes: straight to the channel's core, or one walk to NIO's head handler instead of a
    /// second for the flush (``WritePath``).
    func deliverOnLoop(_ deliveries: [(index: Int, delivery: Delivery)], joined: JoinedFrames? = nil) -> Bool {
        let state = onLoop.value
        if let joined, takesWhole(joined, state) {
            for (kind, version) in joined.versions { state.markSent(kind, version) }
            switch state.path {
            case .core(let core):
                core.write0(NIOAny(joined.wire), promise: nil)
                core.flush0()
            case .encoder(let encoder): encoder.writeAndFlush(NIOAny(joined.wire), promise: nil)
            case .pipeline: preconditionFailure("joined frames are not written through the front door")
            }
            return false
        }
        var written = false
        for (index, delivery) in deliveries {
            if !state.stash.isEmpty, state.stash[0].index < index {
                written = deliverStash(state, before: index) || written
            }
            written = deliver(delivery, state) || written
        }
        return written
    }

    private func takesWhole(_ joined: JoinedFrames, _ state: LoopState) -> Bool {
        // Joined frames are written past the encoder: the front door takes one frame a write.
        if case .pipeline = state.path { return false }
        guard state.attached, state.closed == nil, state.stash.isEmpty, !state.isQueueing,
            channel.isWritable
        else { return false }
        return joined.versions.allSatisfy { $0.version > state.sent($0.kind) }
    }

    /// Writes one delivery for this socket alone.
    func deliverOnLoop(_ delivery: Delivery) -> Bool {
        deliver(delivery, onLoop.value)
    }

    /// Keeps a delivery until the pass reaches it; true the first time this pass stashes here.
    func stashOnLoop(_ index: Int, _ delivery: Delivery) -> Bool {
        let state = onLoop.value
        state.stash.append((index, delivery))
        return state.stash.count == 1
    }

    /// Writes what is left in the stash after the pass.
    func deliverStashOnLoop() -> Bool {
        deliverStash(onLoop.value, before: .max)
    }

    private func deliverStash(_ state: LoopState, before index: Int) -> Bool {
        var written = false
        var taken = 0
        for entry in state.stash {
            guard entry.index < index else { break }
            written = deliver(entry.delivery, state) || written
            taken += 1
        }
        state.stash.removeFirst(taken)
        return written
    }

    /// Writes one delivery, or keeps it while the socket cannot take it.
    private func deliver(_ delivery: Delivery, _ state: LoopState) -> Bool {
        if !state.attached { attach(state) }
        guard state.closed == nil else { return false }
        let direct = !state.isQueueing && channel.isWritable
        switch delivery {
        case .push(let frame):
            guard direct else {
                guard state.durable.count < limit else {
                    cutOff(state)
                    return false
                }
                state.durable.append(frame)
                return false
            }
            write(frame.wire, on: state.path)
        case .replace(let kind, let frame):
            guard direct else {
                state.keep(kind, frame)
                return false
            }
            write(frame.wire, on: state.path)
        case .versioned(let kind, let newest):
            guard newest.version > state.sent(kind) else { return false }
            state.markSent(kind, newest.version)
            guard direct else {
                state.keep(kind, newest.frame)
                return false
            }
            write(newest.frame.wire, on: state.path)
        case .latest:
            return false  // looked up by the pass before it gets here
        case .close(let reason):
            state.closed = reason
            finishOnLoop(state)
            return false
        }
        return true
    }

    func flushOnLoop() {
        flushChannel(onLoop.value)
    }

    private func flushChannel(_ state: LoopState) {
        switch state.path {
        case .core(let core): core.flush0()
        case .encoder(let encoder): encoder.flush()
        case .pipeline: channel.flush()
        }
    }

    /// The client sent something: it is alive. On the loop.
    func readObserved() {
        onLoop.value.lastRead = loop.now
    }

    /// The socket can take more again: writes what waited, in order, and flushes once. On the loop.
    func writabilityChanged() {
        let state = onLoop.value
        guard channel.isWritable, state.closed == nil, state.isQueueing else { return }
        let durable = state.durable
        state.durable.removeAll(keepingCapacity: true)
        for frame in durable { write(frame.wire, on: state.path) }
        if state.hasEphemeral {
            for index in state.ephemeral.indices {
                guard let frame = state.ephemeral[index] else { continue }
                write(frame.wire, on: state.path)
                state.ephemeral[index] = nil
            }
            state.hasEphemeral = false
        }
        flushChannel(state)
    }

    private func cutOff(_ state: LoopState) {
        closing.store(true, ordering: .releasing)
        state.closed = .tooSlow
        log?.logger.notice(
            "live socket \(channel.remoteAddress?.description ?? "?") fell \(limit) frames behind: cut off, it resumes by lastSeq"
        )
        finishOnLoop(state)
    }

    private func write(_ wire: ByteBuffer, on path: WritePath, promise: EventLoopPromise<Void>? = nil) {
        switch path {
        case .core(let core): core.write0(NIOAny(wire), promise: promise)
        case .encoder(let encoder): encoder.write(NIOAny(wire), promise: promise)
        case .pipeline: channel.write(Frames.webSocketFrame(fromWire: wire), promise: promise)
        }
    }

    /// Closes the outbox: see ``CloseReason`` for what the client is told. Frames queued before
    /// leave first.
    func close(_ reason: CloseReason) {
        guard !closing.exchange(true, ordering: .acquiringAndReleasing) else { return }
        batch.enqueue(.close(reason), to: [self])
    }

    /// Says goodbye as the close reason asks, then closes the channel.
    private func finishOnLoop(_ state: LoopState) {
        var frames = state.durable
        for case let frame? in state.ephemeral { frames.append(frame) }
        state.durable = []
        state.ephemeral = []
        state.hasEphemeral = false
        guard let reason = state.closed, channel.isActive else { return }
        let close: (code: WebSocketErrorCode, reason: String?, tell: String?)
        switch reason {
        case .clientGone, .tooSlow:
            channel.close(promise: nil)
            return
        case .finished: close = (.normalClosure, nil, nil)
        case .shutdown: close = (.goingAway, "server shutting down", "shutdown")
        case .failed(let code, let why): close = (code, why, nil)
        }
        let path = state.path
        for frame in frames { write(frame.wire, on: path) }
        if let tell = close.tell { write(Frames.wire(Frames.encode(ReconnectMessage(reason: tell))), on: path) }
        let written = loop.makePromise(of: Void.self)
        write(Frames.closeWire(code: close.code, reason: close.reason), on: path, promise: written)
        flushChannel(state)
        // Close once the goodbye is out, or after a grace period if the client stopped reading.
        let deadline = loop.scheduleTask(in: Self.closeGrace) { [channel] in channel.close(promise: nil) }
        written.futureResult.whenComplete { [channel] _ in
            deadline.cancel()
            channel.close(promise: nil)
        }
    }

    /// The channel closed (by us or the client): stop the heartbeat, drop what waited.
    private func channelClosed() {
        closing.store(true, ordering: .releasing)
        let state = onLoop.value
        if state.closed == nil { state.closed = .clientGone }
        state.durable = []
        state.ephemeral = []
        state.hasEphemeral = false
        state.stash = []
        if let slot = state.heartbeatSlot {
            heartbeats.remove(slot)
            state.heartbeatSlot = nil
        }
        state.path = .pipeline  // and the core (the channel) is let go
        HeapTrim.shared.noteSocketChange(on: loop)
    }

    var isClosed: Bool { closing.load(ordering: .acquiring) }

    /// Whether frames go straight to the channel's core (``WritePath/core``). On the loop; for tests.
    var writesToChannelCore: Bool {
        if case .core = onLoop.value.path { return true }
        return false
    }

    /// This socket's place among its loop's heartbeats: moved by ``LoopHeartbeats`` when another
    /// socket leaves. On the loop only.
    var heartbeatSlot: Int? {
        get { onLoop.value.heartbeatSlot }
        set { onLoop.value.heartbeatSlot = newValue }
    }

    /// Every heartbeat (``LoopHeartbeats``): a client silent for too long is gone; a quiet one is
    /// pinged (browsers answer by themselves), which also keeps NAT and proxy mappings alive.
    func heartbeatOnLoop() {
        let state = onLoop.value
        guard state.closed == nil else { return }
        let silent = loop.now - state.lastRead
        if silent > heartbeats.heartbeat.silenceLimit {
            channel.close(promise: nil)
        } else if silent >= heartbeats.heartbeat.interval {
            write(Frames.pingWire, on: state.path)
            flushChannel(state)
        }
    }

    /// Runs `body` on the loop after `delay`, unless the socket has closed by then: the hello
    /// deadline, without a task waiting for it.
    func scheduleTask(in delay: TimeAmount, _ body: @escaping @Sendable () -> Void) -> Scheduled<Void> {
        loop.scheduleTask(in: delay, body)
    }
}
