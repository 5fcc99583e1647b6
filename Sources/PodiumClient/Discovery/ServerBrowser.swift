import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A Podium server found on the local network.
public struct DiscoveredServer: Sendable, Hashable, Codable {
    /// The instance name the server advertises ("Podium on lab-3").
    public var name: String
    /// The host's mDNS name ("lab-3.local").
    public var host: String
    public var port: Int
    /// The host's IPv4 addresses, as answered.
    public var addresses: [String]
    /// Where to reach it: `http://<first address or host>:<port><path>`.
    public var url: URL
    /// Sessions live on it when it answered (its TXT record's `sessions`).
    public var liveSessions: Int?
    /// Its Podium version (TXT `version`).
    public var version: String?
}

/// Finds Podium servers on the local network with multicast DNS: the servers advertise
/// `_podium._tcp` through the system's responder (Avahi on Linux, mDNSResponder on Apple's
/// systems), and this asks for them.
///
/// In Swift over a UDP socket rather than through a platform's API: the SDK runs on Linux (no
/// `dns_sd.h` there unless Avahi's compatibility library is installed, and Avahi's own API is
/// D-Bus), macOS and iOS, and one small query works on all of them without a daemon of our own.
/// It sends a one-shot query (RFC 6762 §5.1) from an ephemeral port to 224.0.0.251:5353 on every
/// IPv4 interface that can multicast, so responders answer it directly by unicast and it can run
/// beside the system's responder, which owns port 5353; then it asks again for any SRV, TXT or A
/// record the first answers left out, and gathers answers until `timeout`.
///
/// ```swift
/// for server in try await ServerBrowser().browse() {
///     print(server.name, server.url, server.liveSessions ?? 0)
/// }
/// ```
public struct ServerBrowser: Sendable {
    public var serviceType: String
    public var timeout: Duration

    public init(serviceType: String = "_podium._tcp", timeout: Duration = .seconds(2)) {
        self.serviceType = serviceType
        self.timeout = timeout
    }

    public struct BrowseError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// The servers that answered within `timeout`, by name.
    public func browse() async throws -> [DiscoveredServer] {
        let serviceType = serviceType
        let timeout = timeout
        return try await withCheckedThrowingContinuation { continuation in
            // Blocking socket calls on a thread of their own, not the concurrency pool's.
            Thread.detachNewThread {
                continuation.resume(with: Result { try Self.browseBlocking(serviceType: serviceType, timeout: timeout) })
            }
        }
    }

    static func browseBlocking(serviceType: String, timeout: Duration) throws -> [DiscoveredServer] {
        let socket = try MulticastQuerySocket()
        defer { socket.close() }
        let domain = "\(serviceType).local"
        var collector = Collector(serviceDomain: domain)
        socket.send(DNSMessage.query([DNSMessage.Question(name: domain, type: .ptr)]))
        let start = ContinuousClock.now
        var askedAgain = false
        while true {
            let elapsed = ContinuousClock.now - start
            if elapsed >= timeout { break }
            if !askedAgain, elapsed >= timeout / 3 {
                askedAgain = true
                // The PTR again (a lost packet), and whatever the answers left out.
                socket.send(
                    DNSMessage.query([DNSMessage.Question(name: domain, type: .ptr)] + collector.missingQuestions()))
            }
            let wait = min(timeout - elapsed, askedAgain ? timeout : timeout / 3 - elapsed)
            let milliseconds = max(1, Int((wait / .milliseconds(1)).rounded(.up)))
            guard let packet = socket.receive(waitMilliseconds: milliseconds) else { continue }
            if let message = try? DNSMessage(parsing: packet), message.isResponse {
                collector.add(message.records)
            }
        }
        return collector.servers()
    }

    /// What the answers said, by name.
    struct Collector {
        let serviceDomain: String
        var instances: Set<String> = []
        var services: [String: (port: Int, target: String)] = [:]
        var texts: [String: [String: String]] = [:]
        var addresses: [String: [String]] = [:]

        init(serviceDomain: String) {
            self.serviceDomain = serviceDomain.lowercased()
        }

        mutating func add(_ records: [DNSMessage.Record]) {
            for record in records {
                let name = record.name.lowercased()
                switch record.data {
                case .ptr(let target) where name == serviceDomain:
                    // A TTL of 0 is a goodbye: the service was withdrawn.
                    if record.ttl == 0 { instances.remove(target) } else { instances.insert(target) }
                case .srv(_, _, let port, let target):
                    services[name] = (Int(port), target)
                case .txt(let strings):
                    var pairs: [String: String] = [:]
                    for string in strings {
                        let parts = string.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                        guard let key = parts.first, !key.isEmpty else { continue }
                        pairs[key.lowercased()] = parts.count > 1 ? String(parts[1]) : ""
                    }
                    texts[name] = pairs
                case .a(let address):
                    if !(addresses[name] ?? []).contains(address) { addresses[name, default: []].append(address) }
                default:
                    break
                }
            }
        }

        /// SRV and TXT for instances without them, A for hosts without an address.
        func missingQuestions() -> [DNSMessage.Question] {
            var questions: [DNSMessage.Question] = []
            for instance in instances.sorted() {
                let key = instance.lowercased()
                if services[key] == nil { questions.append(.init(name: instance, type: .srv)) }
                if texts[key] == nil { questions.append(.init(name: instance, type: .txt)) }
                if let target = services[key]?.target, addresses[target.lowercased()] == nil {
                    questions.append(.init(name: target, type: .a))
                }
            }
            return questions
        }

        func servers() -> [DiscoveredServer] {
            instances.compactMap { instance -> DiscoveredServer? in
                let key = instance.lowercased()
                guard let service = services[key] else { return nil }
                let text = texts[key] ?? [:]
                // Loopback last: it is the right address only for a client on the server's machine.
                let found = (addresses[service.target.lowercased()] ?? []).sorted { first, second in
                    let (firstLoops, secondLoops) = (first.hasPrefix("127."), second.hasPrefix("127."))
                    return firstLoops == secondLoops ? first < second : secondLoops
                }
                var name = instance
                if name.lowercased().hasSuffix("." + serviceDomain) { name = String(name.dropLast(serviceDomain.count + 1)) }
                let path = text["path"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/"
                guard let url = URL(string: "http://\(found.first ?? service.target):\(service.port)\(path)") else { return nil }
                return DiscoveredServer(
                    name: name, host: service.target, port: service.port, addresses: found, url: url,
                    liveSessions: text["sessions"].flatMap(Int.init), version: text["version"])
            }.sorted { $0.name < $1.name }
        }
    }
}

/// A UDP socket on an ephemeral port that sends to the mDNS group on every multicast interface.
final class MulticastQuerySocket {
    let descriptor: Int32
    let interfaces: [in_addr]

    init() throws {
        #if canImport(Glibc)
            descriptor = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), Int32(IPPROTO_UDP))
        #else
            descriptor = Darwin.socket(AF_INET, SOCK_DGRAM, IPPROTO_UDP)
        #endif
        guard descriptor >= 0 else {
            throw ServerBrowser.BrowseError(description: "cannot open a UDP socket: \(String(cString: strerror(errno)))")
        }
        var loop: UInt8 = 1  // answers from a responder on this machine too
        setsockopt(descriptor, Int32(IPPROTO_IP), IP_MULTICAST_LOOP, &loop, socklen_t(MemoryLayout<UInt8>.size))
        var ttl: UInt8 = 255
        setsockopt(descriptor, Int32(IPPROTO_IP), IP_MULTICAST_TTL, &ttl, socklen_t(MemoryLayout<UInt8>.size))
        interfaces = Self.multicastInterfaces()
    }

    /// The IPv4 address of every interface that is up and can multicast (loopback included).
    static func multicastInterfaces() -> [in_addr] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: [in_addr] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int(entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                flags & Int(IFF_UP) != 0, flags & Int(IFF_MULTICAST) != 0 || flags & Int(IFF_LOOPBACK) != 0
            else { continue }
            let inet = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            found.append(inet)
        }
        return found
    }

    func send(_ bytes: [UInt8]) {
        var group = sockaddr_in()
        group.sin_family = sa_family_t(AF_INET)
        group.sin_port = in_port_t(5353).bigEndian
        inet_pton(AF_INET, "224.0.0.251", &group.sin_addr)
        func sendOnce() {
            _ = withUnsafePointer(to: &group) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        if interfaces.isEmpty {
            sendOnce()
            return
        }
        for var interface in interfaces {
            setsockopt(descriptor, Int32(IPPROTO_IP), IP_MULTICAST_IF, &interface, socklen_t(MemoryLayout<in_addr>.size))
            sendOnce()
        }
    }

    /// One datagram, or nil when none came within `waitMilliseconds`.
    func receive(waitMilliseconds: Int) -> [UInt8]? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(min(waitMilliseconds, Int(Int32.max)))) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 9000)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Array(buffer[0..<count])
    }

    func close() {
        #if canImport(Glibc)
            _ = Glibc.close(descriptor)
        #else
            _ = Darwin.close(descriptor)
        #endif
    }
}
