import Foundation
import Hummingbird
import NIOCore
import PodiumCore
import PodiumMedia
import PodiumStore
import PodiumWire

/// Starting, listing, looking up and ending live sessions over REST. The live part is the socket.
struct SessionController {
    let store: any SessionStore
    let deckStore: any DeckStore
    let userStore: any UserStore
    /// The clips a session showed, for its export.
    let videoStore: any VideoStore
    let blobs: any BlobStore
    let hub: LiveHub
    let accounts: Accounts
    let joinBase: JoinURLBuilder
    let workDirectory: URL
    let now: @Sendable () -> Date
    /// Lets a course's teachers start a deck another teacher placed in the course (nil: owners only).
    var courses: CourseTeachers? = nil
    /// Records who adds and removes co-hosts (nil: not recorded).
    var audit: AuditLog? = nil
    var hosts: SessionHosts { SessionHosts(store: store) }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("sessions", use: create)
        group.get("sessions", use: list)
        group.get("sessions/:code", use: show)
        group.post("sessions/:code/end", use: end)
        group.get("sessions/:code/download", use: download)
        group.head("sessions/:code/download", use: download)
        group.get("sessions/:code/export.pdf", use: export)
        addAccessRoutes(to: group)
        addHostRoutes(to: group)
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
        guard let deck = try await deckStore.deck(id: body.deckId) else { throw APIError.notFound("deck") }
        let owns = deck.ownerId == user.id || user.role == .admin
        // A teacher of a course the deck is placed in (``CourseTeachers``) starts it too.
        let course = owns ? nil : try await courses?.course(startingDeck: deck, user: user)
        guard owns || course != nil else { throw APIError.notFound("deck") }
        // The presenter of record is then the deck's owner, the starter its co-host: the lecture
        // is the owner's (their sessions, reports and replays, the picker's sessions, and their
        // own launch of the link lands in its console rather than starting a second one), and
        // "by" on the join page and in Live now names the teacher the course knows for it.
        let presenterId = course == nil ? user.id : deck.ownerId
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
                id: IDs.make("s"), code: JoinCode.random(using: &generator), deckId: deck.id, presenterId: presenterId,
                passcodeHash: passcodeHash, passcode: kept, allowDownload: body.allowDownload ?? false,
                unlisted: body.unlisted ?? false, createdAt: now())
            do {
                try await store.insertSession(record)
            } catch {
                if try await store.session(code: record.code)?.isLive == true { continue }
                throw error
            }
            if let course, let courses {
                try await courses.grant(record, to: user, course: try await courses.courseName(course))
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
            // How the requester hosts it, asked once: it decides both whether an unlisted
            // session is shown and what the response says.
            let part = try await hosts.part(of: context.user, in: record)
            if hub.access.access(of: record).unlisted, part == nil { continue }
            result.append(try await response(record, request: request, part: part))
        }
        return result
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> SessionResponse {
        try await response(try await record(context), request: request, for: context.user)
    }

    @Sendable func end(_ request: Request, context: AppRequestContext) async throws -> SessionResponse {
        let user = try context.requireUser()
        let record = try await record(context)
        guard try await hosts.isHost(user, of: record) else { throw APIError.forbidden }
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
        try await requireDownloadAllowed(record, context: context)
        guard let deckId = record.deckId else {
            throw APIError(
                .notFound, code: "no_single_deck", message: "A room has several decks: download its export (export.pdf) instead.")
        }
        guard let deck = try await deckStore.deck(id: deckId) else { throw APIError.notFound("deck") }
        return try await WebController.pdfResponse(deck: deck, blobs: blobs, request: request, context: context)
    }

    func requireDownloadAllowed(_ record: SessionRecord, context: AppRequestContext) async throws {
        if record.allowDownload { return }
        guard try await hosts.isHost(context.user, of: record) else {
            throw APIError(
                .forbidden, code: "download_not_allowed",
                message: record.isRoom
                    ? "The moderator has not allowed downloads in this room."
                    : "The presenter has not allowed downloads of this deck.")
        }
    }

    func record(_ context: AppRequestContext) async throws -> SessionRecord {
        guard let code = JoinCode.normalize(try context.parameters.require("code")),
            let record = try await store.session(code: code)
        else { throw APIError.notFound("session") }
        return record
    }

    /// The session as `user` may see it: its host also gets the passcode, and whether it is theirs.
    func response(_ record: SessionRecord, request: Request, for user: UserRecord? = nil) async throws -> SessionResponse {
        try await response(record, request: request, part: try await hosts.part(of: user, in: record))
    }

    /// The same, for a requester whose part in the session is known (nil: none).
    func response(_ record: SessionRecord, request: Request, part: SessionHosts.HostPart?) async throws -> SessionResponse {
        let deck = try await record.deckId.asyncMap { try await deckStore.deck(id: $0) } ?? nil
        let presenter = try await userStore.user(id: record.presenterId)
        let links = joinBase.links(code: record.code, room: record.isRoom, request: request)
        return SessionResponse(
            id: record.id, code: record.code, kind: record.kind, joinUrl: links.joinUrl, presenterUrl: links.presenterUrl,
            moderatorUrl: links.moderatorUrl, projectorUrl: links.projectorUrl, screenUrl: links.screenUrl,
            deckId: record.deckId, title: record.title ?? deck?.title ?? "Deck", presenter: presenter?.name ?? "Presenter",
            hasPasscode: record.passcodeHash != nil, allowDownload: record.allowDownload, live: record.isLive,
            pageCount: deck?.pageCount ?? 0, createdAt: record.createdAt, startedAt: record.createdAt, endedAt: record.endedAt,
            viewers: record.isLive ? await hub.viewerCount(code: record.code) : nil, unlisted: record.unlisted,
            passcode: part != nil ? record.passcode : nil, replay: record.replay,
            replayUrl: "\(joinBase.baseURL(request: request))/\(record.isRoom ? "r" : "s")/\(record.code)/replay",
            yours: part?.isTheirs ?? false)
    }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
