import Foundation
import Hummingbird

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The machine's IPv4 addresses on its networks (not loopback), so the printed URLs and QR codes
/// work from phones in the room.
enum NetworkAddresses {
    static func lanIPv4() -> [String] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0, let first else { return [] }
        defer { freeifaddrs(first) }
        var result: [String] = []
        for pointer in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let entry = pointer.pointee
            guard let address = entry.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                (entry.ifa_flags & UInt32(IFF_LOOPBACK)) == 0, (entry.ifa_flags & UInt32(IFF_UP)) != 0
            else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(MemoryLayout<sockaddr_in>.size)
            if getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 {
                result.append(String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
        return result
    }
}

/// Where a server listening on one address is reached, as the start-up banner prints it: only
/// the addresses it really listens on. Bound to every interface (`0.0.0.0`, `::`), this machine
/// and each network address; bound to loopback, this machine only; bound to one address, that one.
public struct ListenURLs: Sendable, Equatable {
    /// The URL on this machine (`http://localhost:8080`), when the server listens on loopback.
    public var thisMachine: String?
    /// The URLs other devices use, one per network address the server listens on.
    public var network: [String]

    public init(thisMachine: String?, network: [String]) {
        self.thisMachine = thisMachine
        self.network = network
    }

    /// - Parameters:
    ///   - host: the address the server is bound to (`--host`)
    ///   - lanAddresses: the machine's network addresses (``NetworkAddresses/lanIPv4()``)
    ///   - scheme: `https` when the server serves TLS itself (``TLSSettings``)
    public static func listening(on host: String, port: Int, lanAddresses: [String], scheme: String = "http") -> ListenURLs {
        let bare = host.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let name = bare.lowercased()
        let local = "\(scheme)://localhost:\(port)"
        if ["", "*", "0.0.0.0", "::", "0:0:0:0:0:0:0:0"].contains(name) {
            return ListenURLs(thisMachine: local, network: lanAddresses.map { url($0, port, scheme: scheme) })
        }
        if name == "localhost" || name == "127.0.0.1" { return ListenURLs(thisMachine: local, network: []) }
        if name.hasPrefix("127.") || name == "::1" {
            return ListenURLs(thisMachine: url(bare, port, scheme: scheme), network: [])
        }
        return ListenURLs(thisMachine: nil, network: [url(bare, port, scheme: scheme)])
    }

    /// The first of them: where the banner sends the presenter to sign in.
    public var first: String? { thisMachine ?? network.first }

    static func url(_ address: String, _ port: Int, scheme: String = "http") -> String {
        address.contains(":") ? "\(scheme)://[\(address)]:\(port)" : "\(scheme)://\(address):\(port)"
    }
}

/// The links of a session or room, as the REST responses carry them.
struct JoinLinks: Sendable, Equatable {
    let joinUrl: String
    let presenterUrl: String?
    let moderatorUrl: String?
    let projectorUrl: String?
    /// The big screen: a session's screen page, a room's projector page.
    let screenUrl: String
}

/// Builds the join link shown as text and QR code (and every other link the server hands out).
///
/// Order of preference: the configured public URL; the Host the presenter used, unless it is a
/// loopback name a phone could not reach; then the machine's first network address.
struct JoinURLBuilder: Sendable {
    let publicURL: String?
    /// The address the server listens on: a network address is only offered when phones can reach it.
    let listenHost: String
    let port: Int
    let lanAddresses: [String]
    /// `https` when the server serves TLS itself; a request's own scheme comes first.
    var scheme = "http"

    /// The network address to offer for loopback requests, if the server listens there.
    var reachableLAN: String? {
        if listenHost == "0.0.0.0" || listenHost == "::" { return lanAddresses.first }
        return lanAddresses.contains(listenHost) ? listenHost : nil
    }

    func baseURL(request: Request?) -> String {
        if let publicURL { return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL }
        let scheme = request?.head.scheme ?? scheme
        if let host = request?.head.authority, !Self.isLoopback(host) { return "\(scheme)://\(host)" }
        if let lan = reachableLAN { return "\(scheme)://\(lan):\(port)" }
        return "\(scheme)://\(request?.head.authority ?? "localhost:\(port)")"
    }

    func joinURL(code: String, request: Request?) -> String { links(code: code, room: false, request: request).joinUrl }

    /// Every link the server hands out for a session or room, from the one base: the audience's
    /// join link, the big screen's page and, for a room, where presenters join, the moderator's
    /// console and the projector (which is the room's big screen).
    func links(code: String, room: Bool, request: Request?) -> JoinLinks {
        let base = baseURL(request: request)
        return JoinLinks(
            joinUrl: "\(base)/s/\(code)", presenterUrl: room ? "\(base)/r/\(code)" : nil,
            moderatorUrl: room ? "\(base)/r/\(code)/moderate" : nil, projectorUrl: room ? "\(base)/r/\(code)/projector" : nil,
            screenUrl: room ? "\(base)/r/\(code)/projector" : "\(base)/s/\(code)/screen")
    }

    static func isLoopback(_ host: String) -> Bool {
        let name = host.split(separator: ":").first.map(String.init)?.lowercased() ?? host
        return name == "localhost" || name.hasPrefix("127.") || host.hasPrefix("[::1]")
    }
}
