import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `<data-dir>/podium.lock`, held with `flock` by the process using the data directory: the
/// server for as long as it runs, `podium restore` while it writes. The kernel lets go when the
/// process ends, however it ends, so a crash leaves no stale lock; the file also names the
/// holder's PID for the message.
public final class DataDirectoryLock: Sendable {
    public static let fileName = "podium.lock"

    private let descriptor: NIOLockedValueBox<Int32?>
    public let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = NIOLockedValueBox(descriptor)
        self.path = path
    }

    /// Takes the lock of `directory` (created if needed) for `holder` (`serve`, `restore`), or
    /// refuses, naming the process that holds it.
    public static func acquire(_ directory: URL, holder: String) throws -> DataDirectoryLock {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent(fileName).path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw DataDirectoryRefusal("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(descriptor)
            if code == EWOULDBLOCK {
                let who =
                    (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
                    ?? ""
                throw DataDirectoryRefusal(
                    "\(directory.path) is in use by another Podium process\(who.isEmpty ? "" : " (\(who))"): stop it first")
            }
            throw DataDirectoryRefusal("cannot lock \(path): \(String(cString: strerror(code)))")
        }
        let text = "pid \(getpid()), podium \(holder)\n"
        _ = ftruncate(descriptor, 0)
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        return DataDirectoryLock(descriptor: descriptor, path: path)
    }

    /// Lets go (closing the file releases the lock). Safe to call more than once.
    public func release() {
        descriptor.withLockedValue { value in
            if let open = value { close(open) }
            value = nil
        }
    }

    deinit {
        release()
    }
}
