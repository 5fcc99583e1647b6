import Foundation
import PodiumStore
import Synchronization

/// The writer's lease of a resumable upload, kept in its row, so that one request at a time, on
/// any node, writes the upload's part file (two nodes share it as they share the blobs: a client
/// retrying through a load balancer may send the same piece to two of them at once). A `PATCH`
/// takes the lease by compare-and-set before it writes, renews it while it writes, and lets go
/// when it ends. One on another node still holding it is asked to let go: it stops at its next
/// renewal, keeping the bytes it received, as a request on this node is stopped by
/// ``UploadLocks``. A holder that stopped renewing (its node died) is taken over once its term
/// is past. The offset moves only under the lease (``UploadStore/advanceUpload``).
struct UploadLeases: Sendable {
    let store: any UploadStore
    /// How long a lease lasts without a renewal.
    let term: TimeInterval
    /// How often a holder renews it.
    let renewal: Duration
    let now: @Sendable () -> Date

    /// A lease held by one request.
    final class Hold: Sendable {
        let uploadId: String
        let holder: String
        private let now: @Sendable () -> Date
        /// Until when this request may write: a margin before the term the store was given, so
        /// a node whose clock runs a little behind another's stops before that one takes over.
        private let writableUntil: Mutex<Date>

        init(uploadId: String, holder: String, writableUntil: Date, now: @escaping @Sendable () -> Date) {
            self.uploadId = uploadId
            self.holder = holder
            self.now = now
            self.writableUntil = Mutex(writableUntil)
        }

        /// Whether the lease is surely still this request's (false when it could not be renewed in time).
        var isWritable: Bool { now() < writableUntil.withLock { $0 } }

        func renewed(until: Date) { writableUntil.withLock { $0 = until } }
    }

    /// The lease ran out while its holder could not renew it: another request may be writing the
    /// part file now, so this one leaves it alone.
    struct Lost: Error {}

    /// Runs `body` holding the lease of upload `id`, renewing it meanwhile, and lets go after.
    /// When another request holds it, it is asked to let go, and this waits for that at most
    /// `wait`: nil then, without running `body`. `stop` is called when the lease must be given
    /// up (another request asked for it, or it could not be renewed): `body` should then end soon.
    func holding<T: Sendable>(
        _ id: String, wait: Duration = .seconds(10), stop: @escaping @Sendable () -> Void,
        _ body: (Hold) async throws -> T
    ) async throws -> T? {
        guard let hold = try await take(id, wait: wait) else { return nil }
        let renewing = Task { await renew(hold, stop: stop) }
        do {
            let result = try await body(hold)
            renewing.cancel()
            try? await store.releaseUploadLease(id: id, holder: hold.holder)
            return result
        } catch {
            renewing.cancel()
            try? await store.releaseUploadLease(id: id, holder: hold.holder)
            throw error
        }
    }

    private func take(_ id: String, wait: Duration) async throws -> Hold? {
        let holder = ResumableUploadController.newID()
        let deadline = ContinuousClock.now + wait
        // Asked again after 50 ms, then less and less often, at most every 0.4 s (or every
        // renewal, if that is shorter): a holder on another node sees the request only when it
        // renews, and each ask costs three store queries; one on this node lets go as soon as it
        // is stopped, so the wait stays short there (it was a steady 50 ms: 60 queries a second).
        var interval = Duration.milliseconds(50)
        let longest = max(min(renewal, .milliseconds(400)), .milliseconds(50))
        while true {
            let start = now()
            if try await store.takeUploadLease(id: id, holder: holder, until: start + term, now: start) {
                return Hold(uploadId: id, holder: holder, writableUntil: writable(from: start), now: now)
            }
            guard try await store.upload(id: id) != nil else { throw APIError.notFound("upload") }
            guard ContinuousClock.now < deadline else { return nil }
            try await store.wantUploadLease(id: id, holder: holder)
            try await Task.sleep(for: interval)
            interval = min(interval * 2, longest)
        }
    }

    /// Renews the lease until cancelled. Asked for by another request, it calls `stop` (once)
    /// and goes on renewing: the holder stops reading its body but may still be committing or
    /// taking the file in, and lets go when it ends.
    private func renew(_ hold: Hold, stop: @Sendable () -> Void) async {
        var stopped = false
        while !Task.isCancelled {
            do { try await Task.sleep(for: renewal) } catch { return }
            let start = now()
            do {
                switch try await store.renewUploadLease(id: hold.uploadId, holder: hold.holder, until: start + term) {
                case .renewed:
                    hold.renewed(until: writable(from: start))
                case .wanted:
                    hold.renewed(until: writable(from: start))
                    if !stopped {
                        stopped = true
                        stop()
                    }
                case .lost:
                    stop()
                    return
                }
            } catch {
                // The database out of reach: go on while the lease surely lasts.
                if !hold.isWritable {
                    stop()
                    return
                }
            }
        }
    }

    private func writable(from start: Date) -> Date { start + term * 0.75 }
}
