import Foundation
import Hummingbird
import PodiumCore
import PodiumMedia
import PodiumStore
import PodiumWire

/// A storyboard out of the editor: exported as a file (a `storyboard-export` job: a sheet, the
/// shots as PDF, PNGs in a ZIP, an animatic), or presented (its shots become a deck in the
/// owner's library, pages to show live with everything a deck has).
struct StoryboardExportController {
    let store: any StoryboardStore
    let blobs: any BlobStore
    let jobs: JobQueue
    let hub: StoryboardHub
    let decks: DeckController
    let workDirectory: URL
    let now: @Sendable () -> Date

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("storyboards/:id/exports", use: create)
        group.get("storyboards/:id/exports", use: list)
        group.get("storyboards/:id/exports/:export", use: show)
        group.get("storyboards/:id/exports/:export/file", use: download)
        group.head("storyboards/:id/exports/:export/file", use: download)
        group.post("storyboards/:id/present", use: present)
    }

    struct CreateBody: Decodable {
        let format: StoryboardExportRecord.Format
        /// Panels per sheet page: 1, 2, 4 or 6.
        let layout: Int?
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<ExportResponse> {
        let (record, user) = try await editable(context)
        let body: CreateBody
        do {
            body = try await request.decode(as: CreateBody.self, context: context)
        } catch {
            throw APIError.badRequest("An export names a format: sheet, pdf, png or animatic.")
        }
        let layout = body.format == .sheet ? (body.layout ?? 4) : 0
        guard body.format != .sheet || StoryboardPDF.layouts.contains(layout) else {
            throw APIError.badRequest("A sheet has 1, 2, 4 or 6 panels a page.")
        }
        let (_, seq) = try await hub.content(record.id)
        let export = StoryboardExportRecord(
            id: IDs.make("x"), storyboardId: record.id, ownerId: user.id, format: body.format, layout: layout, seq: seq,
            createdAt: now())
        try await store.insertStoryboardExport(export)
        let job = try await jobs.enqueue(
            kind: StoryboardExportRequest.kind, subjectId: export.id, ownerId: user.id,
            payload: StoryboardExportRequest(exportId: export.id))
        return EditedResponse(
            status: .accepted, response: ExportResponse(export, storyboard: record, jobId: job.id, progress: nil))
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> [ExportResponse] {
        let (record, _) = try await editable(context)
        return try await store.storyboardExports(storyboardId: record.id).map {
            ExportResponse($0, storyboard: record, jobId: nil, progress: jobs.progress(subjectId: $0.id))
        }
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> ExportResponse {
        let (record, _) = try await editable(context)
        let export = try await ownExport(of: record, context)
        return ExportResponse(export, storyboard: record, jobId: nil, progress: jobs.progress(subjectId: export.id))
    }

    @Sendable func download(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (record, _) = try await editable(context)
        let export = try await ownExport(of: record, context)
        guard export.status == .ready, let blob = export.blob, let url = blobs.file(named: blob) else {
            throw APIError(.conflict, code: "export_not_ready", message: "This export is not ready.")
        }
        var headers = HTTPFields()
        headers[.contentType] = WebController.mediaType(for: blob)
        headers[.contentDisposition] = "attachment; filename=\"\(ExportResponse.fileName(export, storyboard: record))\""
        return try await RangeResponse(file: url, entityTag: RangeResponse.entityTag(forBlob: blob), headers: headers)
            .response(to: request, context: context)
    }

    /// The shots, one a page, into the owner's library as a deck (processed like an upload): what
    /// a presenter then starts a session or shows in a room with.
    @Sendable func present(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<
        UploadedResponse<DeckResponse>
    > {
        let (record, user) = try await editable(context)
        let (content, _) = try await hub.content(record.id)
        guard !StoryboardRendering.shots(of: content).isEmpty else {
            throw APIError.badRequest("This storyboard has no shots to present.")
        }
        let file = workDirectory.appendingPathComponent("present-\(UUID().uuidString).pdf")
        defer { try? FileManager.default.removeItem(at: file) }
        let pdf = StoryboardRendering.shotsPDF(content, aspectRatio: record.aspectRatio)
        try pdf.write(to: file)
        let (deck, job) = try await decks.ingest(
            file: file, bytes: pdf.count, title: record.title, ownerId: user.id, folderId: nil)
        return EditedResponse(
            status: .created,
            response: UploadedResponse(
                item: DeckResponse(deck, pages: nil, firstPage: nil, progress: decks.progress(of: deck)), jobId: job.id))
    }

    private func editable(_ context: AppRequestContext) async throws -> (StoryboardRecord, UserRecord) {
        let user = try context.requireUser()
        guard let record = try await store.storyboard(id: try context.parameters.require("id")),
            try await StoryboardAccess.mayEdit(record, user: user, store: store)
        else { throw APIError.notFound("storyboard") }
        return (record, user)
    }

    private func ownExport(of record: StoryboardRecord, _ context: AppRequestContext) async throws -> StoryboardExportRecord {
        guard let export = try await store.storyboardExport(id: try context.parameters.require("export")),
            export.storyboardId == record.id
        else { throw APIError.notFound("export") }
        return export
    }
}

/// An export as the API shows it (PodiumWire's `StoryboardExport`, which the SDK decodes).
typealias ExportResponse = StoryboardExport

extension StoryboardExport: ResponseEncodable {
    init(_ export: StoryboardExportRecord, storyboard: StoryboardRecord, jobId: String?, progress: JobProgress?) {
        self.init(
            id: export.id, format: StoryboardExportFormat(export.format), layout: export.layout, seq: export.seq,
            status: export.status.rawValue, bytes: export.bytes,
            url: export.status == .ready ? "/api/v1/storyboards/\(storyboard.id)/exports/\(export.id)/file" : nil,
            fileName: Self.fileName(export, storyboard: storyboard),
            error: export.errorCode.map { FailureDetail(code: $0, message: export.errorMessage ?? "") },
            progress: progress.map { WorkProgress(stage: $0.stage, done: $0.done, total: $0.total) }, jobId: jobId,
            createdAt: export.createdAt)
    }

    static func fileName(_ export: StoryboardExportRecord, storyboard: StoryboardRecord) -> String {
        let base = storyboard.title.filter { $0.isLetter || $0.isNumber || " -_.".contains($0) }
        let name = base.isEmpty ? "storyboard" : base
        switch export.format {
        case .sheet: return "\(name) - sheet.pdf"
        case .pdf: return "\(name) - shots.pdf"
        case .png: return "\(name) - shots.zip"
        case .animatic: return "\(name) - animatic.mp4"
        }
    }
}

extension StoryboardExportFormat {
    init(_ format: StoryboardExportRecord.Format) {
        switch format {
        case .sheet: self = .sheet
        case .pdf: self = .pdf
        case .png: self = .png
        case .animatic: self = .animatic
        }
    }
}
