import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `<blob-dir>/.backup.lock`, held with `flock`: exclusively by `podium backup` from before it
/// reads the database until its last blob is copied, shared by whatever deletes blobs (the blob
/// collector, and ``FileBlobStore/remove(named:)`` when a video or track is deleted) while it
/// deletes. A deleter that finds a backup holding it deletes nothing (the collector that run;
/// `remove` leaves the blob for the collector), so a backup never misses a blob its snapshot
/// names; a backup that starts while something deletes waits the moment that takes, then reads
/// a database that no longer names what was deleted. Deleters never wait for each other; two
/// backups run one after the other.
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

    /// A backup's hold: waits while something deletes (or another backup runs).
    public static func backup(_ root: URL) throws -> BlobStoreLock {
        let descriptor = try open(root)
        while flock(descriptor, LOCK_EX) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(descriptor)
            throw DataDirectoryRefusal("cannot lock \(root.path)/\(fileName): \(String(cString: strerror(code)))")
        }
        return BlobStoreLock(descriptor: descriptor)
    }

    /// A deleter's hold, or nil at once when a backup holds the lock.
    public static func deletingIfNoBackup(_ root: URL) throws -> BlobStoreLock? {
        let descriptor = try open(root)
        guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else {
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
