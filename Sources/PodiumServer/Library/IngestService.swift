import Foundation
import Logging
import PodiumMedia
import PodiumStore
import ServiceLifecycle
import Synchronization

/// Turns uploaded PDFs into pages: runs ``PDFIngester`` on one deck at a time (it already uses
/// every core for one deck), stores the images in the blob store and the pages in the store.
///
/// Decks left `processing` by a stopped server are processed again at start, so an upload is never
/// lost to a restart.
final class IngestService: Service, Sendable {
    private let store: any DeckStore
    private let blobs: any BlobStore
    private let ingester: PDFIngester
    private let workRoot: URL
    private let logger: Logger
    private let queue: AsyncStream<String>
    private let enqueueContinuation: AsyncStream<String>.Continuation
    private let progressByDeck = Mutex<[String: IngestProgress]>([:])
    /// Decks uploaded without a title: they take the PDF's own title when it has one.
    private let wantsDocumentTitle = Mutex<Set<String>>([])
    /// Told when a deck is ready or failed: an upload into a room joins the room then.
    private let whenDone = Mutex<[String: @Sendable (DeckRecord) async -> Void]>([:])

    init(store: any DeckStore, blobs: any BlobStore, ingester: PDFIngester, workRoot: URL, logger: Logger) {
        self.store = store
        self.blobs = blobs
        self.ingester = ingester
        self.workRoot = workRoot
        self.logger = logger
        (queue, enqueueContinuation) = AsyncStream.makeStream(of: String.self)
    }

    func enqueue(deckId: String, useDocumentTitle: Bool, whenDone done: (@Sendable (DeckRecord) async -> Void)? = nil) {
        if let done { whenDone.withLock { $0[deckId] = done } }
        if useDocumentTitle { _ = wantsDocumentTitle.withLock { $0.insert(deckId) } }
        progressByDeck.withLock { $0[deckId] = IngestProgress(stage: "queued", done: 0, total: 0) }
        enqueueContinuation.yield(deckId)
    }

    func progress(deckId: String) -> IngestProgress? {
        progressByDeck.withLock { $0[deckId] }
    }

    func run() async throws {
        for deck in try await store.processingDecks() where progress(deckId: deck.id) == nil {
            logger.info("resuming processing of deck \(deck.id)")
            enqueueContinuation.yield(deck.id)
        }
        // A shutdown does not wait for a deck (a large one takes minutes): its tools are killed
        // and it stays `processing`, to be processed again at the next start.
        try await cancelWhenGracefulShutdown {
            for await deckId in self.queue {
                await self.process(deckId: deckId)
                if Task.isCancelled { return }
            }
        }
    }

    /// Processes one deck to `ready` or `failed`. Never throws: every failure ends up on the deck.
    func process(deckId: String) async {
        await processDeck(deckId: deckId)
        guard !Task.isCancelled else { return }
        if let done = whenDone.withLock({ $0.removeValue(forKey: deckId) }), let deck = try? await store.deck(id: deckId) {
            await done(deck)
        }
    }

    private func processDeck(deckId: String) async {
        defer {
            progressByDeck.withLock { $0[deckId] = nil }
            _ = wantsDocumentTitle.withLock { $0.remove(deckId) }
        }
        guard var deck = try? await store.deck(id: deckId), deck.status == .processing else { return }
        guard let source = blobs.file(named: deck.sourceHash) else {
            await fail(&deck, code: "corrupt", message: "The uploaded file is missing from storage. Upload it again.")
            return
        }
        let work = workRoot.appendingPathComponent("ingest-\(deckId)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        do {
            let document = try await ingester.ingest(pdf: source, workDirectory: work) { progress in
                self.progressByDeck.withLock { $0[deckId] = progress }
            }
            let pages = try document.pages.map { page in
                PageRecord(
                    deckId: deckId, number: page.number, width: page.width, height: page.height, text: page.text,
                    largeImage: try blobs.put(fileAt: page.large, fileExtension: "jpg"),
                    mediumImage: try blobs.put(fileAt: page.medium, fileExtension: "jpg"),
                    thumbnailImage: try blobs.put(fileAt: page.thumbnail, fileExtension: "jpg"))
            }
            deck.status = .ready
            deck.pageCount = pages.count
            if wantsDocumentTitle.withLock({ $0.contains(deckId) }),
                let title = document.title?.trimmingCharacters(in: .whitespacesAndNewlines), !title.isEmpty
            {
                deck.title = String(title.prefix(200))
            }
            // The deck may have been renamed or moved while it was processing: keep that.
            if let current = try await store.deck(id: deckId) {
                deck.folderId = current.folderId
                if !wantsDocumentTitle.withLock({ $0.contains(deckId) }) { deck.title = current.title }
            } else {
                return  // deleted meanwhile
            }
            try await store.completeDeck(deck, pages: pages)
            logger.info("deck \(deckId) ready: \(pages.count) pages")
        } catch _ where Task.isCancelled {
            logger.notice("deck \(deckId) left processing by the shutdown: it is processed again at the next start")
        } catch let error as IngestError {
            logger.notice("deck \(deckId) failed: \(error.code): \(error.message)")
            await fail(&deck, code: error.code, message: error.message)
        } catch {
            logger.error("deck \(deckId) failed unexpectedly: \(error)")
            await fail(&deck, code: "internal", message: "The server could not process this PDF.")
        }
    }

    private func fail(_ deck: inout DeckRecord, code: String, message: String) async {
        deck.status = .failed
        deck.errorCode = code
        deck.errorMessage = message
        do {
            try await store.updateDeck(deck)
        } catch {
            logger.error("could not record failure of deck \(deck.id): \(error)")
        }
    }
}
