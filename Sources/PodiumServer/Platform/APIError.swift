import Foundation
import Hummingbird
import NIOCore
import PodiumWire

/// An error that answers with Podium's own error body (`{"error":{"code":…,"message":…,…}}`), which
/// the security middleware passes on as it is rather than rewriting it from the status alone.
public protocol PodiumErrorBody: HTTPResponseError {}

/// An error answered as `{"error":{"code":…,"message":…}}` with its HTTP status.
///
/// `code` is stable, for programs; `message` is for people and shown as is by the browser client.
public struct APIError: PodiumErrorBody, Sendable {
    public let status: HTTPResponse.Status
    public let code: String
    public let message: String

    public init(_ status: HTTPResponse.Status, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try JSONEncoder().encode(APIErrorBody(error: ErrorDetail(code: code, message: message)))
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The code of an error that has only a status.
    static func code(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 400: "bad_request"
        case 401: "unauthorized"
        case 403: "forbidden"
        case 404: "not_found"
        case 405: "method_not_allowed"
        case 408: "timeout"
        case 413: "too_large"
        case 415: "unsupported_media_type"
        case 429: "rate_limited"
        case 500..<600: "internal"
        default: "http_\(status.code)"
        }
    }

    static let unauthorized = APIError(.unauthorized, code: "unauthorized", message: "Sign in first.")
    static let forbidden = APIError(.forbidden, code: "forbidden", message: "You may not do that.")
    static let csrf = APIError(
        .forbidden, code: "csrf", message: "Requests signed in by cookie must carry the X-Podium-Request header.")
    static func notFound(_ what: String) -> APIError {
        APIError(.notFound, code: "not_found", message: "No such \(what).")
    }
    static func badRequest(_ message: String) -> APIError {
        APIError(.badRequest, code: "bad_request", message: message)
    }
}

struct APIErrorBody: Encodable {
    let error: ErrorDetail
}
