import Foundation
import Hummingbird
import NIOCore
import PodiumStore

/// The request context of every route: who is signed in, how, and which anonymous viewer this is.
public struct AppRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Where a socket route accepts a WebSocket upgrade (see ``PodiumServerChannel``).
    let socketUpgrade: SocketUpgrade
    public let remoteAddress: SocketAddress?
    /// The connection the request came on: a file body is written to it as a `FileRegion`
    /// (``FileRegionBody``).
    let channel: any Channel
    /// The signed-in account, set by ``AuthMiddleware``.
    public var user: UserRecord?
    /// True when `user` came from the session cookie rather than a bearer token (CSRF matters).
    public var authenticatedByCookie = false
    /// The stable anonymous identity from the `podium_viewer` cookie, if the browser sent one.
    public var viewerId: String?
    /// Who asks, on the channel's routes (set by ``ChannelViewerMiddleware``).
    public var channelViewer: ChannelViewer?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        socketUpgrade = SocketUpgrade()
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }

    /// JSON bodies are small; uploads stream past this limit through their own path.
    public var maxUploadSize: Int { 1 << 20 }

    /// Dates as ISO 8601 in every JSON response.
    public var responseEncoder: JSONEncoder { Frames.encoder }

    /// The signed-in user, or a 401.
    func requireUser() throws -> UserRecord {
        guard let user else { throw APIError.unauthorized }
        return user
    }

    /// The client's address as a trusted reverse proxy reported it (`X-Forwarded-For`), set by
    /// ``AuthMiddleware``.
    public var forwardedFor: String?

    /// A key for rate limits: the client's address. Behind a trusted proxy every request comes
    /// from the proxy, so the address it forwarded stands in: otherwise one guesser would lock
    /// everyone out.
    var clientKey: String { forwardedFor ?? remoteAddress?.ipAddress ?? "unknown" }
}
