import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A program run as a child process with `posix_spawn`: what Podium (and its tests) used
/// Foundation's `Process` for.
///
/// Foundation's `Process.run()` on Linux (Swift 6.3.1) lists `/proc/self/fd` to find the
/// descriptors the child must not inherit, and copies each entry's name as a whole 256-byte
/// block. Once enough descriptors are open (some 1,300: a server with a hall of viewers, or the
/// test suite at full width), the copy reads past the end of glibc's buffer and the whole
/// process dies of SIGSEGV: a deck's ingest could take the server down in the middle of a
/// lecture (swift-corelibs-foundation#5472, fixed after 6.3.1). Here the child closes them
/// itself, with glibc's `posix_spawn_file_actions_addclosefrom_np`.
///
/// Like `Process`: the child gets a process group of its own (so a caller can kill the tools it
/// started), standard streams are inherited unless given, and the child is reaped as it exits,
/// on a thread of its own.
public final class ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        case inherit
        case null
        /// The child's end of the pipe: the reading end for standard input, the writing end for
        /// output. The parent's copy of that end is closed once the child runs, so the parent
        /// sees the end of file when the child exits.
        case pipe(Pipe)
        case file(FileHandle)
    }

    /// How the child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exit(Int32)
        case signal(Int32)

        /// The exit status, or the number of the signal that ended it (Foundation's
        /// `terminationStatus`).
        public var status: Int32 {
            switch self {
            case .exit(let status), .signal(let status): status
            }
        }

        public var isSignal: Bool {
            if case .signal = self { return true }
            return false
        }

        public var description: String {
            switch self {
            case .exit(let status): "exit status \(status)"
            case .signal(let signal): "signal \(signal)"
            }
        }
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public let executable: String
        public let errno: Int32
        public var description: String { "cannot run \(executable): \(String(cString: strerror(errno)))" }
    }

    public let executable: URL
    public let arguments: [String]
    /// Nil: the server's own.
    public let environment: [String: String]?
    public let directory: URL?
    private let streams: [Stream]

    private struct State {
        var pid: pid_t = 0
        var termination: Termination?
    }
    private let state = Mutex(State())
    /// Entered at launch, left once the child has been reaped.
    private let reaped = DispatchGroup()

    public init(
        _ executable: URL, arguments: [String] = [], environment: [String: String]? = nil, directory: URL? = nil,
        standardInput: Stream = .inherit, standardOutput: Stream = .inherit, standardError: Stream = .inherit
    ) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.directory = directory
        self.streams = [standardInput, standardOutput, standardError]
    }

    /// Starts the child. `onExit` runs once it has exited and been reaped, on the thread that
    /// waited for it.
    public func run(onExit: (@Sendable (Termination) -> Void)? = nil) throws(SpawnError) {
        let pid = try spawn()
        state.withLock { $0.pid = pid }
        reaped.enter()
        Thread.detachNewThread { [self] in
            var status: Int32 = 0
            var waited = waitpid(pid, &status, 0)
            while waited == -1, errno == EINTR { waited = waitpid(pid, &status, 0) }
            // The status word: the low 7 bits are the signal that ended the child, 0 for an exit.
            let signal = status & 0x7f
            let termination: Termination =
                if waited == -1 {
                    // Reaped by someone else (a `waitpid(-1)` elsewhere in the process): gone, and
                    // how is not known; no exit status passes for success.
                    .exit(-1)
                } else {
                    signal == 0 ? .exit((status >> 8) & 0xff) : .signal(signal)
                }
            state.withLock { $0.termination = termination }
            onExit?(termination)
            reaped.leave()
        }
    }

    /// The child's process id, once it runs (and its process group's).
    public var processIdentifier: pid_t { state.withLock { $0.pid } }

    /// Nil until the child has exited and been reaped.
    public var termination: Termination? { state.withLock { $0.termination } }

    public var isRunning: Bool { state.withLock { $0.pid != 0 && $0.termination == nil } }

    /// Blocks the calling thread until the child has exited: from a thread of the caller's own,
    /// never one of the concurrency pool's.
    @discardableResult
    public func waitUntilExit() -> Termination {
        reaped.wait()
        return termination!
    }

    /// Waits, without a thread, until the child has exited.
    public func exited() async -> Termination {
        await withCheckedContinuation { continuation in
            reaped.notify(queue: .global()) { [self] in continuation.resume(returning: termination!) }
        }
    }

    /// Sends `signal` to the child, if it still runs.
    public func send(_ signal: Int32) {
        let pid = state.withLock { $0.termination == nil ? $0.pid : 0 }
        if pid > 0 { kill(pid, signal) }
    }

    private func spawn() throws(SpawnError) -> pid_t {
        let path = executable.path
        func failure(_ code: Int32) -> SpawnError { SpawnError(executable: path, errno: code) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)

        var nullDevice: Int32 = -1
        defer { if nullDevice >= 0 { close(nullDevice) } }
        for (target, stream) in streams.enumerated() {
            let source: Int32
            switch stream {
            case .inherit: continue
            case .null:
                if nullDevice < 0 { nullDevice = open("/dev/null", O_RDWR | O_CLOEXEC) }
                guard nullDevice >= 0 else { throw failure(errno) }
                source = nullDevice
            case .pipe(let pipe):
                source = (target == 0 ? pipe.fileHandleForReading : pipe.fileHandleForWriting).fileDescriptor
            case .file(let handle): source = handle.fileDescriptor
            }
            let code = posix_spawn_file_actions_adddup2(&actions, source, Int32(target))
            guard code == 0 else { throw failure(code) }
        }
        // Then every other descriptor is closed in the child: the copies above are 0, 1 and 2.
        let code = Self.closeFrom3(&actions)
        guard code == 0 else { throw failure(code) }
        if let directory {
            guard let addChdir = Self.addChdir else { throw failure(ENOSYS) }
            let code = addChdir(&actions, directory.path)
            guard code == 0 else { throw failure(code) }
        }

        let argv = CStrings([path] + arguments)
        let environment = environment.map { CStrings($0.map { "\($0.key)=\($0.value)" }) }
        var pid: pid_t = 0
        let spawned = withExtendedLifetime((argv, environment)) {
            posix_spawn(&pid, path, &actions, &attributes, argv.pointers, environment?.pointers ?? environ)
        }
        guard spawned == 0 else { throw failure(spawned) }
        closeChildEnds()
        return pid
    }

    /// The parent's copies of the pipe ends the child has (once each: one pipe may take both
    /// outputs).
    private func closeChildEnds() {
        var closed = Set<ObjectIdentifier>()
        for (index, stream) in streams.enumerated() {
            guard case .pipe(let pipe) = stream else { continue }
            let end = index == 0 ? pipe.fileHandleForReading : pipe.fileHandleForWriting
            if closed.insert(ObjectIdentifier(end)).inserted { try? end.close() }
        }
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChdir =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) ->
        Int32

    /// glibc's extensions (2.34 and 2.29), which Swift's Glibc module does not declare.
    private static let addCloseFrom = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }
    private static let addChdir = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np")
        .map { unsafeBitCast($0, to: AddChdir.self) }

    private static func closeFrom3(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>) -> Int32 {
        if let addCloseFrom { return addCloseFrom(actions, 3) }
        // An older glibc: close what is open now, listed safely (FileManager reads each name by
        // its length). A descriptor closed meanwhile is no error for posix_spawn.
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.compactMap { Int32($0) } ?? []
        for fd in open where fd > 2 {
            let code = posix_spawn_file_actions_addclose(actions, fd)
            if code != 0 { return code }
        }
        return 0
    }
}

/// A NULL-terminated array of C strings, freed with it.
private final class CStrings {
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let count: Int

    init(_ strings: [String]) {
        count = strings.count
        pointers = .allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() { pointers[index] = strdup(string) }
        pointers[strings.count] = nil
    }

    deinit {
        for index in 0..<count { free(pointers[index]) }
        pointers.deallocate()
    }
}
