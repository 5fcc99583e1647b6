import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a child process's pipe to its end with plain blocking `read(2)` on a thread of its own.
///
/// Not with `FileHandle.readabilityHandler` or `DispatchIO`: on Linux both register the descriptor
/// with libdispatch's event loop, and tearing that registration down races the descriptor's close.
/// libdispatch's manager thread then dereferences a freed note and the whole server dies of SIGSEGV
/// in `_dispatch_event_loop_drain` (swift-corelibs-libdispatch issue 949; SourceKit-LSP and the
/// subprocess package moved to blocking reads for the same reason). It took Podium down once during
/// ingest and once at start-up, when the discovery advertiser's child exited at once. A blocking
/// read registers nothing: the end of file ends the loop and there is no cancellation to race.
///
/// The thread owns `handle` and closes it at the end of file, so the descriptor cannot be closed
/// (and its number reused) while the thread is still reading it.
public enum PipeReader {
    /// Starts the reading thread and returns at once.
    /// - Parameters:
    ///   - handle: the pipe's reading end.
    ///   - name: the thread's name, for a debugger's thread list.
    ///   - onData: each chunk as it arrives, on the reading thread.
    ///   - onEnd: once, after the last chunk, when the pipe reaches its end (or fails to read).
    public static func readToEnd(
        _ handle: FileHandle, name: String, onData: @escaping @Sendable (ArraySlice<UInt8>) -> Void,
        onEnd: @escaping @Sendable () -> Void
    ) {
        let reader = Thread {
            let descriptor = handle.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    onData(buffer[0..<count])
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    break  // end of file (or an error, which ends the stream the same way)
                }
            }
            try? handle.close()
            onEnd()
        }
        reader.name = name
        reader.start()
    }
}
