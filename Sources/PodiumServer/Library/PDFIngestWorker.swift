import Foundation
import Logging
import PodiumCore
import PodiumMedia
import PodiumStore

/// The payload of a `pdf` job: what the upload asked for besides the deck itself (the job's
/// subject). Kept in the store with the job, so it holds across a restart.
struct DeckIngestRequest: Codable, Sendable {
    static let kind = "pdf"

    /// The title of a deck uploaded without one, until the PDF's own title or a rename replaces it.
    static let placeholderTitle = "Untitled deck"

    /// Uploaded without a title: the deck takes the PDF's own title, if it has one and the deck
    /// has not been renamed meanwhile.
    var useDocumentTitle: Bool
    /// Uploaded into a room: the deck joins the room when ready, or whoever brought it hears
    /// why it failed.
    var room: RoomUpload?
    /// What was uploaded, as sniffed: nil (jobs from before Office decks) is a PDF. Anything but
    /// a PDF is converted first (the job's `convert` step).
    var format: DeckFormat?

    struct RoomUpload: Codable, Sendable {
        var sessionId: String
        /// Brought by the moderator, or by a presenter (`presenterId`).
        var role: Role
        var presenterId: String?
    }
}

/// Turns an uploaded PDF into pages: runs ``PDFIngester`` (which already uses every core for one
/// deck), stores the images in the blob store and the pages in the store. The `pdf` kind of job.
/// An Office document or images are first converted to PDF (``OfficeConverter``, progress stage
/// `convert`); the PDF then replaces the upload as the deck's source, and a slide deck's titles
/// and speaker notes are kept with its pages.
struct PDFIngestWorker: JobWorker {
    let kind = DeckIngestRequest.kind
    let store: any DeckStore
    let blobs: any BlobStore
    let ingester: PDFIngester
    let converter: OfficeConverter
    let workRoot: URL
    let logger: Logger
    /// Told when a deck uploaded into a room is ready or has failed.
    let roomUploadProcessed: @Sendable (DeckRecord, DeckIngestRequest.RoomUpload) async -> Void

    func run(_ job: JobRecord, progress: @escaping @Sendable (JobProgress) -> Void) async throws {
        let request = try Self.request(of: job)
        let deckId = job.subjectId
        guard var deck = try await saving(deckId, { try await store.deck(id: deckId) }) else {
            logger.info("deck \(deckId) was deleted before it was processed")
            return
        }
        guard deck.status == .processing else {
            // Finished by an earlier run whose end was not recorded: only the room may still
            // wait for it (joining twice counts once: the command id is the deck's).
            if let room = request.room { await roomUploadProcessed(deck, room) }
            return
        }
        guard let source = blobs.file(named: deck.sourceHash) else {
            throw JobFailure(code: "corrupt", message: "The uploaded file is missing from storage. Upload it again.")
        }
        let work = workRoot.appendingPathComponent("ingest-\(deckId)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let document: IngestedDocument
        let pages: [PageRecord]
        let format = request.format ?? .pdf
        var pdf = source
        var outline: SlideOutline?
        do {
            if format != .pdf {
                progress(JobProgress(stage: "convert", done: 0, total: 1))
                let converted = try await converter.convert(
                    source, format: format, workDirectory: work.appendingPathComponent("convert", isDirectory: true))
                pdf = converted.pdf
                outline = converted.outline
                progress(JobProgress(stage: "convert", done: 1, total: 1))
            }
            document = try await ingester.ingest(pdf: pdf, workDirectory: work.appendingPathComponent("pages")) { ingest in
                progress(JobProgress(stage: ingest.stage, done: ingest.done, total: ingest.total))
            }
            let slides = outline?.slides ?? []
            pages = try document.pages.map { page in
                let slide = page.number <= slides.count ? slides[page.number - 1] : nil
                return PageRecord(
                    deckId: deckId, number: page.number, width: page.width, height: page.height, text: page.text,
                    largeImage: try blobs.put(fileAt: page.large, fileExtension: "jpg"),
                    mediumImage: try blobs.put(fileAt: page.medium, fileExtension: "jpg"),
                    thumbnailImage: try blobs.put(fileAt: page.thumbnail, fileExtension: "jpg"),
                    title: slide?.title, speakerNotes: slide?.notes ?? "")
            }
            if format != .pdf {
                // The PDF made from the upload becomes the deck's source (downloads, exports).
                deck.sourceHash = try blobs.put(fileAt: pdf, fileExtension: "pdf")
                deck.sourceBytes = (try? FileManager.default.attributesOfItem(atPath: pdf.path)[.size] as? Int) ?? 0
            }
        } catch let error as IngestError {
            throw JobFailure(code: error.code, message: error.message)
        } catch  where !Task.isCancelled {
            logger.error("deck \(deckId) failed unexpectedly: \(error)")
            throw JobFailure(code: "internal", message: "The server could not process this PDF.")
        }

        // The deck may have been renamed, moved or deleted while it was processing: keep that.
        guard let current = try await saving(deckId, { try await store.deck(id: deckId) }) else {
            logger.info("deck \(deckId) was deleted while it was processed")
            return
        }
        let documentTitle = document.title?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if request.useDocumentTitle, !documentTitle.isEmpty, current.title == DeckIngestRequest.placeholderTitle {
            deck.title = String(documentTitle.prefix(200))
        } else {
            deck.title = current.title
        }
        deck.folderId = current.folderId
        deck.status = .ready
        deck.pageCount = pages.count
        try await saving(deckId) { try await store.completeDeck(deck, pages: pages) }
        if format != .pdf { await removeUpload(named: current.sourceHash, namedByOthers: 0) }
        logger.info("deck \(deckId) ready: \(pages.count) pages")
        if let room = request.room { await roomUploadProcessed(deck, room) }
    }

    func failed(_ job: JobRecord, because failure: JobFailure) async {
        do {
            guard var deck = try await store.deck(id: job.subjectId), deck.status == .processing else { return }
            deck.status = .failed
            deck.errorCode = failure.code
            deck.errorMessage = failure.message
            try await store.updateDeck(deck)
            let request = try? Self.request(of: job)
            // A converted upload that failed leaves nothing behind: its file goes (the deck keeps
            // its error). A PDF stays, as it always has, for the failed deck's download.
            if let format = request?.format, format != .pdf {
                await removeUpload(named: deck.sourceHash, namedByOthers: 1)
            }
            if let room = request?.room { await roomUploadProcessed(deck, room) }
        } catch {
            logger.error("could not record the failure of deck \(job.subjectId) (\(failure)): \(error)")
        }
    }

    /// Removes an uploaded file once no other deck names it (the same file may be uploaded twice);
    /// `namedByOthers` counts the decks that may still name it here (the failed deck itself).
    private func removeUpload(named hash: String, namedByOthers allowed: Int) async {
        do {
            if try await store.decksUsing(sourceHash: hash) <= allowed { try blobs.remove(named: hash) }
        } catch {
            logger.notice("the upload \(hash) could not be removed: \(error)")
        }
    }

    static func request(of job: JobRecord) throws -> DeckIngestRequest {
        do {
            return try JSONDecoder().decode(DeckIngestRequest.self, from: Data(job.payload.utf8))
        } catch {
            throw JobFailure(code: "bad_job", message: "This job's parameters cannot be read: \(error)")
        }
    }

    /// Runs a store call; a store failure is logged and becomes the deck's reason for failing.
    private func saving<T>(_ deckId: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch  where !Task.isCancelled {
            logger.error("deck \(deckId): the store failed: \(error)")
            throw JobFailure(
                code: "unavailable", message: "The server could not save this deck: its database failed. Upload it again.")
        }
    }
}
