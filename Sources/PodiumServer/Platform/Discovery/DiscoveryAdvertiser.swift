import ChildProcesses
import Foundation
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// Advertises the server on the local network with DNS-SD: `_podium._tcp` (for Podium's apps
/// and the SDK's ``ServerBrowser``) and `_http._tcp` (for any browser's list of web sites), on
/// the server's port, with TXT records `path=/`, `version=`, `sessions=<live sessions>` and
/// `name=`.
///
/// Through the system's responder, never one of our own: two responders on one host fight over
/// UDP 5353 and the host name. On Debian that is Avahi, reached by running its
/// `avahi-publish-service` (avahi-utils) as a supervised child process per service type, rather
/// than by speaking D-Bus to avahi-daemon: Swift on Linux has no D-Bus library this package could
/// depend on without C bindings of its own, the tool's lifetime *is* the registration (it
/// withdraws the service when it exits), and it states plainly why it could not publish ("Daemon
/// not running", "Local name collision"). A TXT record cannot be changed in a running
/// `avahi-publish-service`, so a change of the live count re-publishes: at most once per
/// `debounce`, and only when the count differs. Each child runs under a small `sh` guard that
/// kills it when the server's end of its standard input closes, so a server killed with SIGKILL
/// leaves no stale advertisement behind. The guard kills with SIGKILL and waits for no signal:
/// children inherit the server's blocked signals (SIGTERM and SIGCHLD among them), so neither a
/// polite kill nor `sh`'s `wait` would ever be noticed; Avahi withdraws a client's services when
/// its D-Bus connection drops.
public final class DiscoveryAdvertiser: Service, Sendable {
    public struct Settings: Sendable {
        /// The instance name people see ("Podium on lab-3").
        public var name: String
        public var version: String
        /// How often the live count is read (the count is the store's, so a cluster's other nodes count too).
        public var pollInterval: Duration = .seconds(2)
        /// The shortest time between two publications.
        public var debounce: Duration = .seconds(2)
        /// The tool, found on `PATH` unless a path.
        public var publishTool: String = "avahi-publish-service"
        public var serviceTypes = ["_podium._tcp", "_http._tcp"]

        public init(name: String, version: String) {
            self.name = name
            self.version = version
        }
    }

    /// What the first publication did, for the start-up banner.
    public enum Outcome: Sendable, Equatable {
        case advertised(name: String)
        case notAdvertised(reason: String)

        public var message: String {
            switch self {
            case .advertised(let name): "Advertised on the local network as \"\(name)\" (_podium._tcp, _http._tcp)."
            case .notAdvertised(let reason): "Not advertised on the local network: \(reason)."
            }
        }
    }

    let settings: Settings
    let liveCount: @Sendable () async throws -> Int
    let logger: Logger
    private let state = NIOLockedValueBox(State())
    private let outcomes: AsyncStream<Outcome>
    private let outcomeSink: AsyncStream<Outcome>.Continuation
    private let ports: AsyncStream<Int>
    private let portSink: AsyncStream<Int>.Continuation

    struct State {
        var publishers: [PublisherProcess] = []
        var published: Int?
        var reported = false
    }

    public init(settings: Settings, liveCount: @escaping @Sendable () async throws -> Int, logger: Logger) {
        self.settings = settings
        self.liveCount = liveCount
        self.logger = logger
        (outcomes, outcomeSink) = AsyncStream.makeStream(of: Outcome.self, bufferingPolicy: .bufferingNewest(1))
        (ports, portSink) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The port the server listens on, once it does: advertising starts then.
    public func serverListening(port: Int) {
        portSink.yield(port)
        portSink.finish()
    }

    /// The first publication's outcome (waits for it).
    public func firstOutcome() async -> Outcome {
        for await outcome in outcomes { return outcome }
        return .notAdvertised(reason: "the server stopped")
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var port: Int?
            for await listening in self.ports {
                port = listening
                break
            }
            guard let port else { return }
            await self.loop(port: port)
        }
        stopPublishers()
        outcomeSink.finish()
    }

    private func loop(port: Int) async {
        var lastPublication: ContinuousClock.Instant?
        while !Task.isCancelled {
            let count: Int
            do {
                count = try await liveCount()
            } catch {
                logger.debug("discovery: could not count the live sessions: \(error)")
                try? await Task.sleep(for: settings.pollInterval)
                continue
            }
            let (published, running) = state.withLockedValue { ($0.published, $0.publishers.allSatisfy(\.isRunning)) }
            if published != count || !running {
                if let last = lastPublication, ContinuousClock.now - last < settings.debounce {
                    try? await Task.sleep(until: last + settings.debounce, clock: .continuous)
                    continue  // read the count again: it may have moved on
                }
                lastPublication = .now
                let outcome = await publish(count: count, port: port)
                let first = state.withLockedValue { state in
                    defer { state.reported = true }
                    return !state.reported
                }
                if first {
                    // `podium serve` prints it under its banner.
                    outcomeSink.yield(outcome)
                    logger.debug("discovery: \(outcome.message)")
                }
                if case .notAdvertised(let reason) = outcome {
                    // Nothing to supervise: try again much later (a daemon may be started).
                    if !first { logger.debug("discovery: \(reason)") }
                    try? await Task.sleep(for: settings.pollInterval * 15)
                    continue
                }
            }
            try? await Task.sleep(for: settings.pollInterval)
        }
    }

    /// Replaces the running publishers with ones carrying `count`.
    private func publish(count: Int, port: Int) async -> Outcome {
        stopPublishers()
        guard let tool = Self.locate(settings.publishTool) else {
            return .notAdvertised(reason: "\(settings.publishTool) is not installed (install avahi-utils and avahi-daemon)")
        }
        let text = [
            "path=/", "version=\(settings.version)", "sessions=\(count)", "name=\(settings.name)",
        ]
        var started: [PublisherProcess] = []
        for type in settings.serviceTypes {
            let publisher = PublisherProcess(
                tool: tool, arguments: ["--service", settings.name, type, String(port)] + text)
            switch await publisher.start() {
            case .success:
                started.append(publisher)
            case .failure(let reason):
                for running in started { running.stop() }
                publisher.stop()
                state.withLockedValue { $0.published = nil }
                return .notAdvertised(reason: reason)
            }
        }
        state.withLockedValue {
            $0.publishers = started
            $0.published = count
        }
        logger.debug("discovery: published \(settings.name) with \(count) live sessions")
        return .advertised(name: settings.name)
    }

    private func stopPublishers() {
        let running = state.withLockedValue { state in
            defer { state.publishers = [] }
            return state.publishers
        }
        for publisher in running { publisher.stop() }
    }

    static func locate(_ tool: String) -> String? {
        if tool.contains("/") { return FileManager.default.isExecutableFile(atPath: tool) ? tool : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// "Podium on <host name>", the host name without its domain.
    public static func defaultName() -> String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "this machine"
        return "Podium on \(host)"
    }
}

/// One `avahi-publish-service` under its `sh` guard.
///
/// `stop()` only closes the input's write end, which `FileHandle` does under its own lock; the
/// output's reading end is touched only by its ``PipeReader`` thread. What that thread and the
/// callers share (`text`, `ended`) is behind locks.
final class PublisherProcess: Sendable {
    enum Start {
        case success
        case failure(String)
    }

    /// Runs the tool in the background and kills it when standard input (the server's pipe)
    /// reaches its end. The guard's own output goes away, so the pipe's end of file says the
    /// tool itself has stopped.
    static let guardScript = #""$0" "$@" </dev/null & p=$!; exec >/dev/null 2>&1; read _; kill -9 $p"#

    private let process: ChildProcess
    /// How long ``start()`` waits for the tool's word.
    private let patience: Duration
    private let input: Pipe
    private let output: Pipe
    private let text = NIOLockedValueBox("")
    private let ended = NIOLockedValueBox(false)

    /// - Parameter patience: how long the tool may take to say it is established or why it is
    ///   not: Avahi probes the name for about a second first. Tests that start shells on a busy
    ///   machine give more, as a child's start-up then takes seconds.
    init(tool: String, arguments: [String], patience: Duration = .seconds(5)) {
        self.patience = patience
        let input = Pipe()
        let output = Pipe()
        self.input = input
        self.output = output
        process = ChildProcess(
            URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", Self.guardScript, tool] + arguments,
            standardInput: .pipe(input), standardOutput: .pipe(output), standardError: .pipe(output))
        // These pipes do not leak into other children (the next publisher, a converter), where
        // one holding the write end of this guard's input would keep it from ever seeing its
        // end: every ``ChildProcess`` closes the descriptors it was not given.
    }

    /// Until the tool's output ends (it exited, or was killed).
    var isRunning: Bool { !ended.withLockedValue { $0 } }

    /// Starts and waits for the tool to say it is established, or to fail (``patience`` at most).
    func start() async -> Start {
        let (lines, sink) = AsyncStream.makeStream(of: Void.self)
        let text = text
        let ended = ended
        do {
            try process.run()
        } catch {
            return .failure("cannot run /bin/sh: \(error)")
        }
        // Read on a thread of its own, not with a readability handler: that handler's dispatch
        // source crashed the server at start-up (see PipeReader). Started once the child runs:
        // launching closed our copy of the writing end, so the child's exit brings the end of file.
        PipeReader.readToEnd(
            output.fileHandleForReading, name: "podium-discovery",
            onData: { chunk in
                text.withLockedValue { $0 += String(decoding: chunk, as: UTF8.self) }
                sink.yield()
            },
            onEnd: {
                ended.withLockedValue { $0 = true }
                sink.finish()
            })
        let deadline = Task { [patience] in
            try? await Task.sleep(for: patience)
            sink.finish()
        }
        defer { deadline.cancel() }
        for await _ in lines {
            let said = text.withLockedValue { $0 }
            if said.contains("Established under name") { return .success }
            if let reason = Self.reason(said) { return .failure(reason) }
        }
        let said = text.withLockedValue { $0 }
        if said.contains("Established under name") { return .success }
        if let reason = Self.reason(said) { return .failure(reason) }
        if isRunning { return .failure("avahi-publish-service did not confirm within \(patience)") }
        return .failure("avahi-publish-service stopped: \(said.trimmingCharacters(in: .whitespacesAndNewlines))")
    }

    /// Why the tool could not publish, in the operator's terms.
    static func reason(_ said: String) -> String? {
        if said.contains("Daemon not running") {
            return "no Avahi daemon running (install and start avahi-daemon, or pass --no-discovery)"
        }
        if said.contains("collision") {
            return "another service on the network already has this name (set PODIUM_DISCOVERY_NAME)"
        }
        if said.contains("Failed") || said.contains("failed") {
            return "avahi-publish-service: \(said.trimmingCharacters(in: .whitespacesAndNewlines))"
        }
        return nil
    }

    /// Closes the guard's input: the guard kills the tool, which withdraws the service.
    func stop() {
        try? input.fileHandleForWriting.close()
    }
}
