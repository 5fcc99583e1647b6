import Foundation
import Hummingbird
import PodiumMedia
import PodiumStore
import PodiumWire

/// The library: upload, list, rename, move and delete decks (folders: ``FolderController``).
struct DeckController {
    let store: any DeckStore
    let blobs: any BlobStore
    let jobs: JobQueue
    let uploadDirectory: URL
    let maxUploadBytes: Int
    let now: @Sendable () -> Date
    /// Lets a session's co-hosts read the deck they present, its speaker notes with it (nil: owners only).
    var hosts: SessionHosts? = nil

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("decks", use: upload)
        group.get("decks", use: list)
        group.get("decks/:id", use: show)
        group.patch("decks/:id", use: update)
        group.delete("decks/:id", use: delete)
        group.get("decks/:id/pdf", use: download)
        group.head("decks/:id/pdf", use: download)
    }

    @Sendable func upload(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<
        UploadedResponse<DeckResponse>
    > {
        let user = try context.requireUser()
        let folderId = request.uri.queryParameters.get("folderId")
        if let folderId { _ = try await ownedFolder(folderId, user: user) }
        let (deck, job) = try await accept(request, ownerId: user.id, folderId: folderId)
        return EditedResponse(
            status: .created,
            response: UploadedResponse(
                item: DeckResponse(deck, pages: nil, firstPage: nil, progress: progress(of: deck)), jobId: job.id))
    }

    /// Takes an uploaded PDF into the library and queues its processing (a `pdf` job); an upload
    /// into a room names the room, which the deck joins when ready.
    func accept(
        _ request: Request, ownerId: String, folderId: String?, roomId: String? = nil,
        room: DeckIngestRequest.RoomUpload? = nil
    ) async throws -> (DeckRecord, JobRecord) {
        let files = try await receive(request)
        defer { for file in files { try? FileManager.default.removeItem(at: file.file) } }
        return try await take(
            files, title: request.uri.queryParameters.get("title"), ownerId: ownerId, folderId: folderId, roomId: roomId,
            room: room)
    }

    /// A deck upload's body, on disk (the caller removes the files), refused past the limit.
    func receive(_ request: Request) async throws -> [Upload.Received] {
        try await Upload.receiveFiles(request, into: uploadDirectory, limit: maxUploadBytes)
    }

    /// Takes received files (a one-shot upload's body, or a finished resumable upload) as one
    /// deck: what the one-shot route does once the body is in, with the same checks and codes.
    /// The caller removes `files`.
    func take(
        _ files: [Upload.Received], title: String?, ownerId: String, folderId: String?, roomId: String? = nil,
        room: DeckIngestRequest.RoomUpload? = nil
    ) async throws -> (DeckRecord, JobRecord) {
        let (received, format) = try Self.oneDeck(of: files, in: uploadDirectory)
        defer { if received.file != files[0].file { try? FileManager.default.removeItem(at: received.file) } }
        let given = title ?? received.filename.map(Self.title(fromFilename:))
        return try await ingest(
            file: received.file, bytes: received.bytes, title: given, ownerId: ownerId, folderId: folderId, roomId: roomId,
            room: room, format: format)
    }

    /// One file as it is, or several images as one ZIP of images (in the order their names sort
    /// to, naturally): what one deck is made of, and its format.
    static func oneDeck(of files: [Upload.Received], in directory: URL) throws -> (Upload.Received, DeckFormat) {
        let formats = try files.map(Upload.deckFormat)
        guard files.count > 1 else { return (files[0], formats[0]) }
        guard formats.allSatisfy({ [.png, .jpeg, .webp].contains($0) }) else {
            throw APIError(
                .unsupportedMediaType, code: IngestError.unsupportedType.code,
                message: "Several files make one deck only when they are all images (PNG, JPEG or WebP). "
                    + "Upload other files one at a time.")
        }
        var used = Set<String>()
        let entries = try files.enumerated().map { index, file in
            // The names sort the pages; a name sent twice, or none, gets a number of its own.
            var name = (file.filename.map { ($0 as NSString).lastPathComponent } ?? "").filter { $0 != "/" }
            if name.isEmpty || used.contains(name) { name = "image-\(index + 1)-\(name)" }
            used.insert(name)
            return (name: name, data: try Data(contentsOf: file.file))
        }
        let zip = directory.appendingPathComponent("upload-\(UUID().uuidString)")
        let data = try ZipArchive.stored(entries)
        try data.write(to: zip)
        let first = files[0].filename.map { ($0 as NSString).lastPathComponent }
        return (Upload.Received(file: zip, bytes: data.count, filename: first), .imageSet)
    }

    /// Takes a PDF file (an upload, a storyboard's shots) into the library and queues its
    /// processing; without a title the deck takes the PDF's own.
    func ingest(
        file: URL, bytes: Int, title given: String?, ownerId: String, folderId: String?, roomId: String? = nil,
        room: DeckIngestRequest.RoomUpload? = nil, format: DeckFormat = .pdf
    ) async throws -> (DeckRecord, JobRecord) {
        let sourceHash = try blobs.put(fileAt: file, fileExtension: format.fileExtension)
        let title = given.map(Self.cleanTitle).flatMap { $0.isEmpty ? nil : $0 }
        let deck = DeckRecord(
            id: IDs.make("d"), ownerId: ownerId, folderId: folderId, title: title ?? DeckIngestRequest.placeholderTitle,
            status: .processing,
            sourceHash: sourceHash, sourceBytes: bytes, createdAt: now(), roomId: roomId)
        try await store.insertDeck(deck)
        do {
            let job = try await jobs.enqueue(
                kind: DeckIngestRequest.kind, subjectId: deck.id, ownerId: ownerId,
                payload: DeckIngestRequest(useDocumentTitle: title == nil, room: room, format: format == .pdf ? nil : format))
            return (deck, job)
        } catch {
            // Without its job the deck would stay processing for ever: the upload fails whole.
            try? await store.deleteDeck(id: deck.id)
            throw error
        }
    }

    /// How far the deck's processing has come, while it is processing.
    func progress(of deck: DeckRecord) -> IngestProgress? {
        jobs.progress(subjectId: deck.id).map { IngestProgress(stage: $0.stage, done: $0.done, total: $0.total) }
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> [DeckResponse] {
        let user = try context.requireUser()
        let decks = try await store.decks(ownerId: user.id, folderId: request.uri.queryParameters.get("folderId"))
        var result: [DeckResponse] = []
        for deck in decks {
            let first = deck.status == .ready ? try await store.pages(deckId: deck.id).first : nil
            result.append(DeckResponse(deck, pages: nil, firstPage: first, progress: progress(of: deck)))
        }
        return result
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> DeckResponse {
        let user = try context.requireUser()
        guard let deck = try await store.deck(id: try context.parameters.require("id")),
            try await hosts?.mayPresent(deck, user: user) ?? (deck.ownerId == user.id || user.role == .admin)
        else { throw APIError.notFound("deck") }
        let pages = try await store.pages(deckId: deck.id)
        // The presenter's own view: the speaker notes come with it (a viewer's welcome never has them).
        return DeckResponse(deck, pages: pages, firstPage: nil, progress: progress(of: deck), speakerNotes: true)
    }

    struct DeckPatch: Decodable {
        var title: String?
        /// Absent: unchanged. `null`: top level. A string: that folder.
        var folderId: String??

        enum CodingKeys: String, CodingKey { case title, folderId }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            title = try container.decodeIfPresent(String.self, forKey: .title)
            if container.contains(.folderId) {
                folderId = .some(
                    try container.decodeNil(forKey: .folderId) ? nil : try container.decode(String.self, forKey: .folderId))
            }
        }
    }

    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> DeckResponse {
        var deck = try await ownedDeck(context)
        let patch = try await request.decode(as: DeckPatch.self, context: context)
        if let title = patch.title {
            let cleaned = Self.cleanTitle(title)
            guard !cleaned.isEmpty else { throw APIError.badRequest("A deck needs a title.") }
            deck.title = cleaned
        }
        if let folderId = patch.folderId {
            if let folderId { _ = try await ownedFolder(folderId, user: try context.requireUser()) }
            deck.folderId = folderId
        }
        try await store.updateDeck(deck)
        return DeckResponse(
            deck, pages: try await store.pages(deckId: deck.id), firstPage: nil, progress: progress(of: deck))
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let deck = try await ownedDeck(context)
        do {
            try await store.deleteDeck(id: deck.id)
        } catch {
            throw APIError(
                .conflict, code: "in_use", message: "This deck was presented in a session, so it is kept for its history.")
        }
        return .noContent
    }

    @Sendable func download(_ request: Request, context: AppRequestContext) async throws -> Response {
        let deck = try await ownedDeck(context)
        return try await WebController.pdfResponse(deck: deck, blobs: blobs, request: request, context: context)
    }

    /// The deck named in the path, if the signed-in user owns it (admins see every deck).
    private func ownedDeck(_ context: AppRequestContext) async throws -> DeckRecord {
        let user = try context.requireUser()
        guard let deck = try await store.deck(id: try context.parameters.require("id")),
            deck.ownerId == user.id || user.role == .admin
        else { throw APIError.notFound("deck") }
        return deck
    }

    private func ownedFolder(_ id: String, user: UserRecord) async throws -> FolderRecord {
        try await FolderController.owned(id, user: user, store: store)
    }

    static func title(fromFilename name: String) -> String {
        let base = (name as NSString).lastPathComponent
        let known = ["pdf", "pptx", "ppt", "key", "odp", "docx", "doc", "odt", "png", "jpg", "jpeg", "webp", "zip"]
        let ext = (base as NSString).pathExtension.lowercased()
        return known.contains(ext) && base.count > ext.count + 1 ? String(base.dropLast(ext.count + 1)) : base
    }

    static func cleanTitle(_ title: String) -> String {
        String(title.trimmingCharacters(in: .whitespacesAndNewlines).filter { !$0.isNewline }.prefix(200))
    }
}
