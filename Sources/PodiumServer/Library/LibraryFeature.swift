import Foundation
import Hummingbird
import Logging
import PodiumMedia
import PodiumStore
import ServiceLifecycle

/// A presenter's library: decks (PDF and Office ingest), folders, videos (HLS packaging) and the
/// speaker's and audience's notes on them.
struct LibraryFeature: ServerFeature {
    /// The library's long work (ingest of decks, packaging of videos), built before the job queue
    /// that runs it.
    struct Workers {
        let pdf: PDFIngestWorker
        let video: VideoPackagingWorker
        /// Shared with the video routes, which probe an upload before they accept it.
        let videoProbe: VideoProbe

        var all: [any JobWorker] { [pdf, video] }

        /// - Parameter roomUploadProcessed: told when a deck uploaded into a room is ready or
        ///   has failed (see ``RoomsFeature/uploadProcessed(stores:hub:logger:)``).
        init(
            configuration: ServerConfiguration, stores: Stores, blobs: any BlobStore, logger: Logger,
            now: @escaping @Sendable () -> Date = { Date() },
            roomUploadProcessed: @escaping @Sendable (DeckRecord, DeckIngestRequest.RoomUpload) async -> Void
        ) {
            pdf = PDFIngestWorker(
                store: stores.decks, blobs: blobs,
                ingester: PDFIngester(limits: configuration.ingestLimits, runner: configuration.toolRunner),
                converter: OfficeConverter(
                    limits: configuration.officeLimits, ingestLimits: configuration.ingestLimits,
                    runner: configuration.toolRunner, logger: logger),
                workRoot: configuration.temporaryDirectory, logger: logger, roomUploadProcessed: roomUploadProcessed)
            videoProbe = VideoProbe(limits: configuration.videoLimits, runner: configuration.toolRunner, logger: logger)
            var video = VideoPackagingWorker(
                store: stores.videos, blobs: blobs, probe: videoProbe,
                packager: VideoPackager(limits: configuration.videoLimits, runner: configuration.toolRunner, logger: logger),
                workRoot: configuration.temporaryDirectory, logger: logger)
            video.retireAfter = Self.longestStreamLink(configuration)
            video.now = now
            if let hold = configuration.videoLadderHold {
                video.afterFirstRendition = { videoId in
                    logger.notice("video \(videoId): its ladder waits while \(hold.path) exists (a test's hold)")
                    while FileManager.default.fileExists(atPath: hold.path) { try await Task.sleep(for: .milliseconds(100)) }
                }
            }
            self.video = video
        }

        /// The longest a clip's stream token lives: a stage's (`--stage-video-link-hours`, a
        /// replay's too) or the library's and channel's (`--stream-token-minutes`).
        static func longestStreamLink(_ configuration: ServerConfiguration) -> TimeInterval {
            max(configuration.stageVideoLinkLifetime, configuration.channel.streamTokenLifetime)
        }
    }

    let decks: DeckController
    let folders: FolderController
    let videos: VideoController
    let notes: NotesController
    let captions: CaptionController
    /// Library and stage clips at `/stream/<token>/<file>` (the channel's ``StreamController``
    /// serves every kind).
    let streamSources: [String: any StreamSource]
    /// The removal of clips' retired first renditions (``VideoRetirementService``).
    let services: [any Service]

    init(_ platform: Platform, workers: Workers) {
        let configuration = platform.configuration
        decks = DeckController(
            store: platform.stores.decks, blobs: platform.blobs, jobs: platform.jobs,
            uploadDirectory: configuration.temporaryDirectory,
            maxUploadBytes: configuration.maxUploadBytes, now: platform.now,
            hosts: SessionHosts(store: platform.stores.sessions, courses: CourseTeachers(platform)))
        folders = FolderController(store: platform.stores.decks, now: platform.now)
        let clipFiles = StreamBlobSets(now: platform.now)
        let stages = StageClipUpdates(sessions: platform.stores.sessions, hub: platform.hub, logger: platform.logger)
        videos = VideoController(
            store: platform.stores.videos, deckStore: platform.stores.decks, blobs: platform.blobs, jobs: platform.jobs,
            probe: workers.videoProbe,
            uploadDirectory: configuration.temporaryDirectory, maxUploadBytes: configuration.maxVideoUploadBytes,
            tokens: platform.streamTokens, clipFiles: clipFiles, logger: platform.logger, now: platform.now,
            clipChanged: { await stages.clipChanged($0) })
        captions = CaptionController(
            store: platform.stores.captions, videoStore: platform.stores.videos,
            uploadDirectory: configuration.temporaryDirectory, maxCaptionBytes: configuration.maxCaptionBytes,
            tokens: platform.streamTokens, now: platform.now)
        notes = NotesController(
            store: platform.stores.notes, deckStore: platform.stores.decks, hub: platform.hub, now: platform.now)
        // As often as the job queue asks the store for work: one indexed query.
        services = [
            VideoRetirementService(
                store: platform.stores.videos, blobs: platform.blobs, interval: configuration.jobPollInterval,
                logger: platform.logger, adoptAfter: Workers.longestStreamLink(configuration), now: platform.now)
        ]
        streamSources = [
            ClipStreamSource.kind: ClipStreamSource(
                store: platform.stores.videos, blobs: platform.blobs, blobSets: clipFiles,
                captions: CaptionStreams(store: platform.stores.captions))
        ]
    }

    func addRoutes(to api: RouterGroup<AppRequestContext>, router: Router<AppRequestContext>) {
        decks.addRoutes(to: api)
        folders.addRoutes(to: api)
        videos.addRoutes(to: api)
        captions.addRoutes(to: api)
        notes.addRoutes(to: api)
    }

    /// Puts the demo deck into the first admin's library, so a new server has something to present.
    static func seedDemoDeck(
        configuration: ServerConfiguration, stores: Stores, blobs: any BlobStore, jobs: JobQueue,
        now: @escaping @Sendable () -> Date, logger: Logger
    ) async throws {
        guard FileManager.default.fileExists(atPath: configuration.demoDeck.path),
            let admin = try await stores.users.user(email: "admin")
        else {
            logger.notice("no demo deck at \(configuration.demoDeck.path); the library starts empty")
            return
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: configuration.demoDeck.path)
        let deck = DeckRecord(
            id: IDs.make("d"), ownerId: admin.id, folderId: nil, title: "Welcome to Podium", status: .processing,
            sourceHash: try blobs.put(fileAt: configuration.demoDeck, fileExtension: "pdf"),
            sourceBytes: (attributes[.size] as? Int) ?? 0, createdAt: now())
        try await stores.decks.insertDeck(deck)
        _ = try await jobs.enqueue(
            kind: DeckIngestRequest.kind, subjectId: deck.id, ownerId: admin.id,
            payload: DeckIngestRequest(useDocumentTitle: false))
    }
}
