import Foundation
import Hummingbird
import NIOCore
import PodiumCore
import PodiumStore

/// What a browser sees at a link that leads nowhere (an unknown join code, a deck that is gone,
/// a mistyped path): an HTML page that says so and offers the way back, from `error.html`.
/// Programs (`/api/…`, or asking for JSON) keep getting the JSON error.
struct DeadEnd: Sendable, Equatable {
    var status: HTTPResponse.Status = .notFound
    /// For tests and styles: `session`, `room`, `deck`, `page`.
    var reason: String
    var title: String
    var message: String
    var action: String
    var href: String
    var other = "Podium home"
    var otherHref = "/"

    static func session(_ code: String) -> DeadEnd {
        DeadEnd(
            reason: "session", title: "No session with code \(code)",
            message: "Check the code on the screen and try again: it may have been mistyped, or the session was never started.",
            action: "Enter another code", href: "/", other: "Presenter? Sign in to your library", otherHref: "/library")
    }

    static func room(_ code: String) -> DeadEnd {
        DeadEnd(
            reason: "room", title: "No room with code \(code)",
            message: "Check the link you were given: this code belongs to no room on this server.",
            action: "Enter another code", href: "/", other: "Moderator? Sign in to your library", otherHref: "/library")
    }

    static func console(_ code: String) -> DeadEnd {
        DeadEnd(
            reason: "session", title: "No such session",
            message: "No session has the code \(code). Start one from your library, or open the session you are running there.",
            action: "Go to the library", href: "/library")
    }

    static let deck = DeadEnd(
        reason: "deck", title: "No such deck",
        message: "This deck is not in your library: it may have been deleted, or the link is wrong.",
        action: "Go to the library", href: "/library")

    static let page = DeadEnd(
        reason: "page", title: "Page not found",
        message: "There is nothing at this address. If you came to join a presentation, type the code shown in the room.",
        action: "Join a presentation", href: "/", other: "Presenter? Sign in to your library", otherHref: "/library")

    /// The page, from the `error.html` template in `webRoot`, every value escaped.
    func response(webRoot: URL) throws -> Response {
        let template = try String(contentsOf: webRoot.appendingPathComponent("error.html"), encoding: .utf8)
        let values = [
            "status": String(status.code), "reason": reason, "title": title, "message": message, "action": action,
            "href": href, "other": other, "otherHref": otherHref,
        ]
        var html = template
        for (key, value) in values { html = html.replacingOccurrences(of: "{{\(key)}}", with: Self.escape(value)) }
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Whether the request is a browser opening a page (rather than a program calling the API).
    static func wantsPage(_ request: Request) -> Bool {
        guard request.method == .get || request.method == .head else { return false }
        let path = request.uri.path
        guard !path.hasPrefix("/api/"), !path.hasPrefix("/blobs/"), !path.hasPrefix("/vendor/") else { return false }
        let accept = request.headers[.accept] ?? ""
        return accept.contains("text/html")
    }
}

/// Answers a browser's unknown path with the "Page not found" dead end instead of a JSON error.
struct DeadEndMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let webRoot: URL

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError where error.status == .notFound && DeadEnd.wantsPage(request) {
            return try DeadEnd.page.response(webRoot: webRoot)
        }
    }
}
