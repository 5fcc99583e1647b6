import Foundation
import HTTPTypes
import Hummingbird
import PodiumStore

/// A channel item that an admin's "delete" archives first: videos and their categories, radio
/// stations, places and their categories, quizzes.
protocol ArchivableRecord: Sendable {
    var id: String { get }
    var archivedAt: Date? { get set }
    var updatedAt: Date { get set }
}

extension ChannelVideoRecord: ArchivableRecord {}
extension ChannelVideoCategoryRecord: ArchivableRecord {}
extension ChannelRadioRecord: ArchivableRecord {}
extension ChannelPlaceRecord: ArchivableRecord {}
extension ChannelPlaceCategoryRecord: ArchivableRecord {}
extension ChannelQuizRecord: ArchivableRecord {}

/// The archive of one part of the channel, written once for all of them (admins only, 401 signed
/// out, 403 otherwise; 404 naming `what` for an unknown id):
/// - `DELETE …/{id}` archives: the item leaves public reads (an archived one stays as it is);
/// - `POST …/{id}/restore` brings it back (a current one stays as it is) and answers the item;
/// - `DELETE …/{id}?permanent=true` deletes an archived item for ever (409 `not_archived` while it
///   is not archived; `permanent` is true or false, 400 otherwise).
/// A part gives its store calls and its answers.
struct ArchivableRoutes<Record: ArchivableRecord>: Sendable {
    /// What a 404 names: "place", "quiz", …
    let what: String
    let now: @Sendable () -> Date
    /// The stored item, archived or not.
    let find: @Sendable (_ id: String) async throws -> Record?
    /// Stores the item archived or restored.
    let save: @Sendable (Record) async throws -> Void
    /// Deletes an archived item for ever, with what belongs to it only (files, scores); may refuse.
    let deleteForEver: @Sendable (Record) async throws -> Void
    /// The answer to a restore: the item as its part shows it.
    let restored: @Sendable (Record, Request, AppRequestContext) async throws -> Response
    /// The answer to an archive: nil answers 204 No Content.
    var archived: (@Sendable (Record, Request, AppRequestContext) async throws -> Response)? = nil
    /// After each of the three, changed or not: what the part keeps beside the store (caches, schedules).
    var afterChange: @Sendable (_ id: String) async throws -> Void = { _ in }

    static var notArchived: APIError {
        APIError(
            .conflict, code: "not_archived",
            message: "Only an archived item can be deleted for ever: delete it once to archive it.")
    }

    /// `DELETE path/:id` and `POST path/:id/restore`.
    func addRoutes(to group: RouterGroup<AppRequestContext>, path: String) {
        group.delete("\(path)/:id", use: delete)
        group.post("\(path)/:id/restore", use: restore)
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        var record = try await existing(context)
        if try Self.permanent(request) {
            guard record.archivedAt != nil else { throw Self.notArchived }
            try await deleteForEver(record)
            try await afterChange(record.id)
            return Response(status: .noContent)
        }
        if record.archivedAt == nil {
            let at = now()
            record.archivedAt = at
            record.updatedAt = at
            try await save(record)
        }
        try await afterChange(record.id)
        return try await archived?(record, request, context) ?? Response(status: .noContent)
    }

    @Sendable func restore(_ request: Request, context: AppRequestContext) async throws -> Response {
        var record = try await existing(context)
        if record.archivedAt != nil {
            record.archivedAt = nil
            record.updatedAt = now()
            try await save(record)
        }
        try await afterChange(record.id)
        return try await restored(record, request, context)
    }

    /// The item of the path, once the asker is known to be an admin.
    private func existing(_ context: AppRequestContext) async throws -> Record {
        try ChannelStatusQuery.requireAdmin(context)
        guard let record = try await find(try context.parameters.require("id")) else { throw APIError.notFound(what) }
        return record
    }

    /// Whether a DELETE asks to remove for ever.
    static func permanent(_ request: Request) throws -> Bool {
        switch request.uri.queryParameters.get("permanent") {
        case nil, "false": false
        case "true": true
        default: throw APIError.badRequest("permanent is true or false.")
        }
    }
}
