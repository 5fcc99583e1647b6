import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PodiumCore
import PodiumStore
import PodiumWire
import Synchronization

/// Audio takes of the presenter's microphone (issue #44): `POST /api/v1/sessions/{code}/recordings`
/// starts one, `PUT /api/v1/recordings/{id}/chunks/{n}` appends MediaRecorder's chunks in order
/// to `<blob-dir>/recordings/<id>.webm`, `POST /api/v1/recordings/{id}/stop` queues its
/// packaging as HLS audio (``RecordingPackagingWorker``), `GET /api/v1/sessions/{code}/recordings`
/// lists a session's takes and `GET /api/v1/recordings/{id}/hls/{file}` serves the package.
///
/// A chunk is written at the take's stored length and then counted by compare-and-set in the
/// store, so a retried chunk (the answer was lost) is recognised by its number and length, a
/// chunk half written when a node died is overwritten by the next attempt, and two nodes sharing
/// the blob directory cannot both count one chunk.
struct RecordingController: Sendable {
    let store: any RecordingStore
    let sessions: any SessionStore
    let hub: LiveHub
    let jobs: JobQueue
    /// Who may list and listen to a session's takes: who may watch its replay.
    let access: ReplayGate
    /// `<blob-dir>/recordings`.
    let directory: URL
    let settings: RecordingSettings
    let locks = RecordingLocks()
    let logger: Logger
    let now: @Sendable () -> Date

    static let mimeTypes = ["audio/webm", "audio/webm;codecs=opus", "audio/ogg", "audio/ogg;codecs=opus"]

    func addRoutes(to api: RouterGroup<AppRequestContext>) {
        api.post("sessions/:code/recordings", use: start)
        api.get("sessions/:code/recordings", use: list)
        api.put("recordings/:id/chunks/:n", use: chunk)
        api.post("recordings/:id/stop", use: stop)
        api.get("recordings/:id/hls/:file", use: hls)
    }

    // MARK: who

    private func session(_ context: AppRequestContext) async throws -> SessionRecord {
        let code = try context.parameters.require("code")
        guard let normalized = JoinCode.normalize(code), let record = try await sessions.session(code: normalized) else {
            throw APIError.notFound("session")
        }
        return record
    }

    /// Who sends a take: the session's host (its presenter, a room's moderator, an admin, a co-host), or
    /// with `?as=presenter` a room's guest presenter in control (the viewer cookie).
    private func sender(_ request: Request, context: AppRequestContext, record: SessionRecord) async throws -> String {
        let asPresenter = request.uri.queryParameters.get("as") == "presenter"
        if !asPresenter, let user = context.user, try await SessionHosts(store: sessions).isHost(user, of: record) {
            return "user:\(user.id)"
        }
        guard record.isRoom, let live = try await hub.session(code: record.code) else {
            throw context.user == nil && context.viewerId == nil ? APIError.unauthorized : APIError.forbidden
        }
        _ = try await RoomController.bringer(
            asPresenter: true, marked: request.headers[AuthMiddleware.csrfHeader] != nil, context: context, record: record,
            session: live)
        guard let viewerId = context.viewerId else { throw APIError.forbidden }
        return "viewer:\(viewerId)"
    }

    /// The take of the path, if the request may send to it: its sender, or the session's host.
    private func owned(_ request: Request, context: AppRequestContext) async throws -> RecordingRecord {
        let id = try context.parameters.require("id")
        guard let take = try await store.recording(id: id) else { throw APIError.notFound("recording") }
        if let user = context.user, take.ownerKey == "user:\(user.id)" { return take }
        if let viewerId = context.viewerId, take.ownerKey == "viewer:\(viewerId)" {
            // The identity cookie signs this request: a cross-site form cannot add the header.
            guard request.headers[AuthMiddleware.csrfHeader] != nil else { throw APIError.csrf }
            return take
        }
        if let record = try await sessions.session(id: take.sessionId),
            try await SessionHosts(store: sessions).isHost(context.user, of: record)
        {
            return take
        }
        throw context.user == nil && context.viewerId == nil ? APIError.unauthorized : APIError.forbidden
    }

    // MARK: routes

    struct StartBody: Decodable {
        let startedAt: String
        let mimeType: String?
    }

    @Sendable func start(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<RecordingResponse> {
        let record = try await session(context)
        let owner = try await sender(request, context: context, record: record)
        guard record.isLive else { throw APIError(.conflict, code: "ended", message: "This session has ended.") }
        let body = try await request.decode(as: StartBody.self, context: context)
        guard let startedAt = Self.date(body.startedAt) else {
            throw APIError.badRequest("startedAt must be a date and time (ISO 8601), on the server's clock.")
        }
        let mimeType = (body.mimeType ?? "audio/webm;codecs=opus").replacingOccurrences(of: " ", with: "").lowercased()
        guard Self.mimeTypes.contains(mimeType) else {
            throw APIError(
                .unsupportedMediaType, code: "bad_audio",
                message: "A recording is Opus audio in WebM or Ogg (audio/webm;codecs=opus).")
        }
        let at = now()
        for other in try await store.recordings(sessionId: record.id) where other.status == .recording {
            let last = other.lastChunkAt ?? other.createdAt
            if at.timeIntervalSince(last) < settings.activeWindow {
                throw APIError(
                    .conflict, code: "recording_in_progress",
                    message: "This session is being recorded already (on another device?). Stop that recording first.")
            }
            // Its sender stopped sending: package what arrived.
            try await stopAndPackage(other, at: at)
        }
        let take = RecordingRecord(
            id: IDs.make("rec"), sessionId: record.id, ownerKey: owner, startedAt: startedAt, mimeType: mimeType,
            createdAt: at)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: chunkFile(take.id).path, contents: nil) else {
            throw APIError(.internalServerError, code: "internal", message: "The server could not store the recording.")
        }
        try await store.insertRecording(take)
        logger.info("recording \(take.id) of session \(record.code) started")
        return EditedResponse(status: .created, response: response(take))
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> RecordingList {
        let record = try await session(context)
        _ = try await access.mayWatch(record, request: request, context: context)
        return RecordingList(recordings: try await store.recordings(sessionId: record.id).map(response))
    }

    @Sendable func chunk(_ request: Request, context: AppRequestContext) async throws -> Response {
        let take = try await owned(request, context: context)
        guard let n = Int(try context.parameters.require("n")), n >= 0 else {
            throw APIError.badRequest("A chunk's number is 0, 1, 2… in the order recorded.")
        }
        let data = try await receive(request)
        guard !data.isEmpty else { throw APIError.badRequest("The chunk is empty.") }
        return try await locks.holding(take.id) {
            guard let current = try await store.recording(id: take.id) else { throw APIError.notFound("recording") }
            if n < current.chunks { return try await retried(current, n: n, bytes: data.count) }
            guard current.status == .recording else { throw Self.stopped }
            guard n == current.chunks else { throw ChunkOutOfOrder(expected: current.chunks) }
            if n == 0, !Self.isAudioContainer(data) {
                throw APIError(
                    .unprocessableContent, code: "bad_audio",
                    message: "The first chunk is not WebM or Ogg audio: a recording starts with its container's header.")
            }
            try write(data, to: take.id, at: current.bytes)
            switch try await store.appendRecordingChunk(id: take.id, n: n, bytes: data.count, at: now()) {
            case .appended(let chunks, let bytes):
                return try Self.json(RecordingChunkReceipt(chunks: chunks, bytes: bytes))
            case .outOfOrder(let expected):
                // Another node counted it first: a retry of the same chunk, or out of order.
                if n < expected, let stored = try await store.recording(id: take.id) {
                    return try await retried(stored, n: n, bytes: data.count)
                }
                throw ChunkOutOfOrder(expected: expected)
            case .stopped: throw Self.stopped
            case .missing: throw APIError.notFound("recording")
            }
        }
    }

    /// Chunk `n`, already received, sent again (its answer was lost): the same length is taken
    /// as the same chunk.
    private func retried(_ take: RecordingRecord, n: Int, bytes: Int) async throws -> Response {
        guard try await store.recordingChunkBytes(id: take.id, n: n) == bytes else {
            throw ChunkOutOfOrder(expected: take.chunks)
        }
        return try Self.json(RecordingChunkReceipt(chunks: take.chunks, bytes: take.bytes))
    }

    @Sendable func stop(_ request: Request, context: AppRequestContext) async throws -> RecordingResponse {
        let take = try await owned(request, context: context)
        try await locks.holding(take.id) {
            if let current = try await store.recording(id: take.id), current.status == .recording {
                try await stopAndPackage(current, at: now())
            }
        }
        guard let stopped = try await store.recording(id: take.id) else { throw APIError.notFound("recording") }
        return response(stopped)
    }

    /// `recording` → `packaging`, and the job that packages it (nothing when it was stopped already).
    func stopAndPackage(_ take: RecordingRecord, at: Date) async throws {
        guard try await store.stopRecording(id: take.id, at: at) else { return }
        _ = try await jobs.enqueue(
            kind: RecordingPackagingRequest.kind, subjectId: take.id, ownerId: nil, payload: RecordingPackagingRequest())
        logger.info("recording \(take.id) stopped after \(take.chunks) chunk(s); packaging it")
    }

    @Sendable func hls(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let file = try context.parameters.require("file")
        guard let take = try await store.recording(id: id), take.status == .ready,
            let record = try await sessions.session(id: take.sessionId)
        else { throw APIError.notFound("recording") }
        _ = try await access.mayWatch(record, request: request, context: context)
        guard Self.isPackageFileName(file) else { throw APIError.notFound("file") }
        let package = packageDirectory(id)
        var data = try? Data(contentsOf: package.appendingPathComponent(file))
        if data == nil, file == RecordingPackagingWorker.playlistName,
            FileManager.default.fileExists(
                atPath: package.appendingPathComponent(RecordingPackagingWorker.mediaPlaylistName).path)
        {
            // A take packaged before master playlists were written: AAC-LC (ffmpeg's `aac`) at
            // the configured rate, so its master says so.
            data = Data(
                RecordingPackagingWorker.masterPlaylist(codecs: "mp4a.40.2", bandwidth: settings.bitRate * 11 / 10).utf8)
        }
        guard let data else { throw APIError.notFound("file") }
        var headers = HTTPFields()
        headers[.contentType] = Self.contentType(of: file)
        // Behind the session's access: kept by this browser only.
        headers[.cacheControl] = "private, max-age=3600"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    // MARK: files

    func chunkFile(_ id: String) -> URL { directory.appendingPathComponent("\(id).webm") }
    func packageDirectory(_ id: String) -> URL { directory.appendingPathComponent(id, isDirectory: true) }

    /// The body, at most ``RecordingSettings/maxChunkBytes``.
    private func receive(_ request: Request) async throws -> Data {
        let limit = settings.maxChunkBytes
        let tooLarge = APIError(
            .contentTooLarge, code: "chunk_too_large", message: "A recording's chunk is at most \(limit / 1024) KiB.")
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit { throw tooLarge }
        var data = Data()
        for try await buffer in request.body {
            guard data.count + buffer.readableBytes <= limit else { throw tooLarge }
            data.append(contentsOf: buffer.readableBytesView)
        }
        return data
    }

    /// Writes a chunk at `offset` (the take's counted length) and cuts whatever followed it (the
    /// rest of an attempt cut off half way), then flushes it to disk.
    private func write(_ data: Data, to id: String, at offset: Int) throws {
        let file = chunkFile(id)
        if !FileManager.default.fileExists(atPath: file.path) {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: file.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: data)
        try handle.truncate(atOffset: UInt64(offset + data.count))
        try handle.synchronize()
    }

    // MARK: helpers

    static let stopped = APIError(
        .conflict, code: "recording_stopped", message: "This recording was stopped; start a new one to record more.")

    /// WebM (Matroska's EBML header) or Ogg.
    static func isAudioContainer(_ data: Data) -> Bool {
        let head = [UInt8](data.prefix(4))
        return head == [0x1A, 0x45, 0xDF, 0xA3] || head == Array("OggS".utf8)
    }

    static func isPackageFileName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && name.count <= 64
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") }
    }

    static func contentType(of file: String) -> String {
        if file.hasSuffix(".m3u8") { return "application/vnd.apple.mpegurl" }
        if file.hasSuffix(".ts") { return "video/mp2t" }
        return "audio/mp4"
    }

    /// ISO 8601, with or without fractional seconds (a browser's `toISOString()` has them).
    static func date(_ text: String) -> Date? {
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text) ?? ISO8601DateFormatter().date(from: text)
    }

    static func json(_ value: some Encodable) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(
            status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try Frames.encoder.encode(value))))
    }

    func response(_ take: RecordingRecord) -> RecordingResponse {
        RecordingResponse(take)
    }
}

extension RecordingResponse {
    init(_ take: RecordingRecord) {
        self.init(
            id: take.id, startedAt: take.startedAt, status: take.status.rawValue, chunks: take.chunks, bytes: take.bytes,
            duration: take.status == .ready ? take.durationMs : nil,
            playlistUrl: take.status == .ready
                ? "/api/v1/recordings/\(take.id)/hls/\(RecordingPackagingWorker.playlistName)" : nil,
            error: take.status == .failed
                ? FailureDetail(code: take.errorCode ?? "internal", message: take.errorMessage ?? "") : nil)
    }
}

extension RecordingResponse: ResponseEncodable {}
extension RecordingList: ResponseEncodable {}

/// `409 chunk_out_of_order` with the chunk the take expects next:
/// `{"error":{"code":"chunk_out_of_order","message":"…","expected":3}}`.
struct ChunkOutOfOrder: PodiumErrorBody, Sendable {
    let expected: Int

    var status: HTTPResponse.Status { .conflict }

    struct Body: Encodable {
        struct Detail: Encodable {
            let code: String
            let message: String
            let expected: Int
        }
        let error: Detail
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = Body(
            error: .init(
                code: "chunk_out_of_order", message: "Send chunk \(expected) next: chunks go in the order recorded.",
                expected: expected))
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(
            status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(body))))
    }
}

/// One request at a time per take on this node (nodes are kept apart by the store's
/// compare-and-set).
final class RecordingLocks: Sendable {
    private let held = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])

    func holding<T: Sendable>(_ id: String, _ body: () async throws -> T) async throws -> T {
        await take(id)
        defer { release(id) }
        return try await body()
    }

    private func take(_ id: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = held.withLock { held in
                if var waiting = held[id] {
                    waiting.append(continuation)
                    held[id] = waiting
                    return false
                }
                held[id] = []
                return true
            }
            if now { continuation.resume() }
        }
    }

    private func release(_ id: String) {
        let next: CheckedContinuation<Void, Never>? = held.withLock { held in
            guard var waiting = held[id] else { return nil }
            if waiting.isEmpty {
                held[id] = nil
                return nil
            }
            let first = waiting.removeFirst()
            held[id] = waiting
            return first
        }
        next?.resume()
    }
}
