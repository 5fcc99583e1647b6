import Foundation
import Hummingbird
import NIOCore
import PodiumCore
import PodiumMedia
import PodiumStore

/// Starting, listing, looking up and ending live sessions over REST. The live part is the socket.
struct SessionController {
    let store: any PodiumStore
    let blobs: any BlobStore
    let hub: LiveHub
    let accounts: Accounts
    let joinBase: JoinURLBuilder
    let workDirectory: URL
    let now: @Sendable () -> Date

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("sessions", use: create)
        group.get("sessions", use: list)
        group.get("sessions/:code", use: show)
        group.post("sessions/:code/end", use: end)
        group.get("sessions/:code/download", use: download)
        group.head("sessions/:code/download", use: download)
        group.get("sessions/:code/export.pdf", use: export)
        addAccessRoutes(to: group)
    }

    struct CreateRequest: Decodable {
        let deckId: String
        let passcode: String?
        let allowDownload: Bool?
        /// `{"public": true, "approval": true}`: audience questions public, after approval.
        let questions: QuestionMode?
        /// Left out of "Live now".
        let unlisted: Bool?
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<SessionResponse> {
        let user = try context.requireUser()
        let body = try await request.decode(as: CreateRequest.self, context: context)
        guard let deck = try await store.deck(id: body.deckId), deck.ownerId == user.id || user.role == .admin else {
            throw APIError.notFound("deck")
        }
        guard deck.status == .ready else {
            throw APIError(.conflict, code: "deck_not_ready", message: "This deck is not ready to present yet.")
        }
        let passcode = body.passcode?.trimmingCharacters(in: .whitespaces)
        if let passcode, passcode.count > 64 { throw APIError.badRequest("A passcode has at most 64 characters.") }
        let kept = passcode.flatMap { $0.isEmpty ? nil : $0 }
        let passcodeHash = try await kept.asyncMap { try await accounts.hash($0) }
        var generator = SystemRandomNumberGenerator()
        // Codes are unique among live sessions (a unique index says so); retry on the rare clash.
        for _ in 0..<10 {
            let record = SessionRecord(
                id: IDs.make("s"), code: JoinCode.random(using: &generator), deckId: deck.id, presenterId: user.id,
                passcodeHash: passcodeHash, passcode: kept, allowDownload: body.allowDownload ?? false,
                unlisted: body.unlisted ?? false, createdAt: now())
            do {
                try await store.insertSession(record)
            } catch {
                if try await store.session(code: record.code)?.isLive == true { continue }
                throw error
            }
            try await hub.started(record)
            if let mode = body.questions, mode != QuestionMode(), let session = try await hub.session(code: record.code) {
                do {
                    _ = try await session.perform(.setQuestionMode(mode), id: "create-\(record.id)", actor: Actor(.presenter))
                } catch {
                    throw APIError(.internalServerError, code: error.code, message: error.message)
                }
            }
            return EditedResponse(status: .created, response: try await response(record, request: request, for: user))
        }
        throw APIError(.serviceUnavailable, code: "unavailable", message: "Could not find a free join code. Try again.")
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> [SessionResponse] {
        // Only live sessions are public; `live=true` is accepted for clarity. Unlisted ones are
        // their host's to see.
        var result: [SessionResponse] = []
        for record in try await store.liveSessions() {
            let current = hub.access.access(of: record)
            guard !current.unlisted || Self.isHost(context.user, of: record) else { continue }
            result.append(try await response(record, request: request, for: context.user))
        }
        return result
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> SessionResponse {
        try await response(try await record(context), request: request, for: context.user)
    }

    @Sendable func end(_ request: Request, context: AppRequestContext) async throws -> SessionResponse {
        let user = try context.requireUser()
        let record = try await record(context)
        guard record.presenterId == user.id || user.role == .admin else { throw APIError.forbidden }
        guard let session = try await hub.session(code: record.code) else { throw APIError.notFound("session") }
        do {
            _ = try await session.perform(
                .end, id: "rest-end-\(record.id)", actor: Actor(record.isRoom ? .moderator : .presenter))
        } catch  where error == .ended {
            // Ending an ended session is fine: the result is the same.
        } catch {
            throw APIError(.conflict, code: error.code, message: error.message)
        }
        return try await response(try await store.session(id: record.id) ?? record, request: request, for: user)
    }

    @Sendable func download(_ request: Request, context: AppRequestContext) async throws -> Response {
        let record = try await record(context)
        try requireDownloadAllowed(record, context: context)
        guard let deckId = record.deckId else {
            throw APIError(
                .notFound, code: "no_single_deck", message: "A room has several decks: download its export (export.pdf) instead.")
        }
        guard let deck = try await store.deck(id: deckId) else { throw APIError.notFound("deck") }
        return try await WebController.pdfResponse(deck: deck, blobs: blobs, request: request, context: context)
    }

    private func requireDownloadAllowed(_ record: SessionRecord, context: AppRequestContext) throws {
        let isHost = context.user.map { $0.id == record.presenterId || $0.role == .admin } ?? false
        guard record.allowDownload || isHost else {
            throw APIError(
                .forbidden, code: "download_not_allowed",
                message: record.isRoom
                    ? "The moderator has not allowed downloads in this room."
                    : "The presenter has not allowed downloads of this deck.")
        }
    }

    /// The deck (a room: every page shown, in the order first shown, from every deck) with the
    /// ink drawn in as vector paths.
    @Sendable func export(_ request: Request, context: AppRequestContext) async throws -> Response {
        let record = try await record(context)
        try requireDownloadAllowed(record, context: context)
        guard let session = try await hub.session(code: record.code) else { throw APIError.notFound("session") }
        let snapshot = await session.state.snapshot
        let selection: [ShownPage]
        if let room = snapshot.room {
            guard !room.shown.isEmpty else {
                throw APIError(.conflict, code: "nothing_shown", message: "Nothing has been shown in this room yet.")
            }
            selection = room.shown
        } else {
            guard let deckId = record.deckId, let deck = try await store.deck(id: deckId) else { throw APIError.notFound("deck") }
            selection = (1...max(1, deck.pageCount)).map { ShownPage(deck: deck.id, page: $0) }
        }
        var decks: [String: (record: DeckRecord, source: URL, pages: [Int: PageRecord])] = [:]
        for deckId in Set(selection.map(\.deck)) {
            guard let deck = try await store.deck(id: deckId), let source = blobs.file(named: deck.sourceHash) else {
                throw APIError.notFound("deck")
            }
            let pages = try await store.pages(deckId: deckId)
            decks[deckId] = (deck, source, Dictionary(uniqueKeysWithValues: pages.map { ($0.number, $0) }))
        }
        let inkDeck: (ShownPage) -> String? = { snapshot.room == nil ? nil : $0.deck }
        let overlayPages = selection.map { shown in
            let page = decks[shown.deck]?.pages[shown.page]
            return (
                width: page?.width ?? 612, height: page?.height ?? 792,
                ink: snapshot.strokes.filter { $0.page == shown.page && $0.deck == inkDeck(shown) }.map(Self.inkPath)
            )
        }
        let work = workDirectory.appendingPathComponent("export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let overlay = work.appendingPathComponent("overlay.pdf")
        let combined = work.appendingPathComponent("combined.pdf")
        let output = work.appendingPathComponent("export.pdf")
        try AnnotationOverlay.pdf(pages: overlayPages).write(to: overlay)
        do {
            var base = decks[selection[0].deck]!.source
            if snapshot.room != nil {
                try await PDFExporter().collect(selection.map { (decks[$0.deck]!.source, $0.page) }, writingTo: combined)
                base = combined
            }
            try await PDFExporter().overlay(overlay, on: base, writingTo: output)
        } catch let error as IngestError {
            throw APIError(.internalServerError, code: error.code, message: error.message)
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/pdf"
        let title = snapshot.room == nil ? (decks[selection[0].deck]?.record.title ?? "deck") : (record.title ?? "room")
        let safeName = title.filter { $0.isLetter || $0.isNumber || " -_.".contains($0) }
        headers[.contentDisposition] = "attachment; filename=\"\(safeName.isEmpty ? "deck" : safeName) (annotated).pdf\""
        // Read before the deferred clean-up removes the file.
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try Data(contentsOf: output))))
    }

    static func inkPath(_ stroke: Stroke) -> InkPath {
        let hex = Int(stroke.color.dropFirst(), radix: 16) ?? 0
        return InkPath(
            points: stroke.points.map { (x: $0[0], y: $0[1], pressure: $0.count > 2 ? $0[2] : 0.5) },
            color: (Double((hex >> 16) & 0xFF) / 255, Double((hex >> 8) & 0xFF) / 255, Double(hex & 0xFF) / 255),
            width: stroke.tool == .highlighter ? stroke.width * 3 : stroke.width, opacity: stroke.tool == .highlighter ? 0.35 : 1)
    }

    func record(_ context: AppRequestContext) async throws -> SessionRecord {
        guard let code = JoinCode.normalize(try context.parameters.require("code")),
            let record = try await store.session(code: code)
        else { throw APIError.notFound("session") }
        return record
    }

    /// The session as `user` may see it: its host also gets the passcode.
    func response(_ record: SessionRecord, request: Request, for user: UserRecord? = nil) async throws -> SessionResponse {
        let deck = try await record.deckId.asyncMap { try await store.deck(id: $0) } ?? nil
        let presenter = try await store.user(id: record.presenterId)
        let links = joinBase.links(code: record.code, room: record.isRoom, request: request)
        return SessionResponse(
            id: record.id, code: record.code, kind: record.kind, joinUrl: links.joinUrl, presenterUrl: links.presenterUrl,
            moderatorUrl: links.moderatorUrl, projectorUrl: links.projectorUrl,
            deckId: record.deckId, title: record.title ?? deck?.title ?? "Deck", presenter: presenter?.name ?? "Presenter",
            hasPasscode: record.passcodeHash != nil, allowDownload: record.allowDownload, live: record.isLive,
            pageCount: deck?.pageCount ?? 0, createdAt: record.createdAt, startedAt: record.createdAt, endedAt: record.endedAt,
            viewers: record.isLive ? await hub.viewerCount(code: record.code) : nil, unlisted: record.unlisted,
            passcode: Self.isHost(user, of: record) ? record.passcode : nil)
    }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
