import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import PodiumCore
import PodiumMedia
import PodiumStore
import ServiceLifecycle

/// What a start did that the operator should hear about once.
public struct StartupReport: Sendable {
    /// Set when this start created the admin account with a generated password.
    public var generatedAdminPassword: String?
    public var adminCreated: Bool
    /// The machine's network addresses, for the URLs printed at start.
    public var lanAddresses: [String]
    /// Tells every live client to reconnect and closes their sockets. Run it before the HTTP
    /// server stops (see ``LiveDrain``), so clients hear why instead of just losing the socket.
    public var drainLiveClients: @Sendable () async -> Void
    /// How many sessions are live (on every node of a cluster), for the local network's
    /// advertisement (see ``DiscoveryAdvertiser``).
    public var liveSessionCount: @Sendable () async throws -> Int = { 0 }
}

/// A service that drains live clients on graceful shutdown. Put it after the application in a
/// `ServiceGroup`: services stop in reverse order, so this runs while the server still writes.
public struct LiveDrain: Service {
    let drain: @Sendable () async -> Void

    public init(_ report: StartupReport) {
        drain = report.drainLiveClients
    }

    public func run() async throws {
        try? await gracefulShutdown()
        await drain()
    }
}

public typealias PodiumApplication = Application<RouterResponder<AppRequestContext>>

/// Builds the whole server: store, blob store, job queue, live hub, routes. `podium serve` and the
/// tests call this same function.
///
/// - Parameters:
///   - configuration: where data lives, what to listen on, limits.
///   - store: the store to use; nil opens PostgreSQL when `configuration.databaseURL` is set,
///     else SQLite in the data directory (migrations run here, before the server accepts requests).
///   - bus: how this node hears of other nodes' events and presence; nil: a ``PostgresSessionBus``
///     when `configuration.databaseURL` is set, else this node alone.
///   - now: the clock.
///   - onServerRunning: called with the listening channel (its local address tells the port).
public func buildApplication(
    configuration: ServerConfiguration,
    store providedStore: (any PodiumStore)? = nil,
    bus providedBus: (any SessionBus)? = nil,
    logger: Logger = Logger(label: "podium"),
    now: @escaping @Sendable () -> Date = { Date() },
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
) async throws -> (PodiumApplication, StartupReport) {
    let fileManager = FileManager.default
    try fileManager.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
    try fileManager.createDirectory(at: configuration.temporaryDirectory, withIntermediateDirectories: true)
    let store: any PodiumStore
    var services: [any Service] = []
    var closeOpenedStore: (@Sendable () async throws -> Void)?
    if let providedStore {
        store = providedStore
    } else {
        let opened =
            if let url = configuration.databaseURL {
                try await SQLStore.openPostgres(url: url, maximumConnections: configuration.databaseConnections, logger: logger)
            } else {
                try await SQLStore.openSQLite(path: configuration.databasePath, logger: logger)
            }
        store = opened
        closeOpenedStore = opened.close
        services.append(CloseOnShutdown(name: "database", close: opened.close))
    }
    do {
        // Nodes on one PostgreSQL hear each other through it; otherwise this node is alone.
        let bus =
            try providedBus ?? configuration.databaseURL.map { url in
                var settings = PostgresSessionBus.Settings()
                settings.checkInterval = configuration.busCheckInterval
                return try PostgresSessionBus(url: url, settings: settings, logger: logger)
            } ?? LocalSessionBus()
        return try await assembleApplication(
            configuration: configuration, store: store, bus: bus, services: services, logger: logger,
            now: now, alone: !(bus is PostgresSessionBus) && providedBus == nil,
            onServerRunning: onServerRunning)
    } catch {
        // The application never ran, so its shutdown service will not close the database.
        try? await closeOpenedStore?()
        throw error
    }
}

/// Everything `buildApplication` does once the store is open.
private func assembleApplication(
    configuration: ServerConfiguration, store: any PodiumStore, bus: any SessionBus, services: [any Service], logger: Logger,
    now: @escaping @Sendable () -> Date, alone: Bool = false,
    onServerRunning: @escaping @Sendable (any Channel) async -> Void
) async throws -> (PodiumApplication, StartupReport) {
    let blobs = try FileBlobStore(root: configuration.blobDirectory)
    let accounts = Accounts(store: store, cost: configuration.bcryptCost, tokenLifetime: configuration.tokenLifetime, now: now)
    let hub = LiveHub(store: store, bus: bus, now: now, logger: logger)
    let pdfWorker = PDFIngestWorker(
        store: store, blobs: blobs, ingester: PDFIngester(limits: configuration.ingestLimits, runner: configuration.toolRunner),
        converter: OfficeConverter(
            limits: configuration.officeLimits, ingestLimits: configuration.ingestLimits, runner: configuration.toolRunner,
            logger: logger),
        workRoot: configuration.temporaryDirectory, logger: logger,
        roomUploadProcessed: { deck, room in
            await RoomController.uploadProcessed(deck, into: room, store: store, hub: hub, logger: logger)
        })
    let videoProbe = VideoProbe(limits: configuration.videoLimits, runner: configuration.toolRunner, logger: logger)
    let videoWorker = VideoPackagingWorker(
        store: store, blobs: blobs, probe: videoProbe,
        packager: VideoPackager(limits: configuration.videoLimits, runner: configuration.toolRunner, logger: logger),
        workRoot: configuration.temporaryDirectory, logger: logger)
    // The channel's radio: schedules in memory, reloaded when a track becomes ready.
    let radioStations = RadioStations(store: store, now: now, logger: logger)
    let audioPackager = AudioPackager(limits: configuration.videoLimits, runner: configuration.toolRunner, logger: logger)
    let radioWorker = RadioTrackWorker(
        store: store, blobs: blobs, packager: audioPackager, workRoot: configuration.temporaryDirectory, logger: logger,
        now: now,
        tracksChanged: { id in
            do { try await radioStations.reload(id) } catch { logger.error("radio \(id): could not reload: \(error)") }
        })
    let storyboardExporter = StoryboardExportWorker(
        store: store, blobs: blobs, runner: configuration.toolRunner, workRoot: configuration.temporaryDirectory, logger: logger)
    let jobs = JobQueue(
        store: store,
        workers: [pdfWorker as any JobWorker, videoWorker, storyboardExporter, radioWorker] + configuration.additionalJobWorkers,
        settings: JobQueue.Settings(
            concurrency: configuration.jobConcurrency, maxAttempts: configuration.jobAttempts,
            progressSaveInterval: configuration.jobProgressSaveInterval,
            pollInterval: configuration.jobPollInterval, heartbeatInterval: configuration.jobHeartbeatInterval),
        logger: logger, now: now)

    let (adminCreated, generatedPassword) = try await accounts.ensureAdmin(password: configuration.adminPassword, logger: logger)
    if adminCreated, configuration.seedDemoDeck {
        try await seedDemoDeck(configuration: configuration, store: store, blobs: blobs, jobs: jobs, now: now, logger: logger)
    }
    // The channel map's offline basemap: optional, so a missing or broken file only says so.
    var tiles: TileSet?
    if let file = configuration.basemapFile {
        do {
            tiles = try await TileSet.open(path: file.path, logger: logger)
        } catch {
            logger.notice("the channel map has no basemap: \(error)")
        }
    }
    let lanAddresses = NetworkAddresses.lanIPv4()
    let joinURLs = JoinURLBuilder(
        publicURL: configuration.publicURL, listenHost: configuration.host, port: configuration.port, lanAddresses: lanAddresses)

    let router = Router(context: AppRequestContext.self)
    router.middlewares.add(FormQueryMiddleware())
    router.middlewares.add(SecurityHeadersMiddleware())
    router.middlewares.add(DeadEndMiddleware(webRoot: configuration.webRoot))
    router.middlewares.add(
        FileMiddleware(
            configuration.webRoot.path, cacheControl: .init([(MediaType(type: .any), [.noCache])]), logger: logger))
    router.middlewares.add(AuthMiddleware(accounts: accounts, trustedProxies: configuration.trustedProxies))

    WebController(webRoot: configuration.webRoot, vendorRoots: configuration.vendorRoots, blobs: blobs, store: store)
        .addRoutes(to: router)
    Readiness(store: store, timeout: configuration.readinessTimeout).addRoutes(to: router)
    TileController(tiles: tiles).addRoutes(to: router)
    let api = router.group("api/v1")
    AuthController(
        accounts: accounts, tokenLifetime: configuration.tokenLifetime,
        failuresPerClient: AttemptLimiter(limit: configuration.loginAttempts, window: configuration.passcodeWindow),
        failuresPerAccount: AttemptLimiter(limit: configuration.loginAttempts * 4, window: configuration.passcodeWindow),
        now: now,
        // What the browser kept on the channel before signing in (favourites, positions) is the person's.
        signedIn: { viewerId, user in
            if let viewerId { try await store.adoptChannelViewer(from: viewerId, into: user.id) }
        }
    ).addRoutes(to: api)
    let decks = DeckController(
        store: store, blobs: blobs, jobs: jobs, uploadDirectory: configuration.temporaryDirectory,
        maxUploadBytes: configuration.maxUploadBytes, now: now)
    decks.addRoutes(to: api)
    FolderController(store: store, now: now).addRoutes(to: api)
    UserController(store: store, accounts: accounts, now: now).addRoutes(to: api)
    LimitsController(
        limits: .init(
            maxUploadBytes: configuration.maxUploadBytes, maxVideoUploadBytes: configuration.maxVideoUploadBytes,
            maxVideoSeconds: Int(configuration.videoLimits.maxDuration.components.seconds))
    ).addRoutes(to: api)
    // Protected media (channel videos, radio, library and stage clips) is served only at
    // `/stream/<token>/<file>`: per-person URLs signed with a key all nodes share (stored once).
    let streamKeyText = try await store.channelSetting(StreamTokens.settingName, orInsert: StreamTokens.newKeyText())
    guard let streamKey = StreamTokens.key(fromText: streamKeyText) else {
        throw StartupError(
            "the stored stream key is not 64 hexadecimal digits; remove it from channel_settings to make a new one")
    }
    let streamTokens = StreamTokens(keyBytes: streamKey, lifetime: configuration.channel.streamTokenLifetime, now: now)
    let clipFiles = StreamBlobSets(now: now)
    let videos = VideoController(
        store: store, blobs: blobs, jobs: jobs, probe: videoProbe, uploadDirectory: configuration.temporaryDirectory,
        maxUploadBytes: configuration.maxVideoUploadBytes, tokens: streamTokens, clipFiles: clipFiles, logger: logger, now: now)
    videos.addRoutes(to: api)
    JobController(store: store, queue: jobs).addRoutes(to: api)
    QuestionBankController(store: store, now: now).addRoutes(to: api)
    NotesController(store: store, hub: hub, now: now).addRoutes(to: api)
    ReportController(store: store, hub: hub, now: now).addRoutes(to: api)
    let sessions = SessionController(
        store: store, blobs: blobs, hub: hub, accounts: accounts, joinBase: joinURLs,
        workDirectory: configuration.temporaryDirectory, now: now)
    sessions.addRoutes(to: api)
    // Metrics on their own address (loopback by default), not on this listener: see MetricsServer.
    var metricsServices: [any Service] = []
    if let address = configuration.metricsAddress {
        metricsServices.append(
            MetricsServer(
                address: address, token: configuration.metricsToken, required: configuration.metricsAddressRequired,
                hub: hub, logger: logger, onListening: configuration.onMetricsListening,
                availability: (store as? SQLStore)?.availability))
    }
    // Storyboards on the same bus as the sessions, under this node's name; editor numbers that
    // cannot collide with another node's unless this node is alone.
    let storyboards = StoryboardHub(
        store: store, bus: bus, node: hub.nodeName, editorBase: alone ? 0 : StoryboardHub.randomEditorBase(), now: now,
        logger: logger)
    await bus.subscribe(storyboards)
    StoryboardController(store: store, hub: storyboards, now: now).addRoutes(to: api)
    StoryboardExportController(
        store: store, blobs: blobs, jobs: jobs, hub: storyboards, decks: decks, workDirectory: configuration.temporaryDirectory,
        now: now
    ).addRoutes(to: api)
    StoryboardImageController(store: store, blobs: blobs, uploadDirectory: configuration.temporaryDirectory)
        .addRoutes(to: api)
    RoomController(
        store: store, hub: hub, accounts: accounts, sessions: sessions, decks: decks, videos: videos, logger: logger, now: now
    )
    .addRoutes(to: api)

    // The channel (seed 004): every channel route knows its viewer; streams are per-person URLs
    // (signed with `streamTokens`, above), served by the source of their kind.
    let channelAPI = api.group("channel").add(middleware: ChannelViewerMiddleware())
    ChannelController(configuration: configuration.channel).addRoutes(to: channelAPI)
    let channelVideoBlobs = ChannelVideoBlobSets(now: now)
    // Admin routes first: their constant paths (`videos/order`, `videos/library`) must not be
    // read as a video id.
    ChannelVideoAdminController(store: store, blobSets: channelVideoBlobs, now: now).addRoutes(to: channelAPI)
    ChannelVideoController(store: store, tokens: streamTokens, configuration: configuration.channel, now: now)
        .addRoutes(to: channelAPI)
    ChannelPlaceController(
        store: store, blobs: blobs, channel: configuration.channel, uploadDirectory: configuration.temporaryDirectory,
        tiles: tiles, now: now
    ).addRoutes(to: channelAPI)
    ChannelQuizController(store: store, channel: configuration.channel, now: now).addRoutes(to: channelAPI)
    try await radioStations.load()
    let radioListening = RadioListening(
        store: store, allowance: configuration.channel.radioDailyAllowance,
        listenersPerAddress: configuration.channel.radioListenersPerAddress, timeZone: configuration.channel.timeZone,
        logger: logger, now: now)
    ChannelRadioController(
        store: store, stations: radioStations, listening: radioListening, tokens: streamTokens, jobs: jobs, blobs: blobs,
        packager: audioPackager, uploadDirectory: configuration.temporaryDirectory,
        maxUploadBytes: configuration.maxVideoUploadBytes, configuration: configuration.channel, logger: logger, now: now
    ).addRoutes(to: channelAPI)
    var publications: [String: any ChannelPublications] = [:]
    publications["video"] = ChannelVideoPublications(store: store)
    publications["place"] = ChannelPlacePublications(store: store)
    publications["quiz"] = ChannelQuizPublications(store: store)
    publications[RadioStreamSource.kind] = RadioPublications(stations: radioStations)
    ChannelFeedController(store: store, parts: publications, now: now).addRoutes(to: channelAPI)
    SharePageController(parts: publications, channelName: configuration.channel.name, publicURL: configuration.publicURL)
        .addRoutes(to: router)
    var streamSources: [String: any StreamSource] = [:]
    streamSources[RadioStreamSource.kind] = RadioStreamSource(
        stations: radioStations, listening: radioListening, blobs: blobs, configuration: configuration.channel, now: now)
    streamSources["video"] = VideoStreamSource(store: store, blobs: blobs, blobSets: channelVideoBlobs)
    streamSources[ClipStreamSource.kind] = ClipStreamSource(store: store, blobs: blobs, blobSets: clipFiles)
    StreamController(tokens: streamTokens, sources: streamSources)
        .addRoutes(to: router.group("stream").add(middleware: ChannelViewerMiddleware()))

    let live = LiveConnection(
        hub: hub, accounts: accounts,
        videos: LibraryStageVideos(store: store, tokens: streamTokens, lifetime: configuration.stageVideoLinkLifetime),
        passcodesPerClient: Backoff(
            .init(
                freeFailures: configuration.passcodeAttempts, firstDelay: configuration.passcodeDelay,
                maxDelay: configuration.passcodeMaxDelay, memory: configuration.passcodeMemory)),
        passcodesPerSession: Backoff(
            .init(
                freeFailures: configuration.passcodeSessionAttempts, firstDelay: configuration.passcodeSessionDelay,
                maxDelay: configuration.passcodeSessionMaxDelay, memory: configuration.passcodeMemory)),
        outboxLimit: configuration.outboxLimit,
        heartbeat: Outbox.Heartbeat(
            interval: TimeAmount(configuration.livePingInterval), silenceLimit: TimeAmount(configuration.liveSilenceLimit)),
        messageRate: configuration.socketMessageRate, helloTimeout: TimeAmount(configuration.liveHelloTimeout),
        hellos: Admission(limit: configuration.helloConcurrency, patience: TimeAmount(configuration.helloPatience)), now: now,
        logger: logger)
    // The sockets: the routes decide (origin, session code) and accept the upgrade; the
    // sockets then run on their own handlers (see PodiumServerChannel).
    let origins = OriginCheck(publicURL: configuration.publicURL)
    router.get("/api/v1/sessions/:code/live") { request, context -> Response in
        try origins.verifyUpgrade(request)
        // An unknown code is upgraded and told `not_found` at hello: a browser's WebSocket
        // cannot read an HTTP refusal, and would only reconnect.
        context.socketUpgrade.accept(live.accept(code: context.parameters.get("code") ?? "", context: context))
        return Response(status: .ok)
    }
    let storyboardSockets = StoryboardSocket.Context(
        hub: storyboards, store: store, accounts: accounts, outboxLimit: configuration.outboxLimit,
        heartbeat: Outbox.Heartbeat(
            interval: TimeAmount(configuration.livePingInterval), silenceLimit: TimeAmount(configuration.liveSilenceLimit)),
        helloTimeout: TimeAmount(configuration.liveHelloTimeout), messageRate: configuration.socketMessageRate, now: now,
        logger: logger)
    router.get("/api/v1/storyboards/:id/live") { request, context -> Response in
        try origins.verifyUpgrade(request)
        context.socketUpgrade.accept(
            StoryboardSocket.accept(storyboard: context.parameters.get("id") ?? "", context: storyboardSockets, request: context))
        return Response(status: .ok)
    }
    router.get("/api/v1/lobby") { request, context -> Response in
        try origins.verifyUpgrade(request)
        context.socketUpgrade.accept(Lobby.accept(hub: hub, context: context, logger: logger))
        return Response(status: .ok)
    }

    // Garbage collection of blobs on a schedule, unless turned off (docs/operations.md).
    let blobCollection: [any Service] = [configuration.blobCollectionInterval].compactMap { $0 }.map { interval in
        BlobCollectionService(
            store: store, root: configuration.blobDirectory,
            settings: .init(
                interval: interval, check: configuration.blobCollectionCheck,
                collector: BlobCollector.Settings(grace: configuration.blobCollectionGrace)),
            logger: logger, now: now)
    }

    let nodeServices: [any Service] = [hub, jobs, radioListening] + metricsServices
    let app = Application(
        router: router,
        server: PodiumServerChannel.builder(
            router: router, maxFrameSize: max(LiveConnection.maxMessageBytes, StoryboardSocket.maxMessageBytes),
            idleTimeout: TimeAmount(configuration.httpIdleTimeout),
            sendBuffer: configuration.connectionSendBuffer),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Podium"),
        // Services start in order and stop in reverse: the database closes last, the bus's
        // listening connection (a PostgresSessionBus) after the hub.
        services: services + [bus as? any Service].compactMap { $0 } + nodeServices
            + blobCollection
            + [tiles.map { CloseOnShutdown(name: "basemap", close: $0.close) as any Service }].compactMap { $0 },
        onServerRunning: onServerRunning,
        logger: logger)
    let report = StartupReport(
        generatedAdminPassword: generatedPassword, adminCreated: adminCreated, lanAddresses: lanAddresses,
        drainLiveClients: { await hub.drain() }, liveSessionCount: { try await store.liveSessions().count })
    return (app, report)
}

/// Runs `close` when the application shuts down gracefully.
struct CloseOnShutdown: Service {
    let name: String
    let close: @Sendable () async throws -> Void

    func run() async throws {
        try? await gracefulShutdown()
        try await close()
    }
}

/// Puts the demo deck into the first admin's library, so a new server has something to present.
private func seedDemoDeck(
    configuration: ServerConfiguration, store: any PodiumStore, blobs: any BlobStore, jobs: JobQueue,
    now: @escaping @Sendable () -> Date, logger: Logger
) async throws {
    guard FileManager.default.fileExists(atPath: configuration.demoDeck.path),
        let admin = try await store.user(email: "admin")
    else {
        logger.notice("no demo deck at \(configuration.demoDeck.path); the library starts empty")
        return
    }
    let attributes = try FileManager.default.attributesOfItem(atPath: configuration.demoDeck.path)
    let deck = DeckRecord(
        id: IDs.make("d"), ownerId: admin.id, folderId: nil, title: "Welcome to Podium", status: .processing,
        sourceHash: try blobs.put(fileAt: configuration.demoDeck, fileExtension: "pdf"),
        sourceBytes: (attributes[.size] as? Int) ?? 0, createdAt: now())
    try await store.insertDeck(deck)
    _ = try await jobs.enqueue(
        kind: DeckIngestRequest.kind, subjectId: deck.id, ownerId: admin.id, payload: DeckIngestRequest(useDocumentTitle: false))
}

/// `GET /readyz`: whether this node can serve, i.e. its store answers a trivial query in time.
/// A load balancer takes a node whose database is gone out of rotation; `/healthz` only says
/// that the process answers.
struct Readiness {
    let store: any StoreHealth
    let timeout: Duration

    struct Ready: ResponseEncodable {
        let status = "ready"
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/readyz") { _, _ -> Ready in
            guard await check() else {
                throw APIError(
                    .serviceUnavailable, code: "store_unavailable", message: "The database does not answer.")
            }
            return Ready()
        }
    }

    /// True when the store answered within `timeout`. The answer does not wait for a ping that
    /// hangs (a connection that cannot be made): it is left behind, cancelled.
    func check() async -> Bool {
        let (answers, answer) = AsyncStream.makeStream(of: Bool.self)
        let ping = Task { answer.yield((try? await store.ping()) != nil) }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            answer.yield(false)
        }
        var iterator = answers.makeAsyncIterator()
        let ready = await iterator.next() ?? false
        answer.finish()
        ping.cancel()
        timer.cancel()
        return ready
    }
}
