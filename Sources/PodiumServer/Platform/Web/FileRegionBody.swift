import Hummingbird
import NIOCore
import NIOHTTP1
import NIOPosix

/// A file's bytes (all of it or one range) as a response body that no byte of goes through the
/// process: NIO's `FileRegion`, which a socket channel writes with `sendfile(2)`, so the kernel
/// copies the bytes from the page cache to the socket, as nginx's `sendfile on` does. Blobs, HLS
/// segments and stream files are answered this way (``RangeResponse``).
///
/// Hummingbird's body writer takes `ByteBuffer`s only (its channel's outbound parts are
/// `HTTPResponsePart`s, whose body is a `ByteBuffer`). The body therefore writes the region itself,
/// on the connection's event loop, from the context of the HTTP/1 codec (`HTTP1ToHTTPServerCodec`),
/// whose outbound side is NIO's `HTTPServerResponsePart`, whose body is an `IOData`: the region
/// goes to NIO's HTTP/1 encoder, which passes it on to the socket untouched (the head carries
/// `Content-Length`, so nothing is chunked). Order on the wire: Hummingbird sends the head through
/// the channel's async writer before it runs the body, and that write is handed to the event loop
/// before it returns; the region is written in a task submitted to the same loop after it; the end
/// goes through the async writer once the region is written. So head, bytes, end.
///
/// A `FileRegion` cannot go through TLS (NIOSSL encrypts `ByteBuffer`s only). The codec is found by
/// the name ``PodiumServerChannel`` gives it on its plain TCP connections
/// (``plainHTTP1Codec``); a connection without it (TLS, a test's channel) gets the bytes read in
/// chunks on NIO's file threads and written through Hummingbird's writer, as before.
enum FileRegionBody {
    /// The name of the HTTP/1 codec of a plain TCP connection: below it, a `FileRegion` may go.
    static let plainHTTP1Codec = "podium.http1.plain"
    /// The chunk of the buffered path (Hummingbird's `FileIO` reads 128 KiB at a time too).
    static let chunkLength = 128 * 1024

    /// The bytes `range` of the file at `path`, written to `channel`.
    static func body(path: String, range: Range<Int>, channel: any Channel) -> ResponseBody {
        // Before Hummingbird writes the head (it does once the route returns): the head is then
        // corked with the region's first bytes (``FileAnswerCork``, plain connections only).
        channel.eventLoop.execute {
            (try? channel.pipeline.syncOperations.handler(type: FileAnswerCork.self))?.expectFileAnswer()
        }
        return ResponseBody(contentLength: range.count) { writer in
            if try await !send(path: path, range: range, on: channel) {
                try await read(path: path, range: range, into: &writer)
            }
            try await writer.finish(nil)
        }
    }

    /// Writes the region below the plain HTTP/1 codec and waits until the socket took it all;
    /// false (nothing written) when the connection has no such codec.
    static func send(path: String, range: Range<Int>, on channel: any Channel) async throws -> Bool {
        try await channel.eventLoop.flatSubmit {
            guard let codec = try? channel.pipeline.syncOperations.context(name: plainHTTP1Codec) else {
                return channel.eventLoop.makeSucceededFuture(false)
            }
            // Opened on the event loop, as nginx does: an open of a file the page cache knows
            // costs less than a hop to a file thread and back.
            let handle: NIOFileHandle
            do {
                handle = try NIOFileHandle(_deprecatedPath: path)
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
            let region = FileRegion(fileHandle: handle, readerIndex: range.lowerBound, endIndex: range.upperBound)
            let written = channel.eventLoop.makePromise(of: Void.self)
            codec.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.fileRegion(region))), promise: written)
            // Written, or failed (the connection went): the socket no longer holds the region.
            return written.futureResult.always { _ in try? handle.close() }.map { true }
        }.get()
    }

    /// The buffered path: the range read in chunks on NIO's file threads.
    static func read(path: String, range: Range<Int>, into writer: inout any ResponseBodyWriter) async throws {
        struct Truncated: Error {}
        let fileIO = NonBlockingFileIO(threadPool: .singleton)
        try await fileIO.withFileHandle(_deprecatedPath: path, mode: .read) { handle in
            var offset = range.lowerBound
            while offset < range.upperBound {
                let chunk = try await fileIO.read(
                    fileHandle: handle, fromOffset: Int64(offset), byteCount: min(chunkLength, range.upperBound - offset),
                    allocator: ByteBufferAllocator())
                // Blobs never change; a file that ends early cannot give the length promised.
                guard chunk.readableBytes > 0 else { throw Truncated() }
                offset += chunk.readableBytes
                try await writer.write(chunk)
            }
        }
    }
}
