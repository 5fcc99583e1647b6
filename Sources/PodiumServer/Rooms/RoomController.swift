import Foundation
import Hummingbird
import Logging
import PodiumCore
import PodiumStore
import PodiumWire

/// Rooms over REST: opening one, and decks joining it. Control and the stage are on the socket.
struct RoomController {
    let store: any SessionStore
    let deckStore: any DeckStore
    let hub: LiveHub
    let accounts: Accounts
    let sessions: SessionController
    let decks: DeckController
    let videos: VideoController
    let logger: Logger
    let now: @Sendable () -> Date

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("rooms", use: create)
        group.post("sessions/:code/decks", use: addDeck)
        group.post("sessions/:code/videos", use: addVideo)
        group.get("sessions/:code/videos", use: listVideos)
    }

    struct CreateRequest: Decodable {
        let title: String?
        let passcode: String?
        let allowDownload: Bool?
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<SessionResponse> {
        let user = try context.requireUser()
        let body = try await request.decode(as: CreateRequest.self, context: context)
        let title = body.title?.trimmingCharacters(in: .whitespacesAndNewlines).prefix(200)
        let passcode = body.passcode?.trimmingCharacters(in: .whitespaces)
        if let passcode, passcode.count > 64 { throw APIError.badRequest("A passcode has at most 64 characters.") }
        let passcodeHash = try await passcode.flatMap { $0.isEmpty ? nil : $0 }.asyncMap { try await accounts.hash($0) }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10 {
            let record = SessionRecord(
                id: IDs.make("s"), code: JoinCode.random(using: &generator), kind: .room,
                title: title.flatMap { $0.isEmpty ? nil : String($0) } ?? "\(user.name)'s room", deckId: nil,
                presenterId: user.id, passcodeHash: passcodeHash, allowDownload: body.allowDownload ?? false, createdAt: now())
            do {
                try await store.insertSession(record)
            } catch {
                if try await store.session(code: record.code)?.isLive == true { continue }
                throw error
            }
            try await hub.started(record)
            return EditedResponse(status: .created, response: try await sessions.response(record, request: request))
        }
        throw APIError(.serviceUnavailable, code: "unavailable", message: "Could not find a free join code. Try again.")
    }

    struct AddDeckRequest: Decodable {
        let deckId: String
    }

    /// PodiumWire's, which the SDK decodes.
    typealias AddDeckResponse = RoomDeckAdded

    /// A deck joins a room: uploaded as a PDF (it joins when processed) or, for a signed-in
    /// user, `{"deckId"}` from their library. The moderator brings decks as themselves; anyone
    /// else must have joined the room as a presenter from this browser.
    @Sendable func addDeck(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<AddDeckResponse> {
        let (record, session) = try await deckRoom(try await sessions.record(context))
        let user = context.user
        let (role, presenterId) = try await Self.bringer(request, context: context, record: record, session: session)

        if request.headers[.contentType]?.hasPrefix("application/json") == true {
            let body = try await request.decode(as: AddDeckRequest.self, context: context)
            guard let user, let deck = try await deckStore.deck(id: body.deckId), deck.ownerId == user.id || user.role == .admin
            else {
                throw APIError.notFound("deck")
            }
            guard deck.status == .ready else {
                throw APIError(.conflict, code: "deck_not_ready", message: "This deck is not ready to present yet.")
            }
            try await Self.join(deck, session: session, role: role, presenterId: presenterId, deckStore: deckStore)
            return EditedResponse(
                status: .created, response: AddDeckResponse(deckId: deck.id, title: deck.title, status: "ready"))
        }

        let files = try await decks.receive(request)
        defer { for file in files { try? FileManager.default.removeItem(at: file.file) } }
        return EditedResponse(
            status: .created,
            response: try await takeDeck(
                files, title: request.uri.queryParameters.get("title"), user: user, record: record, role: role,
                presenterId: presenterId))
    }

    /// A room that takes decks (live, a room): the room route's refusals.
    func deckRoom(_ record: SessionRecord) async throws -> (SessionRecord, LiveSession) {
        guard record.isRoom else { throw APIError(.conflict, code: "not_a_room", message: "Only rooms take more decks.") }
        guard record.isLive else { throw APIError(.conflict, code: "ended", message: "This room has ended.") }
        guard let session = try await hub.session(code: record.code) else { throw APIError.notFound("room") }
        return (record, session)
    }

    /// The session of a join code (a resumable upload names its room in its metadata).
    func session(code: String) async throws -> SessionRecord {
        guard let code = JoinCode.normalize(code), let record = try await store.session(code: code) else {
            throw APIError.notFound("session")
        }
        return record
    }

    /// Takes an uploaded deck (a one-shot upload's body, a finished resumable upload) into the
    /// room, brought by `role`/`presenterId` (``bringer(_:context:record:session:)``).
    func takeDeck(
        _ files: [Upload.Received], title: String?, user: UserRecord?, record: SessionRecord, role: Role,
        presenterId: String?
    ) async throws -> AddDeckResponse {
        // An upload joins the room once processed: the job remembers the room, so this holds
        // across a restart (see `uploadProcessed`). The moderator's upload is theirs, in their
        // library; a guest presenter's belongs to them if they are signed in, else to the room
        // alone (owned by the moderator for the foreign key, but never in the moderator's library).
        let owner: (id: String, roomId: String?) =
            role == .moderator ? (record.presenterId, nil) : user.map { ($0.id, nil) } ?? (record.presenterId, record.id)
        let (deck, job) = try await decks.take(
            files, title: title, ownerId: owner.id, folderId: nil, roomId: owner.roomId,
            room: DeckIngestRequest.RoomUpload(sessionId: record.id, role: role, presenterId: presenterId))
        return AddDeckResponse(deckId: deck.id, title: deck.title, status: deck.status.rawValue, jobId: job.id)
    }

    /// Who brings something into a room: the moderator (as themselves, unless `?as=presenter`),
    /// or a presenter who joined the room from this browser.
    static func bringer(_ request: Request, context: AppRequestContext, record: SessionRecord, session: LiveSession)
        async throws -> (Role, String?)
    {
        try await bringer(
            asPresenter: request.uri.queryParameters.get("as") == "presenter",
            marked: request.headers[AuthMiddleware.csrfHeader] != nil, context: context, record: record, session: session)
    }

    /// ``bringer(_:context:record:session:)`` of a request whose `as` (`presenter` or not) comes
    /// from elsewhere (a resumable upload's metadata); `marked`: it has the `X-Podium-Request` header.
    static func bringer(
        asPresenter: Bool, marked: Bool, context: AppRequestContext, record: SessionRecord, session: LiveSession
    ) async throws -> (Role, String?) {
        let isModerator = context.user.map { $0.id == record.presenterId || $0.role == .admin } ?? false
        if isModerator, !asPresenter { return (.moderator, nil) }
        guard let viewerId = context.viewerId else { throw APIError.forbidden }
        // The identity cookie signs this request: a cross-site form cannot add the header.
        guard marked else { throw APIError.csrf }
        let id = LiveConnection.presenterId(viewerId: viewerId, sessionId: record.id)
        guard await session.state.snapshot.room?.control.isPresenter(id) == true else {
            throw APIError(.forbidden, code: "not_in_room", message: "Join the room as a presenter first.")
        }
        return (.presenter, id)
    }

    /// The live room of a request, for bringing or listing its clips.
    private func liveRoom(_ context: AppRequestContext) async throws -> (SessionRecord, LiveSession) {
        try await videoRoom(try await sessions.record(context))
    }

    /// A room that takes clips (live, a room): the room route's refusals.
    func videoRoom(_ record: SessionRecord) async throws -> (SessionRecord, LiveSession) {
        guard record.isRoom else { throw APIError(.conflict, code: "not_a_room", message: "Only rooms take clips of their own.") }
        guard record.isLive else { throw APIError(.conflict, code: "ended", message: "This room has ended.") }
        guard let session = try await hub.session(code: record.code) else { throw APIError.notFound("room") }
        return (record, session)
    }

    /// A clip uploaded into a room: it belongs to the room alone (owned by the moderator, in
    /// nobody's library), and whoever drives the stage may show it once it is packaged.
    @Sendable func addVideo(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<
        UploadedResponse<VideoResponse>
    > {
        let (record, session) = try await liveRoom(context)
        _ = try await Self.bringer(request, context: context, record: record, session: session)
        let received = try await videos.receive(request)
        defer { try? FileManager.default.removeItem(at: received.file) }
        return EditedResponse(
            status: .created,
            response: try await takeVideo(
                received, title: request.uri.queryParameters.get("title"), context: context, record: record))
    }

    /// Takes an uploaded clip (a one-shot upload's body, a finished resumable upload) into the
    /// room: it belongs to the room alone.
    func takeVideo(_ received: Upload.Received, title: String?, context: AppRequestContext, record: SessionRecord)
        async throws -> UploadedResponse<VideoResponse>
    {
        let (video, jobId) = try await videos.take(
            received, title: title, ownerId: record.presenterId, folderId: nil, roomId: record.id)
        return UploadedResponse(item: videos.response(video, viewerKey: Self.clipViewerKey(context)), jobId: jobId)
    }

    /// A room's own clips, newest first, with their packaging progress: for its moderator and presenters.
    @Sendable func listVideos(_ request: Request, context: AppRequestContext) async throws -> [VideoResponse] {
        let (record, session) = try await liveRoom(context)
        _ = try await Self.bringer(request, context: context, record: record, session: session)
        return try await videos.roomVideos(roomId: record.id, viewerKey: Self.clipViewerKey(context))
    }

    /// Who a room clip's stream URLs are given to: the signed-in person, or the browser.
    static func clipViewerKey(_ context: AppRequestContext) -> String {
        if let user = context.user { return VideoController.viewerKey(user) }
        return "viewer:\(context.viewerId ?? "anonymous")"
    }

    /// A deck uploaded into a room has been processed (by the `pdf` job, maybe after a restart):
    /// it joins the room if the room is still live, or whoever brought it hears why it failed.
    static func uploadProcessed(
        _ deck: DeckRecord, into upload: DeckIngestRequest.RoomUpload, sessionStore: any SessionStore, deckStore: any DeckStore,
        hub: LiveHub, logger: Logger
    ) async {
        do {
            guard let record = try await sessionStore.session(id: upload.sessionId), record.isLive,
                let session = try await hub.session(code: record.code)
            else {
                logger.notice("deck \(deck.id) was processed after its room \(upload.sessionId) ended")
                return
            }
            guard deck.status == .ready else {
                // Nobody waits on the upload's HTTP request any more: tell the sockets of whoever brought it.
                let failure = DeckFailedMessage(
                    deckId: deck.id, title: deck.title,
                    error: .init(
                        code: deck.errorCode ?? "failed", message: deck.errorMessage ?? "The server could not process this PDF."))
                await session.tell(presenterId: upload.presenterId, Frames.encode(failure))
                return
            }
            try await join(deck, session: session, role: upload.role, presenterId: upload.presenterId, deckStore: deckStore)
        } catch {
            logger.notice("deck \(deck.id) could not join room \(upload.sessionId): \(error)")
        }
    }

    private static func join(
        _ deck: DeckRecord, session: LiveSession, role: Role, presenterId: String?, deckStore: any DeckStore
    ) async throws {
        let pages = try await deckStore.pages(deckId: deck.id).map(DeckResponse.pageInfo)
        let roomDeck = RoomDeck(id: deck.id, title: deck.title, owner: presenterId, pages: pages)
        do {
            _ = try await session.perform(.addDeck(roomDeck), id: "deck-\(deck.id)", actor: Actor(role, presenterId: presenterId))
        } catch {
            throw APIError(.conflict, code: error.code, message: error.message)
        }
    }
}
