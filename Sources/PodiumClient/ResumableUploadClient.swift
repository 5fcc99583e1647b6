import Foundation
import PodiumWire
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - How uploads are sent

/// How the SDK sends a resumable upload: the size of each `PATCH` and how it waits after a
/// network error before asking the server (`HEAD`) how far it got and continuing from there.
public struct UploadPolicy: Sendable {
    /// The largest `PATCH` the SDK sends (the protocol's 8 MiB).
    public static let maximumChunkBytes = 8 << 20

    /// Bytes per `PATCH`, 1 … ``maximumChunkBytes``.
    public var chunkBytes: Int
    /// The waits after consecutive network errors; when they run out the upload fails
    /// (``PodiumTransportError`` `unreachable`, "network"). A `PATCH` that moves the upload on
    /// starts the count again.
    public var retryDelays: [Duration]
    /// How a wait is spent (tests pass one that returns at once).
    public var sleep: @Sendable (Duration) async throws -> Void

    public init(
        chunkBytes: Int = UploadPolicy.maximumChunkBytes, retryDelays: [Duration] = UploadPolicy.standardDelays,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.chunkBytes = max(1, min(chunkBytes, Self.maximumChunkBytes))
        self.retryDelays = retryDelays
        self.sleep = sleep
    }

    /// 1, 2, 4, 8 s, then 8 s until about a minute has passed (63 s over 10 tries).
    public static let standardDelays: [Duration] = [1, 2, 4, 8, 8, 8, 8, 8, 8, 8].map { .seconds($0) }

    public static let standard = UploadPolicy()
}

/// The client's upload settings and what it learned of the server.
struct UploadClientState: Sendable {
    var policy = UploadPolicy.standard
    /// Whether the server speaks the resumable protocol (nil: not asked yet).
    var serverResumes: Bool?
}

/// `GET /api/v1/uploads/{id}` read for its `result` as the one-shot route's type.
struct FinishedUpload<Reply: Decodable>: Decodable {
    let state: ResumableUpload.State
    let result: Reply?
}

/// What a resumable upload sends: a file (read a chunk at a time) or bytes in memory.
enum UploadSource: Sendable {
    case file(URL)
    case data(Data)

    func length() throws -> Int64 {
        switch self {
        case .data(let data): return Int64(data.count)
        case .file(let url):
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            return (attributes[.size] as? NSNumber)?.int64Value ?? 0
        }
    }

    func read(from offset: Int64, count: Int) throws -> Data {
        switch self {
        case .data(let data):
            let start = data.startIndex + Int(offset)
            return data.subdata(in: start..<min(data.endIndex, start + count))
        case .file(let url):
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(offset))
            return try handle.read(upToCount: count) ?? Data()
        }
    }
}

extension PodiumClient {
    /// How uploads are sent: the size of each `PATCH` and the waits after network errors.
    public var uploadPolicy: UploadPolicy {
        get { uploadBox.withLock { $0.policy } }
        set { uploadBox.withLock { $0.policy = newValue } }
    }

    /// Which upload of `file` to `destination` this is, for an ``UploadResumeStore``: the target,
    /// the server, the file's absolute path, size and modification time, and the destination's
    /// fields (title, folder, room). A file changed since gives another fingerprint, so an upload
    /// of its old bytes is never continued with new ones.
    public func uploadFingerprint(file: URL, destination: UploadDestination) throws -> String {
        let url = file.standardizedFileURL.resolvingSymlinksInPath()
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let fields = destination.fields.dropFirst().map { "\($0.0)=\($0.1)" }
        return
            ([destination.target.rawValue, baseURL.absoluteString, url.path, "\(size)", String(format: "%.3f", modified)]
            + fields).joined(separator: "\n")
    }

    // MARK: The protocol's calls

    /// Whether the server takes resumable uploads, and the largest (`Tus-Max-Size`; nil if it
    /// does not say). A server without the protocol answers nil.
    public func resumableUploadSupport() async throws -> (supported: Bool, maximumBytes: Int64?) {
        var request = try request(.resumableUploadOptions)
        request.setValue(ResumableUploadHeaders.version, forHTTPHeaderField: "Tus-Resumable")
        do {
            let (_, response) = try await perform(request)
            let versions = response.value(forHTTPHeaderField: "Tus-Version") ?? ""
            let supported = versions.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "1.0.0" }
            return (supported, ResumableUploadHeaders.byteCount(response.value(forHTTPHeaderField: "Tus-Max-Size")))
        } catch let error as PodiumError where [404, 405, 501].contains(error.status) {
            return (false, nil)
        }
    }

    /// Creates an upload of `length` bytes (no bytes sent yet): `201` with its address. Refusals
    /// are the one-shot route's (`413 too_large`, a room's `403 not_in_room`, …).
    public func createResumableUpload(to destination: UploadDestination, length: Int64, filename: String?) async throws
        -> ResumableUpload
    {
        let request = try request(
            .createResumableUpload,
            headers: [
                "Tus-Resumable": ResumableUploadHeaders.version, "Upload-Length": "\(length)",
                "Upload-Metadata": destination.uploadMetadata(filename: filename),
            ])
        let (data, _) = try await perform(request)
        return try Self.decode(ResumableUpload.self, from: data, "\(Endpoint.createResumableUpload)")
    }

    /// How far an upload is: the bytes the server has and the whole length (`HEAD`; a
    /// ``PodiumError`` with status 404 when it is unknown, expired or someone else's).
    public func resumableUploadOffset(id: String) async throws -> (offset: Int64, length: Int64) {
        var request = try request(.resumableUploadHead, ["id": id])
        request.setValue(ResumableUploadHeaders.version, forHTTPHeaderField: "Tus-Resumable")
        request.cachePolicy = .reloadIgnoringLocalCacheData
        let (_, response) = try await perform(request)
        guard let offset = ResumableUploadHeaders.byteCount(response.value(forHTTPHeaderField: "Upload-Offset")),
            let length = ResumableUploadHeaders.byteCount(response.value(forHTTPHeaderField: "Upload-Length"))
        else { throw PodiumTransportError(.badResponse, "\(Endpoint.resumableUploadHead): no Upload-Offset or Upload-Length") }
        return (offset, length)
    }

    /// An upload as the server has it, with its `result` once done (so a client whose last
    /// `PATCH` answer was lost learns what the file became).
    public func resumableUpload(id: String) async throws -> ResumableUpload {
        try await call(.resumableUpload, ["id": id])
    }

    /// Abandons an upload; the server removes its bytes.
    public func deleteResumableUpload(id: String) async throws {
        let request = try request(.deleteResumableUpload, ["id": id], headers: ["Tus-Resumable": ResumableUploadHeaders.version])
        _ = try await perform(request)
    }

    /// The answer to one `PATCH`.
    public enum PatchOutcome: Sendable, Equatable {
        /// `204`: the upload has `offset` bytes now.
        case accepted(offset: Int64)
        /// `200`: that was the last byte; the body is the one-shot route's answer.
        case finished(Data)
    }

    /// Sends `bytes` at `offset` (which must be the server's); `progress` hears of the bytes of
    /// this body as they go. `409 offset_mismatch` when the server has another offset.
    public func patchResumableUpload(id: String, offset: Int64, bytes: Data, progress: ProgressHandler? = nil)
        async throws -> PatchOutcome
    {
        let request = try request(
            .patchResumableUpload, ["id": id], contentType: "application/offset+octet-stream",
            headers: ["Tus-Resumable": ResumableUploadHeaders.version, "Upload-Offset": "\(offset)"])
        let delegate = TransferDelegate(progress: progress, destination: nil, direction: .upload)
        let session = URLSession(configuration: Self.cookielessConfiguration(), delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let (data, status) = try await delegate.run { session.uploadTask(with: request, from: bytes) }
        if status == 200 { return .finished(data) }
        let next = ResumableUploadHeaders.byteCount(delegate.headers["upload-offset"]) ?? offset + Int64(bytes.count)
        return .accepted(offset: next)
    }

    // MARK: The whole upload

    /// Sends `source` to `destination` with the resumable protocol and decodes the final answer
    /// (the one-shot route's body) as `Reply`: creates the upload (or continues the one `resume`
    /// remembers for it, from the offset the server gives), sends it in chunks, and after a
    /// network error waits (``uploadPolicy``), asks how far the server got and continues; an
    /// upload the server no longer knows (404) starts over. A server without the protocol, or an
    /// empty file, gets the one-shot route (`oneShot`).
    func resumableUpload<Reply: Decodable>(
        _ source: UploadSource, to destination: UploadDestination, filename: String?, resume store: (any UploadResumeStore)?,
        progress: ProgressHandler?, as: Reply.Type, oneShot: () async throws -> Data
    ) async throws -> Reply {
        let length = try source.length()
        let supported: Bool
        if let known = uploadBox.withLock({ $0.serverResumes }) {
            supported = known
        } else {
            supported = try await resumableUploadSupport().supported
            uploadBox.withLock { $0.serverResumes = supported }
        }
        guard supported, length > 0 else {
            return try Self.decode(Reply.self, from: try await oneShot(), "\(destination.target.rawValue) upload")
        }
        var fingerprint: String?
        if let store, case .file(let url) = source { fingerprint = try uploadFingerprint(file: url, destination: destination) }
        let policy = uploadPolicy
        let what = filename ?? destination.target.rawValue
        var failures = 0
        var restarts = 0
        var id: String?
        var offset: Int64 = 0
        var needsHead = false
        var mismatched = false
        var lastError = ""

        if let store, let fingerprint, let remembered = await store.uploadURL(for: fingerprint) {
            id = remembered.lastPathComponent
            needsHead = true
        }
        var resumed = false

        func forget() async {
            if let store, let fingerprint { await store.forget(fingerprint) }
        }
        func retry(_ reason: String) async throws {
            failures += 1
            lastError = reason
            guard failures <= policy.retryDelays.count else {
                throw PodiumTransportError(
                    .unreachable,
                    "network: the upload of \(what) stopped at \(offset) of \(length) bytes after \(failures) tries (\(lastError))"
                )
            }
            try await policy.sleep(policy.retryDelays[failures - 1])
            needsHead = true
        }

        while true {
            try Task.checkCancellation()
            do {
                if id == nil {
                    let created = try await createResumableUpload(to: destination, length: length, filename: filename)
                    id = created.id
                    offset = Int64(created.offset)
                    if let store, let fingerprint,
                        let url = URL(string: "/api/v1/uploads/\(created.id)", relativeTo: baseURL)?.absoluteURL
                    {
                        await store.remember(url, for: fingerprint)
                    }
                }
                guard let uploadID = id else { continue }
                if needsHead {
                    let head = try await resumableUploadOffset(id: uploadID)
                    needsHead = false
                    guard head.length == length else {
                        // Not this file's upload (the store is stale): a new one.
                        id = nil
                        await forget()
                        continue
                    }
                    offset = head.offset
                    if offset > 0, !resumed {
                        resumed = true
                        let at = TransferProgress(bytes: offset, total: length)
                        if let store, let fingerprint { await store.resuming(fingerprint, at: at) }
                        progress?(at)
                    }
                }
                if offset >= length {
                    // Every byte is there but the answer to the last one was lost: the result is
                    // kept with the upload.
                    let data = try await bytes(.resumableUpload, ["id": uploadID])
                    let upload = try Self.decode(FinishedUpload<Reply>.self, from: data, "\(Endpoint.resumableUpload)")
                    guard upload.state == .done, let result = upload.result else {
                        // The last PATCH is still being taken on the server: wait and ask again.
                        throw PodiumTransportError(.unreachable, "the server is still taking the last bytes")
                    }
                    await forget()
                    return result
                }
                let chunk = try source.read(from: offset, count: Int(min(Int64(policy.chunkBytes), length - offset)))
                let base = offset
                let outcome = try await patchResumableUpload(
                    id: uploadID, offset: offset, bytes: chunk,
                    progress: progress.map { report -> ProgressHandler in
                        { sent in report(TransferProgress(bytes: base + sent.bytes, total: length)) }
                    })
                switch outcome {
                case .accepted(let next):
                    if next > offset {
                        failures = 0
                        mismatched = false
                    }
                    offset = next
                case .finished(let data):
                    await forget()
                    progress?(TransferProgress(bytes: length, total: length))
                    return try Self.decode(Reply.self, from: data, "\(Endpoint.patchResumableUpload)")
                }
            } catch let error as PodiumError where error.status == 404 && id != nil {
                // Unknown, expired, or removed: a new upload from the first byte, but not forever.
                restarts += 1
                await forget()
                guard restarts <= 2 else { throw error }
                id = nil
                offset = 0
                needsHead = false
            } catch let error as PodiumError where error.status == 409 && error.code == "offset_mismatch" {
                // An earlier try of ours got further, or the server is still taking it: ask where
                // to go on from, at once the first time, after a wait when it happens again.
                if mismatched {
                    try await retry(error.description)
                } else {
                    mismatched = true
                    needsHead = true
                }
            } catch let error as PodiumError where [502, 503, 504].contains(error.status) {
                try await retry(error.description)
            } catch let error as PodiumError {
                // Refused for good (the one-shot route's refusal: too large, not a video, …).
                await forget()
                throw error
            } catch let error as PodiumTransportError where error.kind == .unreachable {
                try await retry(error.detail)
            }
        }

    }
}
