import Foundation
import Hummingbird
import PodiumCore
import PodiumStore

/// The browser client's pages, page images, Debian's browser libraries and the OpenAPI document.
struct WebController {
    let webRoot: URL
    let vendorRoots: [URL]
    let blobs: any BlobStore
    /// To tell a link that leads nowhere (see ``DeadEnd``).
    let store: any SessionStore
    let deckStore: any DeckStore
    let fileIO = FileIO()

    /// Pretty URLs and the page that serves each.
    static let pages: [(path: String, file: String)] = [
        ("/", "index.html"), ("/login", "login.html"), ("/library", "library.html"),
        ("/decks/:id", "rehearse.html"), ("/present/:code", "present.html"), ("/s/:code", "view.html"),
        ("/s/:code/screen", "screen.html"),
        // A session's or room's replay (issue #44): one page for both.
        ("/s/:code/replay", "replay.html"), ("/r/:code/replay", "replay.html"),
        ("/r/:code", "room.html"), ("/r/:code/moderate", "moderate.html"), ("/r/:code/projector", "projector.html"),
        ("/channel", "channel.html"), ("/channel/admin", "channel-admin.html"),
        // Account links sent by email (issue #43) and "Forgot password?".
        ("/invitation", "invitation.html"), ("/sign-up", "sign-up.html"), ("/reset-password", "reset-password.html"),
    ]

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/healthz") { _, _ in "ok" }
        for page in Self.pages {
            router.get(RouterPath(page.path)) { request, context in
                try await htmlPage(page.file, request: request, context: context)
            }
        }
        router.get("/blobs/:name", use: blob)
        router.head("/blobs/:name", use: blob)
        router.get("/vendor/**", use: vendor)
        router.get("/api/v1/openapi.yaml") { request, context in
            try await file(webRoot.appendingPathComponent("openapi.yaml"), type: "application/yaml", context: context)
        }
    }

    /// Serves an HTML page and gives a new browser its anonymous viewer identity; a link to a
    /// session, room or deck that does not exist gets its ``DeadEnd`` page instead.
    func htmlPage(_ name: String, request: Request, context: AppRequestContext) async throws -> Response {
        if let deadEnd = try await deadEnd(name, context: context) { return try deadEnd.response(webRoot: webRoot) }
        var response = try await file(webRoot.appendingPathComponent(name), type: "text/html; charset=utf-8", context: context)
        response.headers[.cacheControl] = "no-cache"
        if context.viewerId == nil { response.setCookie(ViewerCookie.issue()) }
        return response
    }

    /// Why the page `name` would lead nowhere for these parameters, if it would.
    func deadEnd(_ name: String, context: AppRequestContext) async throws -> DeadEnd? {
        switch name {
        case "view.html", "screen.html", "room.html", "moderate.html", "projector.html", "present.html", "replay.html":
            let raw = context.parameters.get("code") ?? ""
            let typed = raw.removingPercentEncoding ?? raw
            let shown = String(typed.prefix(12))
            let record = try await JoinCode.normalize(typed).asyncMap { try await store.session(code: $0) } ?? nil
            switch name {
            case "view.html", "screen.html", "replay.html": return record == nil ? .session(shown) : nil
            case "present.html": return record == nil ? .console(shown) : nil
            default: return record?.isRoom == true ? nil : .room(shown)
            }
        case "rehearse.html":
            // Signed out, the page sends the browser to sign in; signed in, the deck must be theirs.
            guard let user = context.user, let id = context.parameters.get("id") else { return nil }
            let deck = try await deckStore.deck(id: id)
            return deck.map { $0.ownerId == user.id || user.role == .admin } == true ? nil : .deck
        default:
            return nil
        }
    }

    /// What `/blobs/` serves: pictures, public by nature (page images, deck thumbnails, video
    /// posters and thumbnail sprites, place pictures, storyboard reference images). Their names
    /// are SHA-256 hashes of their bytes, which nobody can guess; only those shown the picture
    /// learn its name, and they could have saved the picture itself.
    static let publicBlobExtensions: Set<String> = ["jpg", "jpeg", "png", "webp"]

    /// Whether `/blobs/` may serve the blob `name`: a picture. Media (playlists, segments, MP4,
    /// audio, a video's thumbnail track) are served only through expiring capability URLs
    /// (`/stream/<token>/<file>`); a deck's PDF only by its own authorised download route.
    static func isPublicBlob(_ name: String) -> Bool {
        publicBlobExtensions.contains(fileExtension(name).lowercased())
    }

    /// What follows the last `.` of a file's name (`NSString.pathExtension` for a name without a
    /// `/`, without bridging to `NSString` at each request): empty for none, and for a name that
    /// starts with its only dot.
    static func fileExtension(_ name: String) -> Substring {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...]
    }

    /// A picture blob, whole or by range (see ``RangeResponse``). Any other blob is 404
    /// `not_found`, as if it did not exist, even when it does. A request that needs nothing of the
    /// middleware is answered the same way on the connection's loop (``FileAnswers``).
    @Sendable func blob(_ request: Request, context: AppRequestContext) async throws -> Response {
        let name = try context.parameters.require("name")
        return try await Self.publicBlob(name, blobs: blobs).response(to: request, context: context, fileIO: fileIO)
    }

    /// What `/blobs/<name>` answers with, here and on the connection's loop: the picture blob
    /// `name`; `404` for any other name or a missing file.
    static func publicBlob(_ name: String, blobs: any BlobStore) throws -> RangeResponse {
        // The file's one stat is RangeResponse's (a missing file is its 404).
        guard let path = publicBlobPath(name, blobs: blobs) else { throw APIError.notFound("file") }
        var headers = HTTPFields()
        headers[.contentType] = mediaType(for: name)
        // Named by content hash: the bytes behind a name never change.
        headers[.cacheControl] = "public, max-age=31536000, immutable"
        return try RangeResponse(path: path, entityTag: RangeResponse.entityTag(forBlob: name), headers: headers)
    }

    /// Where the picture blob `name` is (nil: any other name, `404`), before any `stat`.
    static func publicBlobPath(_ name: String, blobs: any BlobStore) -> String? {
        isPublicBlob(name) ? blobs.path(named: name) : nil
    }

    /// `/vendor/<package>/<file>` from the first of ``vendorRoots`` that has it: Debian's packaged
    /// browser libraries, then those the set-up installs from PyPI.
    @Sendable func vendor(_ request: Request, context: AppRequestContext) async throws -> Response {
        let relative = request.uri.path.dropFirst("/vendor/".count)
        let parts = relative.split(separator: "/")
        guard !parts.isEmpty, parts.allSatisfy({ $0 != ".." && !$0.hasPrefix(".") }) else {
            throw APIError.notFound("file")
        }
        let candidates = vendorRoots.map { root in parts.reduce(root) { $0.appendingPathComponent(String($1)) } }
        guard let url = candidates.first(where: { FileManager.default.fileExists(atPath: $0.path) }) else {
            throw APIError.notFound("file")
        }
        var response = try await file(url, type: Self.mediaType(for: url.lastPathComponent), context: context)
        response.headers[.cacheControl] = "public, max-age=3600"
        return response
    }

    func file(_ url: URL, type: String, context: AppRequestContext) async throws -> Response {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw APIError.notFound("file")
        }
        let body = try await fileIO.loadFile(path: url.path, context: context)
        var headers = HTTPFields()
        headers[.contentType] = type
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The original PDF of a deck, as a download named after its title; by range too (see
    /// ``RangeResponse``), so an interrupted download can resume.
    static func pdfResponse(deck: DeckRecord, blobs: any BlobStore, request: Request, context: AppRequestContext)
        async throws -> Response
    {
        guard let url = blobs.file(named: deck.sourceHash) else { throw APIError.notFound("file") }
        var headers = HTTPFields()
        headers[.contentType] = "application/pdf"
        let safeName = deck.title.filter { $0.isLetter || $0.isNumber || " -_.".contains($0) }
        headers[.contentDisposition] = "attachment; filename=\"\(safeName.isEmpty ? "deck" : safeName).pdf\""
        return try await RangeResponse(file: url, entityTag: RangeResponse.entityTag(forBlob: deck.sourceHash), headers: headers)
            .response(to: request, context: context)
    }

    /// The `Content-Type` of a file by its extension. Media types are those players expect:
    /// `m3u8` is what Safari's native HLS asks for, `m4s` is a CMAF/fMP4 segment (IANA's
    /// `video/iso.segment`; Media Source Extensions read the bytes whatever the type).
    static func mediaType(for name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "webp": "image/webp"
        case "svg": "image/svg+xml"
        case "pdf": "application/pdf"
        case "mp4": "video/mp4"
        case "m4s": "video/iso.segment"
        case "ts": "video/mp2t"
        case "webm": "video/webm"
        case "m4a": "audio/mp4"
        case "mp3": "audio/mpeg"
        case "aac": "audio/aac"
        case "m3u8": "application/vnd.apple.mpegurl"
        case "vtt": "text/vtt; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "json": "application/json"
        case "yaml", "yml": "application/yaml"
        default: "application/octet-stream"
        }
    }
}
