import CoreMetrics
import Foundation
import Hummingbird
import Logging
import Metrics
import PodiumStore
import Prometheus
import ServiceLifecycle

/// The server's Prometheus metrics (swift-metrics, exported by swift-prometheus), one set per
/// process. The metrics system is bootstrapped the first time ``shared`` is used, and only then:
/// tests start many servers in one process.
///
/// Counters and timers are updated where things happen; the gauges (sockets, live sessions) are
/// read from the hub when `GET /metrics` is scraped, so the hot paths pay nothing for them.
final class PodiumMetrics: Sendable {
    static let shared = PodiumMetrics()

    let registry: PrometheusCollectorRegistry
    /// Open live and lobby sockets on this node.
    let connections: CoreMetrics.Gauge
    /// Live sessions this node serves.
    let liveSessions: CoreMetrics.Gauge
    let eventsAppended: CoreMetrics.Counter
    /// Appends that met a `seq` (or command id) another node stored first, and were retried.
    let appendRetries: CoreMetrics.Counter
    /// From a hint's send on one node to its catch-up done on another.
    let hintLag: Metrics.Timer
    /// Sending a command's events and refreshing its views on this node.
    let fanOut: Metrics.Timer
    /// Blobs the blob collector deleted on this node (BlobCollectionService).
    let blobsCollected: CoreMetrics.Counter
    /// Their bytes: the space given back.
    let blobBytesCollected: CoreMetrics.Counter
    /// 1 while this node reaches its database, 0 while it knows it cannot (``StoreAvailability``).
    let storeAvailable: CoreMetrics.Gauge

    private init() {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        let fine: [Duration] = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
        ]
        factory.durationHistogramBuckets = ["podium_hint_lag_seconds": fine, "podium_fanout_seconds": fine]
        MetricsSystem.bootstrap(factory)
        self.registry = registry
        connections = CoreMetrics.Gauge(label: "podium_connections")
        liveSessions = CoreMetrics.Gauge(label: "podium_live_sessions")
        eventsAppended = CoreMetrics.Counter(label: "podium_events_appended_total")
        appendRetries = CoreMetrics.Counter(label: "podium_append_retries_total")
        hintLag = Metrics.Timer(label: "podium_hint_lag_seconds", preferredDisplayUnit: .seconds)
        fanOut = Metrics.Timer(label: "podium_fanout_seconds", preferredDisplayUnit: .seconds)
        blobsCollected = CoreMetrics.Counter(label: "podium_blobs_collected_total")
        blobBytesCollected = CoreMetrics.Counter(label: "podium_blob_bytes_collected_total")
        storeAvailable = CoreMetrics.Gauge(label: "podium_store_available")
    }

    /// The Prometheus text exposition of every metric.
    func exposition() -> String { registry.emitToString() }
}

extension Metrics.Timer {
    func recordDuration(since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }

    /// Between two wall-clock times (of two nodes: their clocks should agree, NTP).
    func recordDuration(since start: Date, now: Date) {
        recordNanoseconds(Int64(max(0, now.timeIntervalSince(start)) * 1_000_000_000))
    }
}

/// `GET /metrics`: Prometheus text format, on every node, on the metrics address only (see
/// ``MetricsServer``): the main listener answers 404. With a token, only a request that sends it
/// as `Authorization: Bearer <token>` is answered (401 otherwise).
struct MetricsController<Context: RequestContext> {
    let hub: LiveHub
    var token: String?
    /// The store's availability on PostgreSQL (nil: SQLite, always there).
    var availability: StoreAvailability? = nil

    func addRoutes(to router: Router<Context>) {
        let (hub, token, availability) = (hub, token, availability)
        router.get("/metrics") { request, _ -> Response in
            if let token, !Self.authorized(request, token: token) {
                var headers = HTTPFields()
                headers[.wwwAuthenticate] = #"Bearer realm="podium-metrics""#
                return Response(status: .unauthorized, headers: headers)
            }
            let metrics = PodiumMetrics.shared
            let (sockets, sessions) = await hub.gauges()
            metrics.connections.record(sockets)
            metrics.liveSessions.record(sessions)
            metrics.storeAvailable.record(availability?.isAvailable ?? true ? 1 : 0)
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
    }

    /// Whether the request carries the token, compared in a time that does not depend on where
    /// they differ.
    static func authorized(_ request: Request, token: String) -> Bool {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else { return false }
        let sent = Array(header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces).utf8)
        let expected = Array(token.utf8)
        var difference = UInt8(sent.count == expected.count ? 0 : 1)
        for index in expected.indices { difference |= expected[index] ^ (index < sent.count ? sent[index] : 0) }
        return difference == 0
    }
}

/// Where `/metrics` is served: `host:port`, as Prometheus exporters are, apart from the address
/// the audience reaches.
public struct MetricsAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Loopback, so only this machine (a Prometheus beside it, or an SSH tunnel) reads it; 9464
    /// is the port Prometheus's list of exporter ports gives to OpenTelemetry's exporter, clear of
    /// Podium's 8080.
    public static let standard = MetricsAddress(host: "127.0.0.1", port: 9464)

    /// `HOST:PORT`, `[IPv6]:PORT`, or `:PORT` for every interface; nil when it is none of these.
    public init?(_ text: String) {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            return nil  // an IPv6 address needs its brackets
        }
        self.init(host: host.isEmpty ? "0.0.0.0" : host, port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// The metrics listener: a small HTTP server of its own on ``MetricsAddress``, run as one of the
/// application's services. A metrics address that cannot be listened on stops the server when
/// the operator asked for it (`required`); the default one (another server on this machine may
/// have it) is logged as an error and left out, and the server runs on without metrics.
struct MetricsServer: Service {
    let address: MetricsAddress
    let token: String?
    let required: Bool
    let hub: LiveHub
    let logger: Logger
    /// Told the port once listening (tests listen on port 0).
    let onListening: (@Sendable (Int) async -> Void)?
    /// For `podium_store_available` (see ``MetricsController``).
    var availability: StoreAvailability? = nil

    func run() async throws {
        let router = Router(context: BasicRequestContext.self)
        MetricsController(hub: hub, token: token, availability: availability).addRoutes(to: router)
        let (address, logger, onListening) = (address, logger, onListening)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: "Podium metrics"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? address.port
                logger.info("metrics served at http://\(MetricsAddress(host: address.host, port: port))/metrics")
                await onListening?(port)
            }, logger: logger)
        do {
            try await app.run()
        } catch {
            if Task.isCancelled { throw error }
            if required {
                throw StartupError("could not listen on the metrics address \(address) (--metrics-address): \(error)")
            }
            logger.error(
                "metrics are not served: could not listen on \(address) (\(error)). Give another with --metrics-address, or turn them off with --metrics-address off."
            )
            // Not returning: a service that ends would stop the whole server.
            try? await gracefulShutdown()
        }
    }
}
