import Foundation
import Hummingbird
import PodiumStore

/// Serves one kind of stream (a channel video's HLS files, a radio's live playlist and segments)
/// to a request whose token was checked already.
protocol StreamSource: Sendable {
    /// Answers `file` of the resource `claims` names (404 for a file that is not part of it).
    func respond(file: String, claims: StreamClaims, request: Request, context: AppRequestContext) async throws -> Response

    /// The blob path of `file` when the source can tell at once, with no store read, that
    /// ``respond(file:claims:request:context:)`` would answer it with that blob (its files held in
    /// memory): a stream's file is then answered on the connection's loop
    /// (``FileAnswerHandler``). Nil: the route answers (the default).
    func heldFile(_ file: String, claims: StreamClaims) -> String?
}

extension StreamSource {
    func heldFile(_ file: String, claims: StreamClaims) -> String? { nil }
}

/// `GET /stream/<token>/<file>`: checks the token (no database read), then hands the request to
/// the source of the resource's kind. A forged token is 403 `stream_forbidden`; an expired one
/// 410 `stream_expired`, so a page knows to ask for a new URL.
struct StreamController {
    let tokens: StreamTokens
    let sources: [String: any StreamSource]

    static let forbidden = APIError(.forbidden, code: "stream_forbidden", message: "This stream link is not valid.")
    static let expired = APIError(.gone, code: "stream_expired", message: "This stream link has expired; open the item again.")

    /// Routes under `group`, which is `/stream`.
    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get(":token/:file", use: serve)
        group.head(":token/:file", use: serve)
    }

    @Sendable func serve(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try context.parameters.require("token")
        let file = try context.parameters.require("file")
        let claims: StreamClaims
        do {
            claims = try tokens.verify(token)
        } catch .forged {
            throw Self.forbidden
        } catch .expired {
            throw Self.expired
        }
        guard let source = sources[String(claims.kind)] else { throw Self.forbidden }
        return try await source.respond(file: file, claims: claims, request: request, context: context)
    }

    /// The blob path ``serve(_:context:)`` answers `GET /stream/<token>/<file>` with, when that is
    /// known at once: the token is valid and its source holds the file (``StreamSource/heldFile(_:claims:)``).
    /// Nil for anything the route must decide (a refused token, a source that reads its store).
    func heldFile(token: String, file: String) -> String? {
        guard let claims = try? tokens.verify(token), let source = sources[String(claims.kind)] else { return nil }
        return source.heldFile(file, claims: claims)
    }
}
