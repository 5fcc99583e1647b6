import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PodiumCore
import PodiumStore
import PodiumWire
import Synchronization

/// Resumable uploads (tus 1.0.0 core with creation, expiration and termination) at
/// `/api/v1/uploads`: a deck or a clip, for the library or a room, sent in pieces that survive a
/// dropped connection. The bytes go to `<blob-dir>/uploads/<id>.part` (the directory nodes
/// share, so any node takes the next piece); the row (``UploadStore``) holds the offset, moved
/// only by compare-and-set. When the last byte is in, the file is taken by the same code as the
/// target's one-shot route (``DeckController/take``, ``VideoController/take``,
/// ``RoomController/takeDeck``, ``RoomController/takeVideo``): the same checks, codes and jobs.
struct ResumableUploadController {
    let store: any UploadStore
    let deckStore: any DeckStore
    let decks: DeckController
    let videos: VideoController
    let rooms: RoomController
    /// `<blob-dir>/uploads`.
    let directory: URL
    /// How long an upload is kept after its creation or its last `PATCH`.
    let expiry: TimeInterval
    let locks: UploadLocks
    /// The writer's lease in the upload's row: one request at a time on every node.
    let leases: UploadLeases
    let now: @Sendable () -> Date

    static let version = "1.0.0"
    static let offsetContentType = "application/offset+octet-stream"
    /// The largest `PATCH` body taken (the browser, the SDK and the CLI send at most this much),
    /// so a reverse proxy's body limit of 8 MiB is enough for resumable uploads; more is
    /// `413 piece_too_large`, nothing of it kept.
    static let maxPieceBytes = 8 << 20

    func addRoutes(to api: RouterGroup<AppRequestContext>) {
        let group = api.group("uploads")
        group.on("", method: .options, use: options)
        group.post(use: create)
        group.head(":id", use: head)
        group.get(":id", use: show)
        group.patch(":id", use: patch)
        group.delete(":id", use: delete)
    }

    /// The largest upload any target takes.
    var maxSize: Int { max(decks.maxUploadBytes, videos.maxUploadBytes) }

    @Sendable func options(_ request: Request, context: AppRequestContext) async throws -> Response {
        var headers = HTTPFields()
        headers[.tusVersion] = Self.version
        headers[.tusExtension] = "creation,expiration,termination"
        headers[.tusMaxSize] = String(maxSize)
        return Response(status: .noContent, headers: headers)
    }

    // MARK: creation

    /// What the creation's metadata asks for, checked.
    struct Plan {
        var target: ResumableUploadTarget
        var metadata: [String: String]
        var ownerKey: String
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard request.headers[.tusResumable] == Self.version else {
            var headers = HTTPFields()
            headers[.tusVersion] = Self.version
            throw TusRefusal(
                APIError(
                    .preconditionFailed, code: "tus_version",
                    message: "This server speaks tus \(Self.version): send Tus-Resumable: \(Self.version)."),
                headers: headers)
        }
        guard let lengthText = request.headers[.uploadLength], let length = Int(lengthText), length >= 1 else {
            throw APIError.badRequest("Upload-Length must be the file's size in bytes, at least 1.")
        }
        guard let metadata = Self.metadata(request.headers[.uploadMetadata]) else {
            throw APIError.badRequest("Upload-Metadata must be key and base64 value pairs, separated by commas.")
        }
        guard let target = metadata["target"].flatMap(ResumableUploadTarget.init(rawValue:)) else {
            throw APIError(
                .badRequest, code: "invalid_target",
                message: "Upload-Metadata's target must be deck, video, room-deck or room-video.")
        }
        let plan = Plan(target: target, metadata: metadata, ownerKey: try Self.ownerKey(context, target: target))
        try await check(plan, request: request, context: context)
        let limit = [.deck, .roomDeck].contains(target) ? decks.maxUploadBytes : videos.maxUploadBytes
        guard length <= limit else { throw Upload.tooLarge(limit) }

        let record = UploadRecord(
            id: Self.newID(), ownerKey: plan.ownerKey, target: target.rawValue,
            metadata: String(decoding: try JSONEncoder().encode(metadata), as: UTF8.self), uploadLength: length,
            expiresAt: now().addingTimeInterval(expiry), createdAt: now())
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: partFile(record.id).path, contents: nil) else {
            throw APIError(.internalServerError, code: "internal", message: "The server could not store the upload.")
        }
        do {
            try await store.insertUpload(record)
        } catch {
            try? FileManager.default.removeItem(at: partFile(record.id))
            throw error
        }
        var headers = progressHeaders(record)
        headers[.location] = "/api/v1/uploads/\(record.id)"
        return try jsonResponse(.created, try body(record), headers: headers)
    }

    /// Who may go on with an upload: the signed-in person, or (room targets only) the browser.
    static func ownerKey(_ context: AppRequestContext, target: ResumableUploadTarget) throws -> String {
        if let user = context.user { return "user:\(user.id)" }
        switch target {
        case .deck, .video: throw APIError.unauthorized
        case .roomDeck, .roomVideo:
            guard let viewerId = context.viewerId else { throw APIError.forbidden }
            return "viewer:\(viewerId)"
        }
    }

    /// The target route's own checks before any byte is taken: at the creation, and again when
    /// the last byte is in (a folder may have gone, a room may have ended meanwhile).
    private func check(_ plan: Plan, request: Request, context: AppRequestContext) async throws {
        switch plan.target {
        case .deck, .video:
            let user = try context.requireUser()
            if let folderId = plan.metadata["folderId"] {
                _ = try await FolderController.owned(folderId, user: user, store: deckStore)
            }
        case .roomDeck, .roomVideo:
            _ = try await room(plan, request: request, context: context)
        }
    }

    /// The room of a room target, and who brings the file into it (the room routes' checks).
    private func room(_ plan: Plan, request: Request, context: AppRequestContext) async throws -> (
        record: SessionRecord, role: Role, presenterId: String?
    ) {
        guard let code = plan.metadata["session"], !code.isEmpty else {
            throw APIError.badRequest("Upload-Metadata's session must name the room (its join code).")
        }
        let record = try await rooms.session(code: code)
        let (room, session) =
            plan.target == .roomDeck ? try await rooms.deckRoom(record) : try await rooms.videoRoom(record)
        let (role, presenterId) = try await RoomController.bringer(
            asPresenter: plan.metadata["as"] == "presenter", marked: request.headers[AuthMiddleware.csrfHeader] != nil,
            context: context, record: room, session: session)
        return (room, role, presenterId)
    }

    // MARK: the upload

    /// The upload of the path, if it is the caller's and has not expired.
    private func owned(_ context: AppRequestContext) async throws -> (UploadRecord, ResumableUploadTarget) {
        let id = try context.parameters.require("id")
        guard let upload = try await store.upload(id: id), upload.expiresAt > now(),
            let target = ResumableUploadTarget(rawValue: upload.target),
            let key = try? Self.ownerKey(context, target: target), key == upload.ownerKey
        else { throw APIError.notFound("upload") }
        return (upload, target)
    }

    @Sendable func head(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (upload, _) = try await owned(context)
        var headers = progressHeaders(upload)
        headers[.uploadLength] = String(upload.uploadLength)
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers)
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (upload, _) = try await owned(context)
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        return try jsonResponse(.ok, try body(upload), headers: headers)
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (upload, _) = try await owned(context)
        _ = try await store.deleteUpload(id: upload.id)
        try? FileManager.default.removeItem(at: partFile(upload.id))
        return Response(status: .noContent)
    }

    @Sendable func patch(_ request: Request, context: AppRequestContext) async throws -> Response {
        if let version = request.headers[.tusResumable], version != Self.version {
            var headers = HTTPFields()
            headers[.tusVersion] = Self.version
            throw TusRefusal(
                APIError(.preconditionFailed, code: "tus_version", message: "This server speaks tus \(Self.version)."),
                headers: headers)
        }
        guard request.headers[.contentType]?.lowercased().hasPrefix(Self.offsetContentType) == true else {
            throw APIError(
                .unsupportedMediaType, code: "bad_content_type",
                message: "A PATCH sends the next bytes as \(Self.offsetContentType).")
        }
        let (upload, target) = try await owned(context)
        guard let offsetText = request.headers[.uploadOffset], let offset = Int(offsetText), offset >= 0 else {
            throw APIError.badRequest("Upload-Offset must be the number of bytes already sent.")
        }
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > Self.maxPieceBytes {
            throw pieceTooLarge()
        }
        // One request at a time writes the upload (on this node). One still writing it is asked to
        // stop: its client has most likely lost its connection without the server noticing, and
        // resumed; it keeps what it received, and this request then finds the offset moved.
        let stopper = UploadLocks.Stopper()
        guard let token = await locks.take(upload.id, stop: { stopper.stop() }) else {
            throw busy(upload.uploadOffset)
        }
        defer { locks.release(upload.id, token: token) }
        // And on every node: the writer's lease in the upload's row (one on another node is
        // asked to let go, as above).
        let answer = try await leases.holding(upload.id, stop: { stopper.stop() }) { lease in
            try await write(
                request, context: context, id: upload.id, target: target, offset: offset, lease: lease, stopper: stopper)
        }
        guard let answer else { throw busy(upload.uploadOffset) }
        return answer
    }

    /// The `PATCH` under the writer's lease: the body written from the offset, committed, and the
    /// file taken when it is the last piece.
    private func write(
        _ request: Request, context: AppRequestContext, id: String, target: ResumableUploadTarget, offset: Int,
        lease: UploadLeases.Hold, stopper: UploadLocks.Stopper
    ) async throws -> Response {
        // Read again under the lease: the request before may have moved it.
        guard var current = try await store.upload(id: id) else { throw APIError.notFound("upload") }
        guard offset == current.uploadOffset else {
            throw mismatch(current.uploadOffset, message: "The upload has \(current.uploadOffset) bytes, not \(offset).")
        }
        let remaining = current.uploadLength - current.uploadOffset
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > remaining {
            throw tooLong(remaining)
        }
        if let result = current.result {
            // Done already (its answer was lost?): the same answer again, to an empty PATCH.
            return try jsonResponse(.ok, Data(result.utf8), headers: progressHeaders(current))
        }
        if remaining > 0 {
            let receiving = Task { [current] in
                try await receive(request, into: current, remaining: remaining, lease: lease)
            }
            stopper.watch { receiving.cancel() }
            let (received, failure) = try await withTaskCancellationHandler {
                try await receiving.value
            } onCancel: {
                receiving.cancel()
            }
            if let failure {
                // The body was cut off (or this request stopped for a later one): the bytes
                // received are kept, and the offset committed here, outside the reading task,
                // which may have been cancelled.
                var kept = current.uploadOffset
                if received > 0,
                    (try? await store.advanceUpload(
                        id: current.id, from: current.uploadOffset, to: current.uploadOffset + received,
                        expiresAt: now().addingTimeInterval(expiry), holder: lease.holder)) == true
                {
                    kept += received
                }
                // Normal on a bad network, not a server fault: a notice, not an error.
                context.logger.notice(
                    "resumable upload: a PATCH ended before its body did; its bytes are kept",
                    metadata: [
                        "upload": .string(current.id), "received": .stringConvertible(received),
                        "offset": .stringConvertible(kept), "length": .stringConvertible(current.uploadLength),
                        "reason": .string(
                            failure is CancellationError
                                ? "stopped" : failure is UploadLeases.Lost ? "lease lost" : "\(failure)"),
                    ])
                throw mismatch(kept, message: "This request ended before its body did; the upload has \(kept) bytes.")
            }
            let moved = try await store.advanceUpload(
                id: current.id, from: current.uploadOffset, to: current.uploadOffset + received,
                expiresAt: now().addingTimeInterval(expiry), holder: lease.holder)
            guard moved else { throw try await lostRace(current.id) }
            current.uploadOffset += received
            current.expiresAt = now().addingTimeInterval(expiry)
        }
        guard current.uploadOffset == current.uploadLength else {
            return Response(status: .noContent, headers: progressHeaders(current))
        }
        return try await finish(current, target: target, request: request, context: context)
    }

    /// Writes the body to the partial file from the stored offset, as it arrives, and returns
    /// how many bytes it held. When the body fails half way (the connection dropped), the bytes
    /// received are kept on disk and returned with the failure, for the caller to commit; past
    /// `remaining`, nothing of this body is kept.
    private func receive(
        _ request: Request, into upload: UploadRecord, remaining: Int, lease: UploadLeases.Hold
    ) async throws -> (Int, (any Error)?) {
        let file = partFile(upload.id)
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? nil
        guard let size, size >= upload.uploadOffset else {
            // The bytes already counted are gone (removed by hand?): this upload cannot go on.
            _ = try? await store.deleteUpload(id: upload.id)
            try? FileManager.default.removeItem(at: file)
            throw APIError.notFound("upload")
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        // A request before this one may have written bytes it never committed.
        try handle.truncate(atOffset: UInt64(upload.uploadOffset))
        try handle.seekToEnd()
        var received = 0
        do {
            for try await chunk in request.body {
                guard received + chunk.readableBytes <= remaining else { throw tooLong(remaining) }
                guard received + chunk.readableBytes <= Self.maxPieceBytes else { throw pieceTooLarge() }
                guard lease.isWritable else { throw UploadLeases.Lost() }
                try handle.write(contentsOf: chunk.readableBytesView)
                received += chunk.readableBytes
            }
        } catch let error as TusRefusal {
            try? handle.truncate(atOffset: UInt64(upload.uploadOffset))
            throw error
        } catch let error as UploadLeases.Lost {
            // Another request may be writing the file now: leave it alone; what this one wrote
            // is not counted (its offset moves only under the lease).
            return (0, error)
        } catch {
            // The connection dropped: keep what arrived, so the client resumes from there.
            try? handle.truncate(atOffset: UInt64(upload.uploadOffset + received))
            try? handle.synchronize()
            return (received, error)
        }
        try handle.synchronize()
        return (received, nil)
    }

    /// The last byte is in: the file is taken as the target's one-shot route takes it, and the
    /// answer kept with the upload until it expires. A refused file answers the route's error
    /// and the upload is removed.
    private func finish(
        _ upload: UploadRecord, target: ResumableUploadTarget, request: Request, context: AppRequestContext
    ) async throws -> Response {
        let metadata =
            (try? JSONDecoder().decode([String: String].self, from: Data(upload.metadata.utf8))) ?? [:]
        let file = partFile(upload.id)
        let received = Upload.Received(file: file, bytes: upload.uploadLength, filename: metadata["filename"])
        let title = metadata["title"]
        let result: ResumableUpload.Result
        do {
            let plan = Plan(target: target, metadata: metadata, ownerKey: upload.ownerKey)
            switch target {
            case .deck:
                try await check(plan, request: request, context: context)
                let (deck, job) = try await decks.take(
                    [received], title: title, ownerId: try context.requireUser().id, folderId: metadata["folderId"])
                result = .deck(
                    UploadedResponse(
                        item: DeckResponse(deck, pages: nil, firstPage: nil, progress: decks.progress(of: deck)),
                        jobId: job.id))
            case .video:
                try await check(plan, request: request, context: context)
                let user = try context.requireUser()
                let (video, jobId) = try await videos.take(
                    received, title: title, ownerId: user.id, folderId: metadata["folderId"], roomId: nil)
                result = .video(
                    UploadedResponse(item: videos.response(video, viewerKey: VideoController.viewerKey(user)), jobId: jobId))
            case .roomDeck:
                let (record, role, presenterId) = try await room(plan, request: request, context: context)
                result = .roomDeck(
                    try await rooms.takeDeck(
                        [received], title: title, user: context.user, record: record, role: role, presenterId: presenterId))
            case .roomVideo:
                let (record, _, _) = try await room(plan, request: request, context: context)
                result = .roomVideo(try await rooms.takeVideo(received, title: title, context: context, record: record))
            }
        } catch {
            _ = try? await store.deleteUpload(id: upload.id)
            try? FileManager.default.removeItem(at: file)
            throw error
        }
        try? FileManager.default.removeItem(at: file)
        let body = try Frames.encoder.encode(result)
        _ = try await store.finishUpload(
            id: upload.id, result: String(decoding: body, as: UTF8.self), expiresAt: now().addingTimeInterval(expiry))
        var done = upload
        done.expiresAt = now().addingTimeInterval(expiry)
        return try jsonResponse(.ok, body, headers: progressHeaders(done))
    }

    // MARK: answers

    func partFile(_ id: String) -> URL { directory.appendingPathComponent("\(id).part") }

    /// `Upload-Offset` and `Upload-Expires`.
    private func progressHeaders(_ upload: UploadRecord) -> HTTPFields {
        var headers = HTTPFields()
        headers[.uploadOffset] = String(upload.uploadOffset)
        headers[.uploadExpires] = HTTPDate.format(upload.expiresAt)
        return headers
    }

    private func body(_ upload: UploadRecord) throws -> Data {
        let target = ResumableUploadTarget(rawValue: upload.target) ?? .deck
        let metadata = (try? JSONDecoder().decode([String: String].self, from: Data(upload.metadata.utf8))) ?? [:]
        let wire = ResumableUpload(
            id: upload.id, target: target, offset: upload.uploadOffset, length: upload.uploadLength,
            expiresAt: upload.expiresAt, filename: metadata["filename"], state: upload.result == nil ? .receiving : .done,
            result: try upload.result.map { try Self.result($0, target: target) })
        return try Frames.encoder.encode(wire)
    }

    /// A kept answer, as the type its target's route gives.
    static func result(_ json: String, target: ResumableUploadTarget) throws -> ResumableUpload.Result {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let data = Data(json.utf8)
        switch target {
        case .deck: return .deck(try decoder.decode(Uploaded<Deck>.self, from: data))
        case .video: return .video(try decoder.decode(Uploaded<Video>.self, from: data))
        case .roomDeck: return .roomDeck(try decoder.decode(RoomDeckAdded.self, from: data))
        case .roomVideo: return .roomVideo(try decoder.decode(Uploaded<Video>.self, from: data))
        }
    }

    private func jsonResponse(_ status: HTTPResponse.Status, _ body: Data, headers: HTTPFields) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    private func busy(_ stored: Int) -> TusRefusal {
        mismatch(stored, message: "Another request is still sending this upload's bytes; ask again in a moment.")
    }

    private func mismatch(_ stored: Int, message: String) -> TusRefusal {
        var headers = HTTPFields()
        headers[.uploadOffset] = String(stored)
        return TusRefusal(APIError(.conflict, code: "offset_mismatch", message: message), headers: headers)
    }

    private func tooLong(_ remaining: Int) -> TusRefusal {
        TusRefusal(
            APIError(
                .badRequest, code: "too_long",
                message: "The upload takes \(remaining) more bytes; this piece has more. Nothing of it was kept."),
            headers: [:])
    }

    private func pieceTooLarge() -> TusRefusal {
        TusRefusal(
            APIError(
                .contentTooLarge, code: "piece_too_large",
                message:
                    "A PATCH carries at most \(Self.maxPieceBytes) bytes (8 MiB); send the rest in the next one. Nothing of this one was kept."
            ),
            headers: [:])
    }

    /// The offset moved under this request (another node took a piece), or the upload is gone.
    private func lostRace(_ id: String) async throws -> TusRefusal {
        guard let upload = try await store.upload(id: id) else {
            return TusRefusal(APIError.notFound("upload"), headers: [:])
        }
        return mismatch(upload.uploadOffset, message: "Another request moved the upload to \(upload.uploadOffset) bytes.")
    }

    /// `u` and 32 hex digits: 128 random bits.
    static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return "u" + (0..<2).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
    }

    /// tus's `Upload-Metadata`: `key base64value` pairs separated by commas (a key alone has an
    /// empty value). Nil when malformed.
    static func metadata(_ header: String?) -> [String: String]? {
        guard let header, !header.trimmingCharacters(in: .whitespaces).isEmpty else { return [:] }
        var result: [String: String] = [:]
        for pair in header.split(separator: ",") {
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: true)
            guard let key = parts.first, parts.count <= 2, result[String(key)] == nil else { return nil }
            if parts.count == 2 {
                guard let data = Data(base64Encoded: String(parts[1])), let value = String(data: data, encoding: .utf8)
                else { return nil }
                result[String(key)] = value
            } else {
                result[String(key)] = ""
            }
        }
        return result
    }
}

/// One `PATCH` at a time per upload on this node; a later one takes over from an earlier one.
final class UploadLocks: Sendable {
    private struct Holder: Sendable {
        let token: Int
        let stop: @Sendable () -> Void
    }

    private let state = Mutex<(next: Int, held: [String: Holder])>((0, [:]))

    /// Takes the lock of upload `id` for a request that `stop` ends. A request holding it is
    /// asked to stop (once), and this waits until it has let go, at most `wait`: its token, or
    /// nil when the other did not let go in time.
    func take(_ id: String, stop: @escaping @Sendable () -> Void, wait: Duration = .seconds(10)) async -> Int? {
        let deadline = ContinuousClock.now + wait
        var asked = false
        while true {
            let (token, holder): (Int?, Holder?) = state.withLock { state in
                if let holder = state.held[id] { return (nil, holder) }
                state.next += 1
                state.held[id] = Holder(token: state.next, stop: stop)
                return (state.next, nil)
            }
            if let token { return token }
            if !asked {
                holder?.stop()
                asked = true
            }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    func release(_ id: String, token: Int) {
        state.withLock { state in
            if state.held[id]?.token == token { state.held[id] = nil }
        }
    }

    /// Stops a request's reading of its body, now or as soon as it starts.
    final class Stopper: Sendable {
        private let state = Mutex<(stopped: Bool, action: (@Sendable () -> Void)?)>((false, nil))

        func stop() {
            let action = state.withLock { state in
                state.stopped = true
                return state.action
            }
            action?()
        }

        /// `action` runs on `stop()`, or at once if that came already.
        func watch(_ action: @escaping @Sendable () -> Void) {
            let stopped = state.withLock { state in
                state.action = action
                return state.stopped
            }
            if stopped { action() }
        }
    }
}

/// A refusal with headers of its own (`Upload-Offset` on `409 offset_mismatch`, `Tus-Version` on `412`).
struct TusRefusal: PodiumErrorBody, Sendable {
    let error: APIError
    let headers: HTTPFields

    init(_ error: APIError, headers: HTTPFields) {
        self.error = error
        self.headers = headers
    }

    var status: HTTPResponse.Status { error.status }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try error.response(from: request, context: context)
        for field in headers { response.headers[field.name] = field.value }
        return response
    }
}

/// `Tus-Resumable: 1.0.0` on every answer under `/api/v1/uploads`, refusals too, whoever gives
/// them: the routes, and the middleware before them (a bad token's 401, the CSRF check's 403, an
/// unknown route's 404, Hummingbird's and NIO's refusals). Added to the router outside
/// ``SecurityHeadersMiddleware``, which turns every error into an answer, so it sees them all. A
/// refused `HEAD` has no body.
struct TusHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var prefix: String { "/api/v1/uploads" }

    static func applies(to path: String) -> Bool {
        path == prefix || path.hasPrefix(prefix + "/")
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard Self.applies(to: request.uri.path) else { return try await next(request, context) }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        if request.method == .head, response.status.code >= 400 {
            response = Response(status: response.status, headers: response.headers)
            response.headers[.contentLength] = nil
        }
        response.headers[.tusResumable] = ResumableUploadController.version
        return response
    }
}

extension HTTPField.Name {
    static let tusResumable = HTTPField.Name("Tus-Resumable")!
    static let tusVersion = HTTPField.Name("Tus-Version")!
    static let tusExtension = HTTPField.Name("Tus-Extension")!
    static let tusMaxSize = HTTPField.Name("Tus-Max-Size")!
    static let uploadLength = HTTPField.Name("Upload-Length")!
    static let uploadOffset = HTTPField.Name("Upload-Offset")!
    static let uploadMetadata = HTTPField.Name("Upload-Metadata")!
    static let uploadExpires = HTTPField.Name("Upload-Expires")!
}
