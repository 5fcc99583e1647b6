import NIOCore

/// What a connection reads its client's bytes into, and what a socket keeps of it (#42).
///
/// NIO reads a stream channel into buffers from a pool (`NIOPooledRecvBufferAllocator`) that
/// keeps the channel's first buffer for the channel's whole life: every read that finds it free
/// reuses it, a read that needs more (as the receive allocator asks) grows it in place, and
/// nothing shrinks it or gives it back. A read that finds it still held (a request head not yet
/// whole, kept by the HTTP decoder) takes a new buffer, which the pool keeps as well, up to one
/// for each read of a wake-up (`maxMessagesPerRead`). A receive allocator set later changes only
/// the sizes asked for from then on.
///
/// So a connection's first buffer is what an idle viewer's socket holds for hours, and its size
/// is chosen before anyone knows what the connection will be. Here:
/// - ``first``: every connection's first read is into 256 bytes (NIO's default is 2 KiB; Podium's
///   was 1 KiB). A longer request head takes more reads, each full one doubling the next (512,
///   then 1,024).
/// - ``http``: a connection that stays HTTP reads 1 KiB and more from then on, as it did from its
///   first read before (its first buffer grows in place the next time it is free).
/// - ``settle(_:)``: a WebSocket, once its handlers are in, lets go of the pool's buffers past the
///   first (a long head's extra reads: a browser's upgrade with its cookies is 600-1,000 bytes)
///   and reads from 256 bytes again. What a viewer sends (pongs, answers, the pointer) fits; a
///   larger frame fills the buffer, every full read doubles the next up to 64 KiB, grown in place
///   or in a buffer of the frame's own, and the frame arrives whole as before (``WebSocketFraming``
///   keeps the start of a frame in a copy, so the pool's buffer is free for the next read).
enum ReceiveBuffers {
    /// Every connection's first reads.
    static let first = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 256, maximum: 65536)
    /// A connection's reads once it stays HTTP: uploads reach 64 KiB.
    static let http = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 1024, maximum: 65536)
    /// A socket's reads once it is one.
    static let socket = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 256, maximum: 65536)
    /// Reads per wake-up of a stream channel: NIO's default, which Podium's connections keep
    /// (``settle(_:)`` puts it back after the trim; a test checks it is still NIO's).
    static let readsPerWakeup: UInt = 4

    /// On the channel's loop, once a socket's handlers are in and its upgrade read is over: the
    /// pool keeps its first buffer only (NIO drops the ones past a lowered count of reads per
    /// wake-up), the count is put back, and reads start from ``socket``'s size.
    static func settle(_ channel: any Channel) throws {
        guard let options = channel.syncOptions else { return }
        try options.setOption(ChannelOptions.maxMessagesPerRead, value: 1)
        try options.setOption(ChannelOptions.maxMessagesPerRead, value: readsPerWakeup)
        try options.setOption(ChannelOptions.recvAllocator, value: socket)
    }
}
