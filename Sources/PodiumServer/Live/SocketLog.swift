import Logging

/// Where a socket's log lines go: the server's logger, shared by every socket, with the upgrade
/// request's id added only when a line is written.
///
/// A socket used to keep its upgrade request's logger. A logger with metadata of its own holds a
/// dictionary, its printed form and a copy of the handler: about 470 bytes that every idle socket
/// kept for the few lines a socket ever writes. This keeps two references and the id.
struct SocketLog: Sendable {
    private let shared: Logger
    private let requestID: Logger.MetadataValue?

    /// Hummingbird's name for a request's id, which Podium's upgrade requests carry too.
    static let requestIDKey = "hb.request.id"

    /// - Parameters:
    ///   - shared: the server's logger, one value that every socket refers to.
    ///   - request: the upgrade request's logger, whose id the socket's lines carry.
    init(shared: Logger, request: Logger) {
        self.shared = shared
        self.requestID = request[metadataKey: Self.requestIDKey]
    }

    /// The logger to write a line with: made for the line, and let go with it.
    var logger: Logger {
        guard let requestID else { return shared }
        var logger = shared
        logger[metadataKey: Self.requestIDKey] = requestID
        return logger
    }
}
