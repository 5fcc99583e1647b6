import Foundation
import Hummingbird
import PodiumCore
import PodiumStore

/// A viewer's private notes per slide, kept under their identity cookie, and their Markdown export.
struct NotesController {
    let store: any NotesAndAttendanceStore
    let deckStore: any DeckStore
    let hub: LiveHub
    let now: @Sendable () -> Date

    static let maxNoteLength = 10_000

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("sessions/:code/notes", use: list)
        group.put("sessions/:code/notes/:page", use: save)
        group.get("sessions/:code/notes.md", use: markdown)
    }

    struct NotesResponse: ResponseEncodable {
        /// Notes by page number (as a string key, JSON objects have string keys).
        let notes: [String: String]
    }

    struct NoteBody: Decodable { let text: String }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> NotesResponse {
        let (session, viewer) = try await admittedViewer(context)
        let notes = try await store.notes(sessionId: session.record.id, viewerId: viewer)
        return NotesResponse(notes: Dictionary(uniqueKeysWithValues: notes.map { (String($0.key), $0.value) }))
    }

    @Sendable func save(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let (session, viewer) = try await admittedViewer(context)
        guard let page = Int(try context.parameters.require("page")), (1...session.info.pageCount).contains(page) else {
            throw APIError(.badRequest, code: "invalid_page", message: "That page does not exist in this deck.")
        }
        let text = try await request.decode(as: NoteBody.self, context: context).text
        guard text.count <= Self.maxNoteLength else {
            throw APIError(.badRequest, code: "too_long", message: "A note has at most \(Self.maxNoteLength) characters.")
        }
        try await store.saveNote(
            sessionId: session.record.id, viewerId: viewer, page: page,
            text: text.trimmingCharacters(in: .whitespacesAndNewlines),
            at: now())
        return .noContent
    }

    @Sendable func markdown(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (session, viewer) = try await admittedViewer(context)
        let notes = try await store.notes(sessionId: session.record.id, viewerId: viewer)
        let pages = try await session.record.deckId.asyncMap { try await deckStore.pages(deckId: $0) } ?? []
        var lines = ["# Notes: \(session.info.title)", ""]
        for page in pages where notes[page.number] != nil {
            lines += ["## Slide \(page.number): \(Self.slideTitle(page.text, number: page.number))", "", notes[page.number]!, ""]
        }
        if notes.isEmpty { lines.append("_No notes yet._") }
        var headers = HTTPFields()
        headers[.contentType] = "text/markdown; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"notes-\(session.record.code).md\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: .init(string: lines.joined(separator: "\n"))))
    }

    /// A slide's title: the first non-empty line of its text.
    static func slideTitle(_ text: String, number: Int) -> String {
        let line = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
        return line.map { String($0.prefix(120)) } ?? "Slide \(number)"
    }

    /// Notes belong to a viewer identity that has been admitted to the session (passcode and all).
    private func admittedViewer(_ context: AppRequestContext) async throws -> (LiveSession, String) {
        guard let code = JoinCode.normalize(try context.parameters.require("code")),
            let session = try await hub.session(code: code)
        else { throw APIError.notFound("session") }
        guard let viewer = context.viewerId, await session.state.viewerEntry(viewer) != nil else {
            throw APIError(.forbidden, code: "not_joined", message: "Join the session first to keep notes.")
        }
        return (session, viewer)
    }
}
