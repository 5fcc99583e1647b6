import Foundation
import Hummingbird
import PodiumStore
import PodiumWire

/// Who hosts a live session besides its presenter: listed for its hosts, added by email by its
/// presenter or an admin, taken back by them, or left by the co-host. A course teacher's grant is
/// the course's (``CourseTeachers``): it is listed but not taken back here, since their next
/// launch from the course would grant it again.
///
/// A co-host whose grant is taken back keeps a console already open until they leave it, as a
/// viewer already in keeps watching after the passcode changes; every later door (a new console,
/// the passcode, the end, the report) asks the store and is shut.
extension SessionController {
    func addHostRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("sessions/:code/hosts", use: hostList)
        group.post("sessions/:code/hosts", use: addHost)
        group.delete("sessions/:code/hosts/:user", use: removeHost)
    }

    /// The session (not a room: its moderator runs it alone) and how `user` hosts it; anyone who
    /// does not host it is refused as for its passcode.
    private func hosted(_ context: AppRequestContext) async throws -> (SessionRecord, UserRecord, SessionHosts.HostPart) {
        let user = try context.requireUser()
        let record = try await record(context)
        guard !record.isRoom else { throw APIError.notFound("session") }
        guard let part = try await hosts.part(of: user, in: record) else { throw APIError.forbidden }
        return (record, user, part)
    }

    /// `GET /api/v1/sessions/{code}/hosts`: the presenter and the co-hosts, oldest grant first.
    @Sendable func hostList(_ request: Request, context: AppRequestContext) async throws -> SessionHostList {
        let (record, _, part) = try await hosted(context)
        let presenter = try await userStore.user(id: record.presenterId)
        var coHosts: [SessionCoHost] = []
        for grant in try await store.sessionHosts(sessionId: record.id) {
            // An account deleted since is no one's co-host any more.
            guard let user = try await userStore.user(id: grant.userId) else { continue }
            coHosts.append(SessionCoHost(user, grant))
        }
        return SessionHostList(
            presenter: Person(
                id: record.presenterId, name: presenter?.name ?? "", email: presenter?.email ?? ""),
            coHosts: coHosts, canManage: part != .coHost)
    }

    struct AddHostBody: Decodable { let email: String }

    /// `POST /api/v1/sessions/{code}/hosts` `{"email": "…"}`: the account with that address
    /// co-hosts the session from now on (its presenter or an admin, while it is live).
    @Sendable func addHost(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<SessionCoHost> {
        let (record, user, part) = try await hosted(context)
        guard part != .coHost else { throw APIError.forbidden }
        let email = try await request.decode(as: AddHostBody.self, context: context).email
            .trimmingCharacters(in: .whitespaces).lowercased()
        guard !email.isEmpty else { throw APIError.badRequest("Give the co-host's email address.") }
        guard record.isLive else { throw APIError(.conflict, code: "ended", message: "This session has ended.") }
        guard let invited = try await userStore.user(email: email) else {
            throw APIError(.notFound, code: "not_found", message: "No account has the address \(email).")
        }
        guard invited.id != record.presenterId else {
            throw APIError(.conflict, code: "already_host", message: "\(invited.name) presents this session.")
        }
        let grant = SessionHostRecord(
            sessionId: record.id, userId: invited.id, grantedBy: user.id, reason: "invited", createdAt: now())
        guard try await store.addSessionHost(grant) else {
            throw APIError(.conflict, code: "already_host", message: "\(invited.name) co-hosts this session already.")
        }
        try await audit?.record(
            "session.cohost_added", by: user, target: invited.email, detail: "session \(record.code)", context: context)
        return EditedResponse(status: .created, response: SessionCoHost(invited, grant))
    }

    /// `DELETE /api/v1/sessions/{code}/hosts/{userId}`: its presenter or an admin takes a grant
    /// back; a co-host may leave.
    @Sendable func removeHost(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let (record, user, part) = try await hosted(context)
        let removed = try context.parameters.require("user")
        guard part != .coHost || removed == user.id else { throw APIError.forbidden }
        let grants = try await store.sessionHosts(sessionId: record.id)
        guard let grant = grants.first(where: { $0.userId == removed }) else { throw APIError.notFound("co-host") }
        guard grant.reason != "lti-course" || removed == user.id else {
            throw APIError(
                .conflict, code: "course_teacher",
                message:
                    "They host it as a teacher of its course: the course decides, and their next launch would add them again.")
        }
        guard try await store.removeSessionHost(sessionId: record.id, userId: removed) else {
            throw APIError.notFound("co-host")
        }
        // Their open console or moderator page closes now, here and on every node.
        await hub.hostsChanged(record)
        let target = try await userStore.user(id: removed)?.email ?? removed
        try await audit?.record(
            "session.cohost_removed", by: user, target: target, detail: "session \(record.code)", context: context)
        return .noContent
    }
}

extension SessionCoHost: ResponseEncodable {
    init(_ user: UserRecord, _ grant: SessionHostRecord) {
        self.init(id: user.id, name: user.name, email: user.email, reason: grant.reason, since: grant.createdAt)
    }
}

extension SessionHostList: ResponseEncodable {}
