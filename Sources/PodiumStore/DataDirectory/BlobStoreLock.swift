import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `<blob-dir>/.backup.lock`, held with `flock`: shared by every `podium backup` from before it
/// reads the database until its last blob is copied, exclusive by the blob collector while it
/// deletes. A collector that finds a backup holding it deletes nothing that run, so a backup
/// never misses a blob its snapshot names; a backup that starts while the collector deletes
/// waits the moment it takes, then reads a database that no longer names what was deleted.
///
/// The lock lives in the blob directory because that is what every node and every backup share
/// (on NFS v4, Linux maps `flock` to the server's locks). The kernel lets go when the process
/// ends, however it ends.
public final class BlobStoreLock: Sendable {
    public static let fileName = ".backup.lock"

    private let descriptor: NIOLockedValueBox<Int32?>

    private init(descriptor: Int32) {
        self.descriptor = NIOLockedValueBox(descriptor)
    }

    /// A backup's hold: waits while a collector deletes.
    public static func shared(_ root: URL) throws -> BlobStoreLock {
        let descriptor = try open(root)
        while flock(descriptor, LOCK_SH) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(descriptor)
            throw DataDirectoryRefusal("cannot lock \(root.path)/\(fileName): \(String(cString: strerror(code)))")
        }
        return BlobStoreLock(descriptor: descriptor)
    }

    /// The collector's hold, or nil at once when a backup holds the lock.
    public static func exclusiveIfFree(_ root: URL) throws -> BlobStoreLock? {
        let descriptor = try open(root)
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(descriptor)
            if code == EWOULDBLOCK { return nil }
            throw DataDirectoryRefusal("cannot lock \(root.path)/\(fileName): \(String(cString: strerror(code)))")
        }
        return BlobStoreLock(descriptor: descriptor)
    }

    private static func open(_ root: URL) throws -> Int32 {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let path = root.appendingPathComponent(fileName).path
        #if canImport(Glibc)
            let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        #else
            let descriptor = Darwin.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        #endif
        guard descriptor >= 0 else {
            throw DataDirectoryRefusal("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        return descriptor
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
