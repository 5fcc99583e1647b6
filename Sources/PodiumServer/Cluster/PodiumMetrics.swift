import CoreMetrics
import Foundation
import Hummingbird
import Metrics
import Prometheus

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

/// `GET /metrics`: Prometheus text format, on every node.
struct MetricsController {
    let hub: LiveHub

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/metrics") { _, _ -> Response in
            let metrics = PodiumMetrics.shared
            let (sockets, sessions) = await hub.gauges()
            metrics.connections.record(sockets)
            metrics.liveSessions.record(sessions)
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
    }
}
