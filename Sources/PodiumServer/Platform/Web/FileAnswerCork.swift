import NIOCore
import NIOHTTP1

#if canImport(Glibc)
    import Glibc
#endif

/// Sends a file answer's head and its first bytes together, as nginx's `tcp_nopush` does: the
/// connection is corked (`TCP_CORK`) while a file answer's head passes and uncorked once its end
/// is flushed, so the kernel sends the head inside the first full segment of the file's bytes.
///
/// Without it the head (written by Hummingbird before the body runs) leaves at once as a small
/// packet of its own (connections have `TCP_NODELAY`), then `sendfile` sends the region
/// (``FileRegionBody``). Corking the region alone, after the head had gone, changed nothing; with
/// the head inside the cork, a player's segment goes out in full segments from the server's own
/// `sendfile` instead of being pushed from the client's acknowledgements.
///
/// A file answer announces itself before Hummingbird writes its head (``expectFileAnswer()``,
/// called on the loop by ``FileRegionBody/body(path:range:channel:)``, which runs while the route
/// builds the response, so before the head's write reaches the loop). Every other answer (JSON, a
/// page, a `304`, a `HEAD`) passes uncorked. The cork is never left on: it comes off when the
/// answer's end is flushed, when another head comes first (an answer that never ended), and when
/// the connection is closed (the client went, or a write failed).
///
/// It sits between Hummingbird's HTTP/1 codec and NIO's encoder, on plain TCP connections only
/// (no TLS: there the bytes are read into buffers and written with the head's).
final class FileAnswerCork: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Sets (true) or clears (false) the connection's cork; errors are ignored (a connection that
    /// is closing has nothing left to send).
    typealias SetCork = (any Channel, Bool) -> Void

    private let setCork: SetCork
    /// The next head is a file answer's.
    private var fileAnswerNext = false
    private var corked = false
    /// The corked answer's end is written; the next flush sends it and uncorks.
    private var endWritten = false

    init(setCork: @escaping SetCork = FileAnswerCork.socketCork) {
        self.setCork = setCork
    }

    /// Whether this platform can cork a TCP connection (Linux's `TCP_CORK`, from Glibc).
    static var isAvailable: Bool {
        #if canImport(Glibc)
            true
        #else
            false
        #endif
    }

    /// The next head to pass is a file answer's: on the channel's event loop.
    func expectFileAnswer() {
        fileAnswerNext = true
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head:
            // An earlier answer that never wrote its end must not hold this one back.
            if corked { uncork(context) }
            if fileAnswerNext {
                fileAnswerNext = false
                corked = true
                setCork(context.channel, true)
            }
        case .end:
            if corked { endWritten = true }
        case .body:
            break
        }
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        context.flush()
        if endWritten { uncork(context) }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if corked { uncork(context) }
        context.close(mode: mode, promise: promise)
    }

    private func uncork(_ context: ChannelHandlerContext) {
        corked = false
        endWritten = false
        setCork(context.channel, false)
    }

    /// `TCP_CORK` on the connection's socket.
    static func socketCork(_ channel: any Channel, _ on: Bool) {
        #if canImport(Glibc)
            try? channel.syncOptions?.setOption(corkOption, value: on ? 1 : 0)
        #endif
    }

    #if canImport(Glibc)
        static let corkOption = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: TCP_CORK))
    #endif
}
