import Foundation

/// The server said no: its error body `{"error": {"code", "message"}}` and the HTTP status, or an
/// `error` message on the live socket (status 0 there).
///
/// `code` is stable and meant for programs (docs/protocol.md, "Error codes"); `message` is for
/// people.
public struct PodiumError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: String
    public var message: String
    /// The HTTP status; 0 for an error told on the live socket.
    public var status: Int
    /// Seconds to wait before trying again, when the server says (`rate_limited`, `passcode_wrong`).
    public var retryAfter: Int?

    public init(code: String, message: String, status: Int, retryAfter: Int? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.retryAfter = retryAfter
    }

    public var description: String {
        status == 0 ? "\(code): \(message)" : "\(code) (HTTP \(status)): \(message)"
    }
}

/// The server could not be reached or answered something that is not Podium's: no connection,
/// a dropped connection, a body that does not decode. Kept apart from ``PodiumError`` so a
/// program can tell "try again later" from "the server refused".
public struct PodiumTransportError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// No connection could be made, or it broke.
        case unreachable
        /// The answer did not decode as the documented shape.
        case badResponse
        /// The live socket closed or its upgrade was refused.
        case socketClosed
    }
    public var kind: Kind
    public var detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String {
        switch kind {
        case .unreachable: "cannot reach the server: \(detail)"
        case .badResponse: "unexpected answer from the server: \(detail)"
        case .socketClosed: "live socket closed: \(detail)"
        }
    }
}
