import Foundation
import Hummingbird
import PodiumStore
import PodiumWire

/// The audit log of admin actions (and sign-in lock-outs): who did what to whom, when, from where.
///
/// Actions: `user.created`, `user.invited`, `invitation.resent`, `invitation.revoked`,
/// `invitation.accepted`, `user.approved`, `sign_up.declined`, `user.role_changed`,
/// `user.membership_changed`, `user.password_set`, `sign_in.locked_out`, `session.cohost_added`,
/// `session.cohost_removed` (docs/operations.md).
struct AuditLog: Sendable {
    let store: any AccountStore
    let now: @Sendable () -> Date

    func record(
        _ action: String, by actor: UserRecord?, target: String? = nil, detail: String? = nil, address: String? = nil
    ) async throws {
        try await store.appendAudit(
            AuditRecord(
                at: now(), actorId: actor?.id, actorName: actor?.name ?? "Podium", action: action, target: target,
                detail: detail, address: address))
    }

    func record(
        _ action: String, by actor: UserRecord?, target: String? = nil, detail: String? = nil, context: AppRequestContext
    ) async throws {
        try await record(action, by: actor, target: target, detail: detail, address: context.clientKey)
    }
}

/// `GET /api/v1/audit?before=&limit=`: the audit log, newest first, paged (admins only).
struct AuditController {
    let store: any AccountStore

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("audit", use: list)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> AuditPage {
        guard try context.requireUser().role == .admin else { throw APIError.forbidden }
        let query = request.uri.queryParameters
        let limit = min(200, max(1, query.get("limit").flatMap { Int($0) } ?? 50))
        let before = query.get("before").flatMap { Int($0) }
        let records = try await store.auditEntries(before: before, limit: limit + 1)
        let page = records.prefix(limit).map {
            AuditEntry(
                seq: $0.seq, at: $0.at, actorId: $0.actorId, actorName: $0.actorName, action: $0.action, target: $0.target,
                detail: $0.detail, address: $0.address)
        }
        return AuditPage(entries: Array(page), before: records.count > limit ? page.last?.seq : nil)
    }
}

extension AuditPage: ResponseEncodable {}
