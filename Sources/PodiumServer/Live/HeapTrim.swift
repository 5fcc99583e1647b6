import Dispatch
import NIOCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Gives the allocator's free pages back to the system once a burst of joins or leaves is over.
///
/// A hall that arrives at once leaves freed memory behind. Each join's short-lived allocations
/// (the upgrade request's head, the hello, the store's statements, the welcome, the tasks that
/// ran them) come from the malloc arena of whichever thread ran them, between the objects of the
/// sockets that stay. glibc's `free` gives memory back to the system only from the top of an
/// arena, so those holes stay in the process's RSS: about 2 MiB after 1,000 viewers joined, 2 KiB
/// a viewer (`malloc_stats`: 8.7 MiB more of the arenas in use by the process, 6.6 MiB of it
/// allocated). `malloc_trim(0)` hands every whole free page inside the arenas back
/// (`MADV_DONTNEED`); the allocator takes them again as it needs them.
///
/// Sockets report their hellos answered and their closes; once ``threshold`` have come since the
/// last trim and none for ``quiet``, one trim runs on a background thread. It takes each arena's
/// lock in turn, so a thread that allocates meanwhile may wait for it: once a burst, not per
/// socket. Where the C library is not glibc this does nothing.
final class HeapTrim: Sendable {
    /// The server's: glibc's `malloc_trim(0)` on a background thread (the walk over the arenas
    /// takes a while at 10,000 sockets); nothing where the C library has no such call.
    static let shared = HeapTrim(trim: mallocTrim == nil ? nil : trimInBackground)

    private static func trimInBackground() {
        guard let trim = mallocTrim else { return }
        DispatchQueue.global(qos: .utility).async { _ = trim(0) }
    }

    /// Joins and leaves since the last trim before another is worth its walk over the arenas.
    static let threshold = 64
    /// How long no socket may have joined or left before the trim: the burst is over.
    static let quiet = TimeAmount.milliseconds(500)

    private struct State {
        var changes = 0
        var last = NIODeadline.uptimeNanoseconds(0)
        /// A check is scheduled on a loop.
        var scheduled = false
    }
    private let state = Mutex(State())
    private let trim: (@Sendable () -> Void)?

    private typealias MallocTrim = @convention(c) (Int) -> Int32
    /// glibc's `malloc_trim`, looked up at run time: `<malloc.h>` is not in Swift's Glibc module.
    #if canImport(Glibc)
        private static let mallocTrim = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim")
            .map { unsafeBitCast($0, to: MallocTrim.self) }
    #else
        private static let mallocTrim: MallocTrim? = nil
    #endif

    /// - Parameter trim: what gives the free pages back; nil does nothing.
    init(trim: (@Sendable () -> Void)?) {
        self.trim = trim
    }

    /// A socket's hello was answered, or a socket closed; `loop` (the socket's) is where the
    /// check waits for the burst to end.
    func noteSocketChange(on loop: any EventLoop) {
        guard trim != nil else { return }
        let now = loop.now
        let schedule = state.withLock { state -> Bool in
            state.changes += 1
            state.last = now
            guard !state.scheduled, state.changes >= Self.threshold else { return false }
            state.scheduled = true
            return true
        }
        if schedule { loop.scheduleTask(deadline: now + Self.quiet) { self.check(on: loop) } }
    }

    /// Trims once the sockets have been quiet for ``quiet``, else looks again when they may be.
    private func check(on loop: any EventLoop) {
        let now = loop.now
        let again = state.withLock { state -> NIODeadline? in
            let due = state.last + Self.quiet
            if due > now { return due }
            state.scheduled = false
            state.changes = 0
            return nil
        }
        if let again {
            loop.scheduleTask(deadline: again) { self.check(on: loop) }
        } else {
            trim?()
        }
    }
}
