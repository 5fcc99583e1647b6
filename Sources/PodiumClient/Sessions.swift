import Foundation
import PodiumCore
import PodiumWire

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a HEAD of a file says.
public struct FileInfo: Sendable, Equatable {
    public var length: Int64?
    public var etag: String?
    public var contentType: String?
}

extension Endpoint {
    public static let liveSessions = Endpoint("GET", "/api/v1/sessions")
    public static let startSession = Endpoint("POST", "/api/v1/sessions")
    public static let session = Endpoint("GET", "/api/v1/sessions/{code}")
    public static let updateSession = Endpoint("PATCH", "/api/v1/sessions/{code}")
    public static let endSession = Endpoint("POST", "/api/v1/sessions/{code}/end")
    public static let history = Endpoint("GET", "/api/v1/history")
    public static let sessionDownload = Endpoint("GET", "/api/v1/sessions/{code}/download")
    public static let sessionDownloadHead = Endpoint("HEAD", "/api/v1/sessions/{code}/download")
    public static let deckPDFHead = Endpoint("HEAD", "/api/v1/decks/{id}/pdf")
    public static let blobHead = Endpoint("HEAD", "/blobs/{name}")
    public static let sessionNotes = Endpoint("GET", "/api/v1/sessions/{code}/notes")
    public static let putSessionNote = Endpoint("PUT", "/api/v1/sessions/{code}/notes/{page}")
    public static let sessionNotesMarkdown = Endpoint("GET", "/api/v1/sessions/{code}/notes.md")
    /// A session's replay: its timeline (issue #44).
    public static let sessionReplay = Endpoint("GET", "/api/v1/sessions/{code}/replay")
    /// Who hosts a session, and adding or removing a co-host.
    public static let sessionHosts = Endpoint("GET", "/api/v1/sessions/{code}/hosts")
    public static let addSessionHost = Endpoint("POST", "/api/v1/sessions/{code}/hosts")
    public static let removeSessionHost = Endpoint("DELETE", "/api/v1/sessions/{code}/hosts/{userId}")
    /// The live socket (`docs/protocol.md`); not an OpenAPI operation.
    public static let live = Endpoint("GET", "/api/v1/sessions/{code}/live")
    /// The lobby socket (listed live sessions, pushed); not an OpenAPI operation.
    public static let lobby = Endpoint("GET", "/api/v1/lobby")
}

extension PodiumClient {
    /// Who hosts the session (its hosts only).
    public func sessionHosts(code: String) async throws -> SessionHostList {
        try await call(.sessionHosts, ["code": code])
    }

    /// Makes the account with this address a co-host (the presenter or an admin).
    public func addSessionHost(code: String, email: String) async throws -> SessionCoHost {
        try await call(.addSessionHost, ["code": code], json: ["email": email])
    }

    /// Takes a co-host's grant back (the presenter or an admin), or leaves (the co-host).
    public func removeSessionHost(code: String, userId: String) async throws {
        try await callIgnoringReply(.removeSessionHost, ["code": code, "userId": userId])
    }

    /// Starts a live session of a ready deck.
    public func startSession(
        deckId: String, passcode: String? = nil, allowDownload: Bool = false, unlisted: Bool = false
    ) async throws -> LiveSessionInfo {
        var patch = Patch()
        try patch.add("deckId", deckId)
        try patch.add("passcode", passcode)
        try patch.add("allowDownload", allowDownload)
        try patch.add("unlisted", unlisted)
        return try await call(.startSession, json: patch)
    }

    /// Listed live sessions (and, signed in, your unlisted ones).
    public func liveSessions() async throws -> [LiveSessionInfo] {
        try await call(.liveSessions, query: ["live": "true"])
    }

    /// What a viewer needs to know before joining (its host also gets `passcode`).
    public func session(code: String) async throws -> LiveSessionInfo {
        try await call(.session, ["code": code])
    }

    /// Changes the passcode (`.set(nil)` removes it), whether the session is listed, or who may
    /// watch its replay (that one also after the end).
    public func updateSession(
        code: String, passcode: Change<String> = .keep, unlisted: Bool? = nil, replay: ReplayAccess? = nil
    ) async throws -> LiveSessionInfo {
        var patch = Patch()
        try patch.add("passcode", passcode)
        try patch.add("unlisted", unlisted)
        try patch.add("replay", replay?.rawValue)
        return try await call(.updateSession, ["code": code], json: patch)
    }

    /// A session's replay as it happened (its host; anyone once shared by link, without a passcode).
    public func replay(code: String) async throws -> ReplayTimelineResponse {
        try await call(.sessionReplay, ["code": code])
    }

    /// Ends a session or a room (its host or an admin).
    @discardableResult
    public func endSession(code: String) async throws -> LiveSessionInfo {
        try await call(.endSession, ["code": code])
    }

    /// The signed-in user's sessions and rooms, newest first.
    public func history(limit: Int? = nil, before: String? = nil) async throws -> HistoryPage {
        try await call(.history, query: ["limit": limit.map(String.init), "before": before])
    }

    /// Downloads the deck of a session that allows downloads.
    public func downloadSessionPDF(code: String, to destination: URL, progress: ProgressHandler? = nil) async throws {
        try await download(try request(.sessionDownload, ["code": code]), to: destination, progress: progress)
    }

    /// The size and tag of a file without its body: a session's download, a deck's PDF or a blob.
    public func fileInfo(sessionDownload code: String) async throws -> FileInfo {
        try await head(.sessionDownloadHead, ["code": code])
    }

    public func fileInfo(deckPDF id: String) async throws -> FileInfo {
        try await head(.deckPDFHead, ["id": id])
    }

    public func fileInfo(blob name: String) async throws -> FileInfo {
        try await head(.blobHead, ["name": name])
    }

    func head(_ endpoint: Endpoint, _ parameters: [String: String]) async throws -> FileInfo {
        let (_, response) = try await perform(try request(endpoint, parameters))
        return FileInfo(
            length: response.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) },
            etag: response.value(forHTTPHeaderField: "ETag"),
            contentType: response.value(forHTTPHeaderField: "Content-Type"))
    }

    // MARK: Viewer notes (a viewer's identity cookie; programs pass it as `cookie`)

    /// The calling viewer's notes, by page number.
    public func viewerNotes(code: String) async throws -> [Int: String] {
        struct Notes: Decodable { let notes: [String: String] }
        let reply: Notes = try await call(.sessionNotes, ["code": code])
        return Dictionary(uniqueKeysWithValues: reply.notes.compactMap { key, text in Int(key).map { ($0, text) } })
    }

    /// Saves the note of one page (empty text deletes it).
    public func putViewerNote(code: String, page: Int, text: String) async throws {
        struct Body: Encodable { let text: String }
        try await callIgnoringReply(.putSessionNote, ["code": code, "page": String(page)], json: Body(text: text))
    }

    public func viewerNotesMarkdown(code: String) async throws -> String {
        String(decoding: try await bytes(.sessionNotesMarkdown, ["code": code]), as: UTF8.self)
    }
}
