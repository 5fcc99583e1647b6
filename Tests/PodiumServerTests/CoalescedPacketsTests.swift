import Foundation
import Testing

@testable import PodiumServer

#if canImport(Glibc)
    import Glibc
#endif

/// `coalesceViewerPackets` (`--coalesce-viewer-packets`): viewer sockets let the kernel join
/// their frames into fewer packets; hosts' sockets, and every socket without it, send each
/// frame at once.
@Suite("Coalesced viewer packets", .timeLimit(.minutes(1)))
struct CoalescedPacketsTests {
    /// `TCP_NODELAY` of the server's socket for the client at `peerPort`: the server runs in this
    /// process, so its socket is among this process's descriptors.
    static func serverNoDelay(peerPort: Int?) throws -> Int32 {
        let peerPort = try #require(peerPort)
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { Int32($0) }
        for fd in descriptors {
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
            }
            guard named == 0, address.sin_family == sa_family_t(AF_INET), Int(UInt16(bigEndian: address.sin_port)) == peerPort
            else { continue }
            var value: Int32 = -1
            var size = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &size) == 0 else { continue }
            return value == 0 ? 0 : 1
        }
        throw POSIXError(.ENOENT)
    }

    @Test("viewers' sockets coalesce only when the server is told to; hosts' never", arguments: [false, true])
    func viewerSockets(coalesce: Bool) async throws {
        let server = TestServer { $0.coalesceViewerPackets = coalesce }
        defer { server.removeData() }
        try await server.run { client in
            let (_, code, presenter) = try await client.presentSession()
            let viewer = try await client.socket(code: code)
            _ = try await viewer.hello(["role": "viewer"])
            // The option is set on the socket's loop before the welcome is written there.
            #expect(try Self.serverNoDelay(peerPort: viewer.localPort) == (coalesce ? 0 : 1))
            #expect(try Self.serverNoDelay(peerPort: presenter.localPort) == 1)
            // Coalesced or not, every event reaches the viewer, in order.
            for page in 2...4 { try await presenter.send(#"{"type":"goto","id":"g\#(page)","page":\#(page)}"#) }
            for page in 2...4 { #expect(try await viewer.nextDurable()?["page"] as? Int == page) }
        }
    }
}
