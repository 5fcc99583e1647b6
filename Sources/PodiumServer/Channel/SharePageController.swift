import Foundation
import Hummingbird
import NIOCore

/// `GET /c/<kind>/<id>`: the share link of a video, radio, place or quiz. Link previews (chat
/// apps, social networks) read its Open Graph tags; a person's browser goes on to the item on the
/// channel page. The page has no script (the CSP allows none inline): a meta refresh and a link.
struct SharePageController {
    let parts: [String: any ChannelPublications]
    let channelName: String
    /// The server's public URL, for absolute `og:url` and `og:image` (previews need them).
    let publicURL: String?

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/c/:kind/:id", use: page)
        // Link-preview fetchers often ask with HEAD first; a 404 there made them give up.
        router.head("/c/:kind/:id", use: page)
    }

    @Sendable func page(_ request: Request, context: AppRequestContext) async throws -> Response {
        let kind = try context.parameters.require("kind")
        let id = try context.parameters.require("id")
        guard let part = parts[kind], let item = try await part.published(id: id) else {
            throw APIError.notFound("item to share")
        }
        let base = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? Self.origin(of: request)
        let html = Self.html(item, channelName: channelName, base: base)
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        let body = ByteBuffer(string: html)
        guard request.method != .head else {
            // The GET's headers, its length included, and no body.
            headers[.contentLength] = String(body.readableBytes)
            return Response(status: .ok, headers: headers, body: .init())
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }

    /// `<scheme>://<Host>` of the request: what the person who shared it reached the server by
    /// (`https` when the server serves TLS itself).
    static func origin(of request: Request) -> String {
        let host = request.head.authority ?? "localhost"
        return "\(request.head.scheme ?? "http")://\(host)"
    }

    static func html(_ item: ChannelPublication, channelName: String, base: String) -> String {
        let type =
            switch item.kind {
            case "video": "video.other"
            case "radio": "music.radio_station"
            case "place": "place"
            default: "website"
            }
        let description = String(item.description.prefix(300))
        var meta = [
            ("og:type", type), ("og:site_name", channelName), ("og:title", item.title), ("og:description", description),
            ("og:url", base + item.sharePath), ("twitter:card", item.imagePath == nil ? "summary" : "summary_large_image"),
        ]
        if let image = item.imagePath { meta.append(("og:image", base + image)) }
        let tags = meta.map { "  <meta property=\"\($0.0)\" content=\"\(escape($0.1))\">" }.joined(separator: "\n")
        let target = escape(item.pagePath)
        return """
            <!doctype html>
            <html lang="en">
            <head>
              <meta charset="utf-8">
              <meta name="viewport" content="width=device-width, initial-scale=1">
              <title>\(escape(item.title)) — \(escape(channelName))</title>
              <meta name="description" content="\(escape(description))">
            \(tags)
              <meta http-equiv="refresh" content="0; url=\(target)">
              <link rel="stylesheet" href="/app/core/styles.css">
            </head>
            <body>
              <main class="share-page">
                <h1>\(escape(item.title))</h1>
                <p>\(escape(description))</p>
                <p><a class="btn btn-primary" href="\(target)">Open on \(escape(channelName))</a></p>
              </main>
            </body>
            </html>

            """
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
