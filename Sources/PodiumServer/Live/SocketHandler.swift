import Logging
import NIOCore
import NIOWebSocket
import Synchronization

/// What a socket does with its client: called one message at a time, in the order they came,
/// from a short task (see ``SocketInbox``). An endpoint whose messages may wait for the store
/// (durable commands) hands those to a queue of its own and returns, so that what must not wait
/// (the pointer, ink in progress) keeps flowing behind them.
/// A class: the handler and the inbox each keep one, a reference rather than a 40-byte existential.
protocol SocketEndpoint: AnyObject, Sendable {
    var outbox: Outbox { get }
    /// Once, first: the socket is open.
    func opened() async
    /// A whole text message, valid UTF-8. Not called once the outbox is closed.
    func received(_ text: String) async
    /// A whole text message, and whether it was within the socket's message budget when it
    /// arrived (see ``chargeArrival()``). The default ignores the budget.
    func received(_ text: String, withinBudget: Bool) async
    /// On the loop, as each message after the first arrives, before it waits for its turn:
    /// charges the socket's message budget, true when the message is within it. Charged on
    /// arrival, not when handled, so that messages which waited (behind a hello, or a slow
    /// store) are not refused for arriving together. The default charges nothing.
    func chargeArrival() -> Bool
    /// A whole binary message (Podium speaks JSON in text frames).
    func receivedBinary() async
    /// Once, last: the connection is gone.
    func ended() async
    /// When set, the socket's first message waits its turn here (a hello: see ``Admission``).
    var admission: Admission? { get }
    /// On the loop, as the socket's first whole message arrives, before it waits for its turn.
    func firstMessageArrived()
}

extension SocketEndpoint {
    var admission: Admission? { nil }
    func firstMessageArrived() {}
    func received(_ text: String, withinBudget: Bool) async { await received(text) }
    func chargeArrival() -> Bool { true }
}

/// A socket's client messages waiting for their turn, and the task that handles them.
///
/// No task stays with an idle socket: the first message after a quiet spell starts one, which
/// handles messages in order until none is left, then ends. A task keeps the memory of its
/// deepest call for as long as it lives; a short one gives it back.
final class SocketInbox: Sendable {
    enum Item: Sendable {
        case opened
        /// With whether it was within the socket's message budget as it arrived.
        case text(String, withinBudget: Bool)
        case binary
        case ended
    }
    private struct State {
        var items: [Item] = []
        var running = false
        /// The handler stopped reading from the socket until the task catches up.
        var paused = false
        /// The first text or binary message has had its turn (see ``SocketEndpoint/admission``).
        var admitted = false
    }
    /// Past this many waiting messages the socket is not read: the client's sends back up into
    /// its own buffers instead of this server's memory.
    static let backlog = 32

    private let endpoint: any SocketEndpoint
    private let state = Mutex(State())
    /// The socket's handler, on its loop: reading resumes there, and the loop keeps an admission
    /// ticket's patience. (Held as it is rather than in a closure that resumes it: a closure's
    /// context would be one more object per idle socket.)
    private let handler: NIOLoopBound<SocketHandler>
    private var loop: any EventLoop { handler.eventLoop }

    fileprivate init(endpoint: any SocketEndpoint, handler: NIOLoopBound<SocketHandler>) {
        self.endpoint = endpoint
        self.handler = handler
    }

    private func resume() {
        handler.eventLoop.execute { [handler] in handler.value.resumeReading() }
    }

    /// Queues an item; true while the socket may be read further.
    @discardableResult
    func add(_ item: Item) -> Bool {
        let (start, waitTurn, readMore) = state.withLock { state -> (Bool, Bool, Bool) in
            state.items.append(item)
            let start = !state.running
            state.running = true
            if state.items.count >= Self.backlog { state.paused = true }
            // Until the first message has been handled every start waits its turn, the one for
            // `.opened` too: a client sends its hello right behind the upgrade, so it usually
            // joins that first task, before the task has even begun.
            return (start, start && !state.admitted, !state.paused)
        }
        if waitTurn, let admission = endpoint.admission {
            admission.enter(on: loop) { ticket in Task { await self.drain(holding: ticket) } }
        } else if start {
            Task { await drain(holding: nil) }
        }
        return readMore
    }

    /// Handles items until none is left. A ticket is given back once the first message has
    /// been handled (or the socket ends without one).
    private func drain(holding ticket: Admission.Ticket?) async {
        defer { ticket?.release() }
        while true {
            let (next, resumeReading) = state.withLock { state -> (Item?, Bool) in
                guard !state.items.isEmpty else {
                    state.running = false
                    state.items = []  // an idle socket keeps no buffer
                    return (nil, false)
                }
                let item = state.items.removeFirst()
                let resume = state.paused && state.items.count < Self.backlog / 2
                if resume { state.paused = false }
                return (item, resume)
            }
            if resumeReading { resume() }
            guard let next else { return }
            switch next {
            case .opened: await endpoint.opened()
            case .text(let text, let withinBudget):
                state.withLock { $0.admitted = true }
                if !endpoint.outbox.isClosed { await endpoint.received(text, withinBudget: withinBudget) }
                ticket?.release()
            case .binary:
                state.withLock { $0.admitted = true }
                if !endpoint.outbox.isClosed { await endpoint.receivedBinary() }
                ticket?.release()
            case .ended: await endpoint.ended()
            }
        }
    }
}

/// The last handler of a socket's pipeline: turns frames into messages for its ``SocketInbox``,
/// answers pings, and fails the connection on what RFC 6455 forbids. It tells the socket's
/// ``Outbox`` that the client is alive (any frame) and when the socket can take more bytes
/// again. Loop-confined.
///
/// The frame decoder before it (``WebSocketFraming`` on the live upgrade's path, NIO's
/// `WebSocketFrameDecoder` on NIO's) has checked each frame's length (``maxFrameSize``) and control
/// frames' rules, and passes what it refuses on as an error, which this answers with a close code
/// and a reason (the upgrade leaves out NIO's own error handler, which closes without a reason). This
/// checks masking, reserved bits and opcodes, puts fragments together up to `maxMessageBytes`,
/// and checks that text is UTF-8.
final class SocketHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let outbox: Outbox
    private let maxMessageBytes: Int
    private var inbox: SocketInbox?
    private var context: ChannelHandlerContext?
    /// A message in several frames, put together.
    private var fragments: (opcode: WebSocketOpcode, data: ByteBuffer)?
    /// A read NIO asked for while the inbox was full, done when it drains.
    private var readWaiting = false
    private var paused = false
    /// After a close frame or a protocol error nothing more is read.
    private var done = false
    private var messageSeen = false
    private let endpoint: any SocketEndpoint

    /// Installs the handler and starts the socket: `opened` is the endpoint's first call.
    static func install(
        on channel: any Channel, endpoint: any SocketEndpoint, maxMessageBytes: Int
    ) throws {
        let handler = SocketHandler(endpoint: endpoint, maxMessageBytes: maxMessageBytes)
        let inbox = SocketInbox(endpoint: endpoint, handler: NIOLoopBound(handler, eventLoop: channel.eventLoop))
        handler.inbox = inbox
        inbox.add(.opened)
        try channel.pipeline.syncOperations.addHandler(handler)
    }

    private init(endpoint: any SocketEndpoint, maxMessageBytes: Int) {
        self.endpoint = endpoint
        self.outbox = endpoint.outbox
        self.maxMessageBytes = maxMessageBytes
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // Closed before the handler was in place: channelInactive will not come.
        if !context.channel.isActive { ended() }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        outbox.readObserved()
        guard !done else { return }
        let frame = unwrapInboundIn(data)
        // A client must mask every frame, and may set reserved bits only for an extension it
        // negotiated (none here).
        guard frame.maskKey != nil else { return fail(.protocolError, "Client frames must be masked.") }
        guard frame.rsv1 == false, frame.rsv2 == false, frame.rsv3 == false else {
            return fail(.protocolError, "Reserved bits are set.")
        }
        switch frame.opcode {
        case .ping:
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .pong:
            break  // noted above: the client is alive
        case .connectionClose:
            done = true
            outbox.close(.finished)
        case .text, .binary:
            guard fragments == nil else { return fail(.protocolError, "A new message began inside a fragmented one.") }
            if frame.fin {
                deliver(frame.opcode, frame.unmaskedData)
            } else {
                fragments = (frame.opcode, frame.unmaskedData)
            }
        case .continuation:
            guard var pieces = fragments else { return fail(.protocolError, "A continuation frame continues nothing.") }
            fragments = nil  // no copy-on-write while it grows
            var data = frame.unmaskedData
            guard pieces.data.readableBytes + data.readableBytes <= maxMessageBytes else {
                return fail(.messageTooLarge, "Messages are limited to \(maxMessageBytes) bytes.")
            }
            pieces.data.writeBuffer(&data)
            if frame.fin { deliver(pieces.opcode, pieces.data) } else { fragments = pieces }
        default:
            fail(.protocolError, "Unknown opcode.")
        }
    }

    private func deliver(_ opcode: WebSocketOpcode, _ data: ByteBuffer) {
        guard data.readableBytes <= maxMessageBytes else {
            return fail(.messageTooLarge, "Messages are limited to \(maxMessageBytes) bytes.")
        }
        let item: SocketInbox.Item
        let first = !messageSeen
        if opcode == .text {
            guard let text = String(validating: data.readableBytesView, as: UTF8.self) else {
                return fail(.dataInconsistentWithMessage, "Text frames must be UTF-8.")
            }
            // The first message (the hello) is free; every later one is charged as it arrives.
            item = .text(text, withinBudget: first || endpoint.chargeArrival())
        } else {
            item = .binary
        }
        if first {
            messageSeen = true
            endpoint.firstMessageArrived()
        }
        if inbox?.add(item) == false { paused = true }
    }

    /// Fails the connection: a close frame with the code and why, then the socket closes.
    private func fail(_ code: WebSocketErrorCode, _ reason: String) {
        done = true
        fragments = nil
        outbox.close(.failed(code, reason))
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        outbox.writabilityChanged()
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
        if paused {
            readWaiting = true
        } else {
            context.read()
        }
    }

    fileprivate func resumeReading() {
        paused = false
        guard readWaiting, let context else { return }
        readWaiting = false
        context.read()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            // The server is stopping (the live clients were normally told already).
            outbox.close(.shutdown)
        } else if case ChannelEvent.inputClosed = event {
            // The client will send nothing more: nothing more to do for it.
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        ended()
        context.fireChannelInactive()
    }

    private func ended() {
        done = true
        fragments = nil
        inbox?.add(.ended)
        inbox = nil
        context = nil
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case NIOWebSocketError.invalidFrameLength:
            fail(.messageTooLarge, "Frames are limited to \(maxMessageBytes) bytes.")
        case NIOWebSocketError.fragmentedControlFrame:
            fail(.protocolError, "Control frames must not be fragmented.")
        case NIOWebSocketError.multiByteControlFrameLength:
            fail(.protocolError, "Control frames carry at most 125 bytes.")
        case ByteToMessageDecoderError.dataReceivedInErrorState where done:
            // The rest of a refused frame: the close frame is on its way, then the socket closes.
            break
        default:
            // Anything else ends the socket.
            context.close(promise: nil)
        }
    }
}
