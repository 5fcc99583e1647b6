import PodiumStore
import ServiceLifecycle

/// Metrics on their own address (loopback by default), not on the application's listener: see
/// ``MetricsServer``. No routes here.
struct MetricsFeature {
    /// The metrics server, when the configuration names an address.
    let services: [any Service]

    init(_ platform: Platform) {
        let configuration = platform.configuration
        services = [configuration.metricsAddress].compactMap { $0 }.map { address in
            MetricsServer(
                address: address, token: configuration.metricsToken, required: configuration.metricsAddressRequired,
                hub: platform.hub, logger: platform.logger, onListening: configuration.onMetricsListening,
                availability: platform.stores.availability)
        }
    }
}
