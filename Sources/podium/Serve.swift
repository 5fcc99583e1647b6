import ArgumentParser
import Foundation
import Hummingbird
import Logging
import NIOCore
import PodiumMedia
import PodiumServer
import PodiumStore
import ServiceLifecycle
import UnixSignals

/// `podium serve`: runs the server until SIGINT or SIGTERM, then shuts down gracefully.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the Podium server.")

    @Option(help: "Address to listen on (env PODIUM_HOST). All interfaces by default, so devices on the network can join.")
    var host: String?

    @Option(help: "Port to listen on (env PODIUM_PORT).")
    var port: Int?

    @Option(help: "Directory for the database and files (env PODIUM_DATA_DIR).")
    var dataDir: String?

    @Option(
        help: ArgumentHelp(
            "PostgreSQL database, postgres://user:password@host:5432/database (env PODIUM_DATABASE_URL). SQLite in the data directory by default.",
            valueName: "url"))
    var database: String?

    @Option(help: "Most PostgreSQL connections this node opens (env PODIUM_DATABASE_CONNECTIONS; 20).")
    var databaseConnections: Int?

    @Option(
        help:
            "Seconds between checks of every live session against PostgreSQL, however hints fared (env PODIUM_BUS_CHECK_SECONDS; 5)."
    )
    var busCheckSeconds: Double?

    @Option(help: "Directory of blobs, shared by every node on one database (env PODIUM_BLOB_DIR). <data-dir>/blobs by default.")
    var blobDir: String?

    @Option(help: "Directory of the browser client (env PODIUM_WEB_ROOT). Defaults to ./Public.")
    var webRoot: String?

    @Option(
        help:
            "Directory of the browser libraries scripts/setup installs from PyPI (env PODIUM_VENDOR_DIR). Defaults to ./.build/vendor."
    )
    var vendorDir: String?

    @Option(
        help:
            "The channel map's offline basemap, an MBTiles file (env PODIUM_BASEMAP; '' for none). Defaults to the one scripts/setup installs in the vendor directory."
    )
    var basemap: String?

    @Option(help: "The URL people use to reach this server, for join links and QR codes (env PODIUM_PUBLIC_URL).")
    var publicURL: String?

    @Option(
        help:
            "Mail relay for invitations, sign-ups and password resets, smtp://user:password@host:port (STARTTLS when the relay offers it) or smtps://… (TLS from the start, port 465) (env PODIUM_SMTP_URL; or PODIUM_SMTP_HOST, _PORT, _USER, _PASSWORD; PODIUM_SMTP_CA_FILE for a CA of your own). Without one, an admin passes invitation links on by hand."
    )
    var smtpUrl: String?

    @Option(help: "Sender of that mail, e.g. 'Podium <podium@school.example>' (env PODIUM_MAIL_FROM).")
    var mailFrom: String?

    @Option(
        help:
            "Language of mail whose reader's language is not known, one of the pages' (en, de, fr, es, cs, ar, zh-Hans; env PODIUM_MAIL_LANGUAGE). Otherwise each message is in its reader's language."
    )
    var mailLanguage: String?

    @Flag(help: "Let visitors ask for an account, which an admin approves; needs a mail relay (env PODIUM_ALLOW_SIGN_UP=1).")
    var allowSignUp = false

    @Option(help: "Largest PDF accepted, in megabytes (env PODIUM_MAX_UPLOAD_MB).")
    var maxUploadMB: Int?

    @Option(help: "Long side of a slide's largest image, in pixels (env PODIUM_PAGE_IMAGE_SIZE; 1920: 3840 for 4K projectors).")
    var pageImageSize: Int?

    @Option(help: "Largest video or audio file accepted, in megabytes (env PODIUM_MAX_VIDEO_UPLOAD_MB; 2048).")
    var maxVideoUploadMB: Int?

    @Option(help: "Largest caption file (WebVTT or SRT) accepted, in kilobytes (env PODIUM_MAX_CAPTION_KB; 1024).")
    var maxCaptionKB: Int?

    @Option(help: "How long a resumable upload is kept after its last piece, in seconds (env PODIUM_UPLOAD_EXPIRY; 86400).")
    var uploadExpiry: Int?

    @Option(help: "Longest clip accepted, in minutes (env PODIUM_MAX_VIDEO_MINUTES; 180).")
    var maxVideoMinutes: Int?

    @Option(help: "Largest video picture accepted, WIDTHxHEIGHT (env PODIUM_MAX_VIDEO_SIZE; 3840x2160).")
    var maxVideoSize: String?

    @Option(help: "Longest the packaging of one clip may take, in minutes (env PODIUM_VIDEO_PACKAGING_MINUTES; 120).")
    var videoPackagingMinutes: Int?

    @Option(
        help:
            "Loudness every clip's sound is normalised to at packaging, in LUFS (EBU R128), or off (env PODIUM_LOUDNESS_TARGET; -16)."
    )
    var loudnessTarget: String?

    @Option(
        help:
            "Hours the stream URL of a clip put on a stage works; putting it on again makes a new one (env PODIUM_STAGE_VIDEO_LINK_HOURS; 12)."
    )
    var stageVideoLinkHours: Double?

    @Option(help: "Log level: trace, debug, info, notice, warning, error (env LOG_LEVEL).")
    var logLevel: String?

    @Option(help: "Messages per second one live socket may send, bursts of twice that (env PODIUM_SOCKET_MESSAGE_RATE; 100).")
    var socketMessageRate: Double?

    @Option(help: "The channel's name, shown on its pages (env PODIUM_CHANNEL_NAME).")
    var channelName: String?

    @Option(
        help: "Where people become members of the channel, a URL shown with each members-only limit (env PODIUM_MEMBERSHIP_URL).")
    var membershipUrl: String?

    @Option(
        help:
            "Time zone whose midnight resets the radio's daily allowance, e.g. Europe/Prague (env PODIUM_CHANNEL_TIME_ZONE; the machine's)."
    )
    var channelTimeZone: String?

    @Option(help: "Minutes of radio a non-member may listen to a day (env PODIUM_RADIO_DAILY_MINUTES; 15).")
    var radioDailyMinutes: Double?

    @Option(
        help:
            "Minutes a channel stream URL (a video's, the radio's) works once given out; the page then asks for a new one (env PODIUM_STREAM_LINK_MINUTES; 360)."
    )
    var streamLinkMinutes: Double?

    @Option(
        help:
            "Daily radio allowances the non-members of one client address (an IPv6 /64) share, so a dropped cookie gives no fresh one (env PODIUM_RADIO_LISTENERS_PER_ADDRESS; 40; 0 counts people only)."
    )
    var radioListenersPerAddress: Int?

    @Option(
        help: ArgumentHelp(
            "Where Prometheus reads GET /metrics, HOST:PORT or [IPv6]:PORT; off for nowhere (env PODIUM_METRICS_ADDRESS; 127.0.0.1:9464). Never the main port. With PODIUM_METRICS_TOKEN set, scrapers must send it as a bearer token.",
            valueName: "address"))
    var metricsAddress: String?

    @Flag(help: "Do not advertise the server on the local network with DNS-SD (env PODIUM_NO_DISCOVERY=1).")
    var noDiscovery = false

    @Option(help: "The name the local network sees (env PODIUM_DISCOVERY_NAME; \"Podium on <host>\").")
    var discoveryName: String?

    /// Single sign-on with OpenID Connect (ServeOIDC.swift).
    @OptionGroup var oidc: OIDCOptions

    @Flag(
        help:
            "Send files by reading them into buffers, not with sendfile (env PODIUM_NO_SENDFILE=1): for a file system where sendfile misbehaves."
    )
    var noSendfile = false

    @Option(
        help: "Serve HTTPS with this PEM certificate (chain), re-read when it changes (env PODIUM_TLS_CERT; needs --tls-key).")
    var tlsCert: String?

    @Option(help: "The PEM private key of --tls-cert (env PODIUM_TLS_KEY).")
    var tlsKey: String?

    @Option(
        help:
            "With HTTPS: a plain HTTP port that redirects to HTTPS and answers ACME challenges (env PODIUM_HTTP_PORT; 80 when --port is 443 or with --acme-domain, otherwise none)."
    )
    var httpPort: Int?

    @Option(
        help:
            "Get and renew a certificate for this public name with ACME (Let's Encrypt by default), HTTP-01 on the HTTP port (env PODIUM_ACME_DOMAIN)."
    )
    var acmeDomain: String?

    @Option(help: "The ACME account's contact address (env PODIUM_ACME_EMAIL).")
    var acmeEmail: String?

    @Option(help: "The ACME CA's directory URL (env PODIUM_ACME_DIRECTORY; Let's Encrypt's).")
    var acmeDirectory: String?

    func run() async throws {
        // One event loop per CPU the process may use: pinned to one core, two loops would only
        // take turns on it, and a fan-out would pay for the switches.
        if let cpus = CPUAffinity.count, cpus < System.coreCount {
            NIOSingletons.groupLoopCountSuggestion = cpus
        }
        let environment = ProcessInfo.processInfo.environment
        var logger = Logger(label: "podium")
        logger.logLevel = (logLevel ?? environment["LOG_LEVEL"]).flatMap(Logger.Level.init(rawValue:)) ?? .info

        let dataDirectory = dataDir ?? environment["PODIUM_DATA_DIR"] ?? "data"
        let webRootPath = webRoot ?? environment["PODIUM_WEB_ROOT"] ?? "Public"
        var configuration = ServerConfiguration(
            dataDirectory: URL(fileURLWithPath: dataDirectory, isDirectory: true),
            webRoot: URL(fileURLWithPath: webRootPath, isDirectory: true))
        if let vendor = (vendorDir ?? environment["PODIUM_VENDOR_DIR"]).flatMap({ $0.isEmpty ? nil : $0 }) {
            configuration.vendorRoots = [configuration.vendorRoots[0], URL(fileURLWithPath: vendor, isDirectory: true)]
            configuration.basemapFile = ServerConfiguration.basemap(inVendor: URL(fileURLWithPath: vendor, isDirectory: true))
        }
        if let basemap = basemap ?? environment["PODIUM_BASEMAP"] {
            configuration.basemapFile = basemap.isEmpty ? nil : URL(fileURLWithPath: basemap)
        }
        configuration.host = host ?? environment["PODIUM_HOST"] ?? "0.0.0.0"
        configuration.port = try port ?? environment["PODIUM_PORT"].map(Self.parsePort) ?? 8080
        configuration.publicURL = publicURL ?? environment["PODIUM_PUBLIC_URL"]
        configuration.smtpRelay = try Self.smtpRelay(url: smtpUrl, environment: environment)
        if let from = (mailFrom ?? environment["PODIUM_MAIL_FROM"]).flatMap({ $0.isEmpty ? nil : $0 }) {
            configuration.mailFrom = from
        }
        if let language = (mailLanguage ?? environment["PODIUM_MAIL_LANGUAGE"]).flatMap({ $0.isEmpty ? nil : $0 }) {
            configuration.mailLanguage = language
        }
        configuration.allowSignUp = allowSignUp || environment["PODIUM_ALLOW_SIGN_UP"] == "1"
        configuration.databaseURL = (database ?? environment["PODIUM_DATABASE_URL"]).flatMap { $0.isEmpty ? nil : $0 }
        if let connections = databaseConnections ?? environment["PODIUM_DATABASE_CONNECTIONS"].flatMap(Int.init) {
            guard connections >= 2 else { throw ValidationError("--database-connections must be at least 2") }
            configuration.databaseConnections = connections
        }
        if let seconds = try busCheckSeconds
            ?? environment["PODIUM_BUS_CHECK_SECONDS"].map({ text in
                guard let seconds = Double(text) else { throw ValidationError("PODIUM_BUS_CHECK_SECONDS must be a number") }
                return seconds
            })
        {
            guard seconds >= 0.1, seconds.isFinite else { throw ValidationError("--bus-check-seconds must be 0.1 or more") }
            configuration.busCheckInterval = .milliseconds(Int(seconds * 1000))
        }
        if let blobs = (blobDir ?? environment["PODIUM_BLOB_DIR"]).flatMap({ $0.isEmpty ? nil : $0 }) {
            configuration.blobDirectory = URL(fileURLWithPath: blobs, isDirectory: true)
        }
        configuration.adminPassword = environment["PODIUM_ADMIN_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
        if let proxies = environment["PODIUM_TRUSTED_PROXIES"] {
            configuration.trustedProxies = Set(proxies.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        let noSendfileEnv = environment["PODIUM_NO_SENDFILE"].map { ["1", "true", "yes"].contains($0.lowercased()) } ?? false
        configuration.sendfile = !(noSendfile || noSendfileEnv)
        if let megabytes = maxUploadMB ?? environment["PODIUM_MAX_UPLOAD_MB"].flatMap(Int.init) {
            configuration.maxUploadBytes = megabytes * 1024 * 1024
        }
        if let pixels = pageImageSize ?? environment["PODIUM_PAGE_IMAGE_SIZE"].flatMap(Int.init) {
            guard (120...8192).contains(pixels) else { throw ValidationError("--page-image-size must be 120 to 8192 pixels") }
            configuration.ingestLimits.pageImageSize = pixels
        }
        if let converter = environment["PODIUM_OFFICE_CONVERTER"].flatMap({ $0.isEmpty ? nil : $0 }) {
            configuration.officeLimits.converter = converter
        }
        if let seconds = environment["PODIUM_OFFICE_TIMEOUT_SECONDS"].flatMap(Int.init), seconds > 0 {
            configuration.officeLimits.timeout = .seconds(seconds)
        }
        if let megabytes = maxVideoUploadMB ?? environment["PODIUM_MAX_VIDEO_UPLOAD_MB"].flatMap(Int.init) {
            configuration.maxVideoUploadBytes = megabytes * 1024 * 1024
        }
        if let kilobytes = maxCaptionKB ?? environment["PODIUM_MAX_CAPTION_KB"].flatMap(Int.init) {
            guard kilobytes > 0 else { throw ValidationError("--max-caption-kb must be a positive number") }
            configuration.maxCaptionBytes = kilobytes * 1024
        }
        if let seconds = uploadExpiry ?? environment["PODIUM_UPLOAD_EXPIRY"].flatMap(Int.init) {
            guard seconds > 0 else { throw ValidationError("--upload-expiry must be a positive number of seconds") }
            configuration.uploadExpiry = TimeInterval(seconds)
        }
        // Tests only: hold packaging after a clip's first rendition while this file exists.
        if let hold = environment["PODIUM_TEST_LADDER_HOLD"].flatMap({ $0.isEmpty ? nil : $0 }) {
            configuration.videoLadderHold = URL(fileURLWithPath: hold)
        }
        if let minutes = maxVideoMinutes ?? environment["PODIUM_MAX_VIDEO_MINUTES"].flatMap(Int.init) {
            guard minutes > 0 else { throw ValidationError("--max-video-minutes must be a positive number") }
            configuration.videoLimits.maxDuration = .seconds(minutes * 60)
        }
        if let size = maxVideoSize ?? environment["PODIUM_MAX_VIDEO_SIZE"] {
            let sides = size.lowercased().split(separator: "x").compactMap { Int($0) }
            guard sides.count == 2, sides.allSatisfy({ $0 > 0 }) else {
                throw ValidationError("--max-video-size must be WIDTHxHEIGHT, like 1920x1080")
            }
            configuration.videoLimits.maxWidth = sides[0]
            configuration.videoLimits.maxHeight = sides[1]
        }
        if let minutes = videoPackagingMinutes ?? environment["PODIUM_VIDEO_PACKAGING_MINUTES"].flatMap(Int.init) {
            guard minutes > 0 else { throw ValidationError("--video-packaging-minutes must be a positive number") }
            configuration.videoLimits.packagingTimeout = .seconds(minutes * 60)
        }
        if let target = loudnessTarget ?? environment["PODIUM_LOUDNESS_TARGET"] {
            if target.lowercased() == "off" {
                configuration.videoLimits.loudness = nil
            } else {
                guard let lufs = Double(target), (-70.0...(-5.0)).contains(lufs) else {
                    throw ValidationError("--loudness-target must be LUFS from -70 to -5 (like -16), or off")
                }
                configuration.videoLimits.loudness = LoudnessTarget(integrated: lufs)
            }
        }
        if let hours = try stageVideoLinkHours
            ?? environment["PODIUM_STAGE_VIDEO_LINK_HOURS"].map({ text in
                guard let value = Double(text) else { throw ValidationError("PODIUM_STAGE_VIDEO_LINK_HOURS must be a number") }
                return value
            })
        {
            guard hours > 0, hours.isFinite else { throw ValidationError("--stage-video-link-hours must be a positive number") }
            configuration.stageVideoLinkLifetime = hours * 3600
        }
        if let rate = try socketMessageRate ?? environment["PODIUM_SOCKET_MESSAGE_RATE"].map(Self.parseRate) {
            guard rate > 0, rate.isFinite else { throw ValidationError("--socket-message-rate must be a positive number") }
            configuration.socketMessageRate = rate
        }
        try Self.readChannel(self, environment, into: &configuration.channel)
        try Self.readMetrics(self, environment, into: &configuration)
        try Self.readPasscodeLimits(environment, into: &configuration)
        try Self.readBlobCollection(environment, into: &configuration)
        configuration.oidc = try oidc.settings(environment)
        try Self.readTLS(self, environment, into: &configuration)
        guard FileManager.default.fileExists(atPath: configuration.webRoot.appendingPathComponent("index.html").path) else {
            throw ValidationError(
                "No browser client at \(configuration.webRoot.path). Run from the repository, or pass --web-root.")
        }

        // One server per data directory: a second would share SQLite's file and the uploads, and
        // `podium restore` must not write under a running server (see DataDirectoryLock).
        let lock = try DataDirectoryLock.acquire(configuration.dataDirectory, holder: "serve")
        defer { lock.release() }

        let reportBox = ReportBox()
        let configuredPort = configuration.port
        let listenHost = configuration.host
        let scheme = configuration.tls == nil ? "http" : "https"
        let discovery = Self.discovery(self, environment, logger: logger, report: reportBox)
        let (app, report) = try await buildApplication(
            configuration: configuration, logger: logger,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuredPort
                Self.printBanner(host: listenHost, port: port, report: await reportBox.value, scheme: scheme)
                if let discovery {
                    discovery.serverListening(port: port)
                    Task {
                        let outcome = await discovery.firstOutcome()
                        FileHandle.standardOutput.write(Data("  \(outcome.message)\n".utf8))
                    }
                } else {
                    FileHandle.standardOutput.write(Data("  Not advertised on the local network (--no-discovery).\n".utf8))
                }
            })
        await reportBox.set(report)
        // Our own group rather than app.runService(): services stop in reverse order, so the
        // drain (last) tells live clients to reconnect while the HTTP server can still write.
        var groupConfiguration = ServiceGroupConfiguration(
            services: [.init(service: app), .init(service: LiveDrain(report))]
                // Last, so stopped first: the advertisement goes before the server does.
                + (discovery.map { [.init(service: $0)] } ?? []),
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        // Bounded: a client that never closes its socket cannot keep the server from stopping.
        groupConfiguration.maximumGracefulShutdownDuration = Self.shutdownGrace
        groupConfiguration.maximumCancellationDuration = .seconds(5)
        let group = ServiceGroup(configuration: groupConfiguration)
        try await group.run()
    }

    /// The local network's advertisement, unless turned off; it counts live sessions through
    /// the report, which exists once the application is built.
    static func discovery(_ options: Serve, _ environment: [String: String], logger: Logger, report: ReportBox)
        -> DiscoveryAdvertiser?
    {
        let off = environment["PODIUM_NO_DISCOVERY"].map { ["1", "true", "yes"].contains($0.lowercased()) } ?? false
        guard !options.noDiscovery, !off else { return nil }
        let name = (options.discoveryName ?? environment["PODIUM_DISCOVERY_NAME"]).flatMap { $0.isEmpty ? nil : $0 }
        var settings = DiscoveryAdvertiser.Settings(
            name: name ?? DiscoveryAdvertiser.defaultName(), version: PodiumVersion.current)
        if let seconds = environment["PODIUM_DISCOVERY_POLL_SECONDS"].flatMap(Double.init), seconds > 0 {
            settings.pollInterval = .milliseconds(Int(seconds * 1000))
            settings.debounce = settings.pollInterval
        }
        return DiscoveryAdvertiser(
            settings: settings,
            liveCount: {
                guard let started = await report.value else { return 0 }
                return try await started.liveSessionCount()
            }, logger: logger)
    }

    /// How long a graceful shutdown may take before the remaining work is cancelled.
    static let shutdownGrace = Duration.seconds(10)

    /// Garbage collection of blobs from `PODIUM_BLOB_GC_HOURS` (between runs; 0 never; 24) and
    /// `PODIUM_BLOB_GC_GRACE_HOURS` (24), see docs/operations.md.
    static func readBlobCollection(_ environment: [String: String], into configuration: inout ServerConfiguration) throws {
        func hours(_ name: String) throws -> Double? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            guard let value = Double(text), value >= 0, value.isFinite else {
                throw ValidationError("\(name) must be a number of hours, 0 or more")
            }
            return value
        }
        if let interval = try hours("PODIUM_BLOB_GC_HOURS") {
            configuration.blobCollectionInterval = interval == 0 ? nil : interval * 3600
        }
        if let grace = try hours("PODIUM_BLOB_GC_GRACE_HOURS") { configuration.blobCollectionGrace = grace * 3600 }
    }

    /// The passcode limits from `PODIUM_PASSCODE_*` (see docs/operations.md).
    static func readPasscodeLimits(_ environment: [String: String], into configuration: inout ServerConfiguration) throws {
        func count(_ name: String) throws -> Int? {
            guard let text = environment[name] else { return nil }
            guard let value = Int(text), value >= 0 else { throw ValidationError("\(name) must be a whole number, 0 or more") }
            return value
        }
        func seconds(_ name: String) throws -> TimeInterval? {
            guard let text = environment[name] else { return nil }
            guard let value = Double(text), value >= 0, value.isFinite else {
                throw ValidationError("\(name) must be a number of seconds, 0 or more")
            }
            return value
        }
        if let value = try count("PODIUM_PASSCODE_ATTEMPTS") { configuration.passcodeAttempts = value }
        if let value = try seconds("PODIUM_PASSCODE_DELAY") { configuration.passcodeDelay = value }
        if let value = try seconds("PODIUM_PASSCODE_MAX_DELAY") { configuration.passcodeMaxDelay = value }
        if let value = try count("PODIUM_PASSCODE_SESSION_ATTEMPTS") { configuration.passcodeSessionAttempts = value }
        if let value = try seconds("PODIUM_PASSCODE_SESSION_DELAY") { configuration.passcodeSessionDelay = value }
        if let value = try seconds("PODIUM_PASSCODE_SESSION_MAX_DELAY") { configuration.passcodeSessionMaxDelay = value }
    }

    /// The mail relay of `--smtp-url`, PODIUM_SMTP_URL, or PODIUM_SMTP_HOST (with _PORT, _USER,
    /// _PASSWORD); nil when none is set. PODIUM_SMTP_CA_FILE: a CA its certificate may be signed by.
    static func smtpRelay(url: String?, environment: [String: String]) throws -> SMTPRelay? {
        guard var relay = try smtpRelayAddress(url: url, environment: environment) else { return nil }
        relay.trustedCAFile = environment["PODIUM_SMTP_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        return relay
    }

    private static func smtpRelayAddress(url: String?, environment: [String: String]) throws -> SMTPRelay? {
        if let text = (url ?? environment["PODIUM_SMTP_URL"]).flatMap({ $0.isEmpty ? nil : $0 }) {
            guard let relay = SMTPRelay(url: text) else {
                throw ValidationError("--smtp-url must be smtp://[user[:password]@]host[:port] or smtps://…")
            }
            return relay
        }
        guard let host = environment["PODIUM_SMTP_HOST"], !host.isEmpty else { return nil }
        let port = try environment["PODIUM_SMTP_PORT"].map { text in
            guard let port = Int(text), (1...65535).contains(port) else {
                throw ValidationError("PODIUM_SMTP_PORT must be a port number")
            }
            return port
        }
        return SMTPRelay(
            host: host, port: port ?? 25, username: environment["PODIUM_SMTP_USER"].flatMap { $0.isEmpty ? nil : $0 },
            password: environment["PODIUM_SMTP_PASSWORD"])
    }

    static func parsePort(_ text: String) throws -> Int {
        guard let port = Int(text), (0...65535).contains(port) else { throw ValidationError("PODIUM_PORT must be a port number") }
        return port
    }

    static func readChannel(_ options: Serve, _ environment: [String: String], into channel: inout ChannelConfiguration) throws {
        if let name = options.channelName ?? environment["PODIUM_CHANNEL_NAME"], !name.isEmpty { channel.name = name }
        if let url = options.membershipUrl ?? environment["PODIUM_MEMBERSHIP_URL"], !url.isEmpty {
            guard url.hasPrefix("https://") || url.hasPrefix("http://") else {
                throw ValidationError("--membership-url must be an http(s) URL")
            }
            channel.membershipURL = url
        }
        if let identifier = options.channelTimeZone ?? environment["PODIUM_CHANNEL_TIME_ZONE"] {
            guard let zone = TimeZone(identifier: identifier) else {
                throw ValidationError("--channel-time-zone: no time zone named \(identifier)")
            }
            channel.timeZone = zone
        }
        let minutesText = environment["PODIUM_RADIO_DAILY_MINUTES"]
        if let minutes = try options.radioDailyMinutes
            ?? minutesText.map({ text in
                guard let value = Double(text) else { throw ValidationError("PODIUM_RADIO_DAILY_MINUTES must be a number") }
                return value
            })
        {
            guard minutes >= 0, minutes.isFinite else { throw ValidationError("--radio-daily-minutes must be 0 or more") }
            channel.radioDailyAllowance = minutes * 60
        }
        let linkText = environment["PODIUM_STREAM_LINK_MINUTES"]
        if let minutes = try options.streamLinkMinutes
            ?? linkText.map({ text in
                guard let value = Double(text) else { throw ValidationError("PODIUM_STREAM_LINK_MINUTES must be a number") }
                return value
            })
        {
            guard minutes > 0, minutes.isFinite else { throw ValidationError("--stream-link-minutes must be a positive number") }
            channel.streamTokenLifetime = minutes * 60
        }
        let perAddressText = environment["PODIUM_RADIO_LISTENERS_PER_ADDRESS"]
        if let listeners = try options.radioListenersPerAddress
            ?? perAddressText.map({ text in
                guard let value = Int(text) else {
                    throw ValidationError("PODIUM_RADIO_LISTENERS_PER_ADDRESS must be a whole number")
                }
                return value
            })
        {
            guard listeners >= 0 else { throw ValidationError("--radio-listeners-per-address must be 0 or more") }
            channel.radioListenersPerAddress = listeners
        }
    }

    /// Where metrics are served (see docs/operations.md, "Metrics"): the standard loopback
    /// address unless told, `off` (or empty) for nowhere. An address the operator chose must be
    /// listened on; the standard one is left out with an error logged when another server has it.
    static func readMetrics(_ options: Serve, _ environment: [String: String], into configuration: inout ServerConfiguration)
        throws
    {
        if let text = options.metricsAddress ?? environment["PODIUM_METRICS_ADDRESS"] {
            if ["", "off", "none", "no", "false"].contains(text.trimmingCharacters(in: .whitespaces).lowercased()) {
                configuration.metricsAddress = nil
            } else {
                guard let address = MetricsAddress(text) else {
                    throw ValidationError("--metrics-address must be HOST:PORT, [IPv6]:PORT or off, not \(text)")
                }
                configuration.metricsAddress = address
                configuration.metricsAddressRequired = true
            }
        } else {
            configuration.metricsAddress = .standard
        }
        if let address = configuration.metricsAddress, address.port == configuration.port,
            address.port != 0
        {
            throw ValidationError(
                "--metrics-address \(address) is the main port: metrics are served apart from the audience")
        }
        configuration.metricsToken = environment["PODIUM_METRICS_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static func parseRate(_ text: String) throws -> Double {
        guard let rate = Double(text) else { throw ValidationError("PODIUM_SOCKET_MESSAGE_RATE must be a number") }
        return rate
    }

    /// The addresses people use (only those the server listens on: `host`), where to sign in,
    /// and on a first start the admin's password.
    static func printBanner(host: String, port: Int, report: StartupReport?, scheme: String = "http") {
        let urls = ListenURLs.listening(on: host, port: port, lanAddresses: report?.lanAddresses ?? [], scheme: scheme)
        var lines = ["", "  Podium is running.", ""]
        if let local = urls.thisMachine { lines.append("    On this machine:   \(local)") }
        for url in urls.network { lines.append("    On your network:   \(url)") }
        if let first = urls.first { lines.append("    Presenter sign-in: \(first)/login") }
        if let password = report?.generatedAdminPassword {
            lines += [
                "", "    First start: an admin account was created.",
                "      user name: admin",
                "      password:  \(password)",
                "    Write it down: it is shown only this once (set PODIUM_ADMIN_PASSWORD to choose it).",
            ]
        }
        lines.append("")
        // Written straight to the file descriptor: print() is block-buffered when stdout is not a
        // terminal (a log file, a test runner) and the banner would show up late.
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}

/// Hands the startup report to the server-running callback, which is built before the report exists.
actor ReportBox {
    private(set) var value: StartupReport?
    func set(_ report: StartupReport) { value = report }
}
