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

/// Builds the whole server: the store and the bus, the platform (blobs, accounts, live hub, job
/// queue, stream tokens), then the features (see ``ServerFeature``). `podium serve` and the tests
/// call this same function.
///
/// - Parameters:
///   - configuration: where data lives, what to listen on, limits.
///   - stores: the store's parts to use (see ``Stores``); nil opens PostgreSQL when
///     `configuration.databaseURL` is set, else SQLite in the data directory (migrations run here,
///     before the server accepts requests).
///   - bus: how this node hears of other nodes' events and presence; nil: a ``PostgresSessionBus``
///     when `configuration.databaseURL` is set, else this node alone.
///   - now: the clock.
///   - onServerRunning: called with the listening channel (its local address tells the port).
public func buildApplication(
    configuration: ServerConfiguration,
    stores providedStores: Stores? = nil,
    bus providedBus: (any SessionBus)? = nil,
    logger: Logger = Logger(label: "podium"),
    now: @escaping @Sendable () -> Date = { Date() },
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
) async throws -> (PodiumApplication, StartupReport) {
    let fileManager = FileManager.default
    try fileManager.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
    try fileManager.createDirectory(at: configuration.temporaryDirectory, withIntermediateDirectories: true)
    let stores: Stores
    var services: [any Service] = []
    var closeOpenedStore: (@Sendable () async throws -> Void)?
    if let providedStores {
        stores = providedStores
    } else {
        let opened =
            if let url = configuration.databaseURL {
                try await SQLStore.openPostgres(url: url, maximumConnections: configuration.databaseConnections, logger: logger)
            } else {
                try await SQLStore.openSQLite(path: configuration.databasePath, logger: logger)
            }
        stores = Stores(opened)
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
            configuration: configuration, stores: stores, bus: bus, services: services, logger: logger,
            now: now, alone: !(bus is PostgresSessionBus) && providedBus == nil,
            onServerRunning: onServerRunning)
    } catch {
        // The application never ran, so its shutdown service will not close the database.
        try? await closeOpenedStore?()
        throw error
    }
}

/// ``buildApplication(configuration:stores:bus:logger:now:onServerRunning:)`` with every part of
/// the store taken from `store`.
public func buildApplication(
    configuration: ServerConfiguration,
    store: any PodiumStore,
    bus: (any SessionBus)? = nil,
    logger: Logger = Logger(label: "podium"),
    now: @escaping @Sendable () -> Date = { Date() },
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
) async throws -> (PodiumApplication, StartupReport) {
    try await buildApplication(
        configuration: configuration, stores: Stores(store), bus: bus, logger: logger, now: now,
        onServerRunning: onServerRunning)
}

/// Everything `buildApplication` does once the store is open: the platform's pieces (blobs,
/// accounts, the live hub, the job queue with every feature's workers, the stream tokens), then
/// the features in the order their routes are added, then the application. A feature is a folder
/// with a ``ServerFeature`` type; a new one is one more line here.
private func assembleApplication(
    configuration: ServerConfiguration, stores: Stores, bus: any SessionBus, services: [any Service], logger: Logger,
    now: @escaping @Sendable () -> Date, alone: Bool = false,
    onServerRunning: @escaping @Sendable (any Channel) async -> Void
) async throws -> (PodiumApplication, StartupReport) {
    let blobs = try FileBlobStore(root: configuration.blobDirectory)
    let accounts = Accounts(
        store: stores.users, cost: configuration.bcryptCost, tokenLifetime: configuration.tokenLifetime, now: now)
    let hub = LiveHub(stores: LiveStores(stores), bus: bus, now: now, logger: logger)
    // The features' long work, built first: the one job queue runs it all.
    let libraryWork = LibraryFeature.Workers(
        configuration: configuration, stores: stores, blobs: blobs, logger: logger, now: now,
        roomUploadProcessed: RoomsFeature.uploadProcessed(stores: stores, hub: hub, logger: logger))
    let storyboardWork = StoryboardsFeature.Workers(
        configuration: configuration, store: stores.storyboards, blobs: blobs, logger: logger)
    let channelWork = ChannelFeature.Workers(
        configuration: configuration, store: stores.channelRadio, blobs: blobs, logger: logger, now: now)
    let recordingWork = RecordingsFeature.Workers(configuration: configuration, stores: stores, logger: logger)
    let replayExportWork = ReplayExportFeature.Workers(
        configuration: configuration, stores: stores, blobs: blobs, logger: logger, now: now)
    let jobs = JobsFeature(
        configuration: configuration, stores: stores,
        workers: libraryWork.all + storyboardWork.all + channelWork.all + recordingWork.all + replayExportWork.all,
        logger: logger, now: now)

    let (adminCreated, generatedPassword) = try await accounts.ensureAdmin(password: configuration.adminPassword, logger: logger)
    if adminCreated, configuration.seedDemoDeck {
        try await LibraryFeature.seedDemoDeck(
            configuration: configuration, stores: stores, blobs: blobs, jobs: jobs.queue, now: now, logger: logger)
    }
    let platform = Platform(
        configuration: configuration, stores: stores, bus: bus, blobs: blobs, accounts: accounts, hub: hub, jobs: jobs.queue,
        streamTokens: try await streamTokens(configuration: configuration, store: stores.channelSettings, now: now),
        logger: logger, now: now)
    let lanAddresses = NetworkAddresses.lanIPv4()
    // HTTPS served here (Platform/TLS), when configured.
    let tls = try TLSFeature(configuration: configuration, logger: logger, now: now)
    let joinURLs = JoinURLBuilder(
        publicURL: configuration.publicURL, listenHost: configuration.host, port: configuration.port, lanAddresses: lanAddresses,
        scheme: tls.scheme)

    // The features, in the order their routes are added: where two features' routes could match
    // one path, the first added wins (the channel's admin routes come before its video ids, inside
    // ChannelFeature).
    let web = WebFeature(platform)
    let library = LibraryFeature(platform, workers: libraryWork)
    let sessions = SessionsFeature(platform, joinBase: joinURLs)
    let storyboards = await StoryboardsFeature(platform, workers: storyboardWork, decks: library.decks, alone: alone)
    let rooms = RoomsFeature(platform, sessions: sessions.sessions, decks: library.decks, videos: library.videos)
    let uploads = UploadsFeature(platform, decks: library.decks, videos: library.videos, rooms: rooms.rooms)
    let channel = try await ChannelFeature(platform, workers: channelWork, otherStreams: library.streamSources)
    let metrics = MetricsFeature(platform)
    let live = LiveFeature(platform)
    let replay = ReplayFeature(platform, sessions: sessions.sessions)
    let recordings = RecordingsFeature(platform, access: replay.access)
    let replayExports = ReplayExportFeature(
        platform, workers: replayExportWork, videos: library.videos, channelAdmin: channel.videoAdmin)
    let features: [any ServerFeature] = [
        web, AccountsFeature(platform), OIDCFeature(platform), library, jobs, sessions, storyboards, rooms, uploads,
        channel, live,
        LTIFeature(platform),
        replay,
        recordings,
        replayExports,
    ]
    // Hummingbird sends it on every answer; files answered below the router send it too.
    let serverName = "Podium"
    let router = Router(context: AppRequestContext.self)
    // Outermost: HSTS and `Secure` go on every answer, whatever made it.
    router.add(middleware: tls.middleware)
    web.addMiddlewares(to: router)
    let api = router.group("api/v1")
    for feature in features { feature.addRoutes(to: api, router: router) }

    let app = Application(
        router: router,
        server: PodiumServerChannel.builder(
            router: router, liveUpgrade: live.upgrade,
            maxFrameSize: max(LiveConnection.maxMessageBytes, StoryboardSocket.maxMessageBytes),
            idleTimeout: TimeAmount(configuration.httpIdleTimeout),
            sendBuffer: configuration.connectionSendBuffer, fileRegions: configuration.sendfile,
            fileAnswers: FileAnswers(streams: channel.streams, blobs: blobs, serverName: serverName), tls: tls.box),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: serverName),
        // Services start in order and stop in reverse: the database closes last, the bus's
        // listening connection (a PostgresSessionBus) after the hub, the basemap first.
        services: services + [bus as? any Service].compactMap { $0 } + [hub, jobs.queue] + channel.services
            + metrics.services + jobs.blobCollection + uploads.services + channel.basemapServices + tls.services
            + recordings.services + library.services,
        onServerRunning: { [httpsPort = tls.httpsPort] channel in
            if let port = channel.localAddress?.port { httpsPort.set(port) }
            await onServerRunning(channel)
        },
        logger: logger)
    let report = StartupReport(
        generatedAdminPassword: generatedPassword, adminCreated: adminCreated, lanAddresses: lanAddresses,
        drainLiveClients: { await hub.drain() }, liveSessionCount: { try await stores.sessions.liveSessions().count })
    return (app, report)
}

/// The signer of protected media's URLs. Protected media (channel videos, radio, library and stage
/// clips) is served only at `/stream/<token>/<file>`: per-person URLs signed with a key all nodes
/// share (stored once, by the first node that starts).
private func streamTokens(
    configuration: ServerConfiguration, store: any ChannelSettingsStore, now: @escaping @Sendable () -> Date
) async throws -> StreamTokens {
    let streamKeyText = try await store.channelSetting(StreamTokens.settingName, orInsert: StreamTokens.newKeyText())
    guard let streamKey = StreamTokens.key(fromText: streamKeyText) else {
        throw StartupError(
            "the stored stream key is not 64 hexadecimal digits; remove it from channel_settings to make a new one")
    }
    return StreamTokens(keyBytes: streamKey, lifetime: configuration.channel.streamTokenLifetime, now: now)
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
