import Foundation
import Hummingbird
import PodiumStore
import PodiumWire

/// Accounts, for administrators: list and search them, make new ones (presenters who get a
/// library, and can be invited to edit someone's storyboard), grant and revoke channel
/// membership, change roles. Accounts are also made by invitation and by approved sign-up
/// (Invitations.swift, SignUp.swift). Every change is recorded in the audit log.
struct UserController {
    let store: any UserStore
    let accounts: Accounts
    let now: @Sendable () -> Date
    let roles: any AccountStore
    let audit: AuditLog

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("users", use: list)
        group.post("users", use: create)
        group.patch("users/:id", use: update)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> [UserResponse] {
        try requireAdmin(context)
        let users = try await store.users()
        guard let search = request.uri.queryParameters.get("search")?.trimmingCharacters(in: .whitespaces), !search.isEmpty
        else { return users.map(UserResponse.init) }
        return users.filter {
            $0.email.localizedCaseInsensitiveContains(search) || $0.name.localizedCaseInsensitiveContains(search)
        }
        .map(UserResponse.init)
    }

    struct UpdateBody: Decodable {
        let member: Bool?
        /// A new password (8 to 200 characters); the account's sign-ins end.
        let password: String?
        /// `admin` or `presenter`; the last admin stays one (`409 last_admin`).
        let role: UserRecord.Role?
    }

    /// Grants or revokes channel membership, sets a new password, or changes the role.
    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> UserResponse {
        let admin = try requireAdmin(context)
        let body = try await request.decode(as: UpdateBody.self, context: context)
        guard var user = try await store.user(id: try context.parameters.require("id")) else {
            throw APIError.notFound("account")
        }
        guard body.member != nil || body.password != nil || body.role != nil else {
            throw APIError.badRequest("Say what to change: member, password or role.")
        }
        if let password = body.password {
            guard password.count >= 8, password.count <= 200 else {
                throw APIError.badRequest("A password has 8 to 200 characters.")
            }
            try await store.setPasswordHash(userId: user.id, try await accounts.hash(password))
            try await audit.record("user.password_set", by: admin, target: user.email, context: context)
        }
        if let role = body.role, role != user.role {
            if user.role == .admin, try await roles.adminCount() <= 1 {
                throw APIError(.conflict, code: "last_admin", message: "The last admin stays an admin.")
            }
            try await roles.setRole(userId: user.id, role)
            try await audit.record(
                "user.role_changed", by: admin, target: user.email, detail: role.rawValue, context: context)
            user.role = role
        }
        if let member = body.member {
            try await store.setMember(userId: user.id, member)
            if member != user.isMember {
                try await audit.record(
                    "user.membership_changed", by: admin, target: user.email, detail: member ? "member" : "not a member",
                    context: context)
            }
            user.isMember = member
        }
        return UserResponse(user)
    }

    struct CreateBody: Decodable {
        let email: String
        let name: String?
        let password: String
        let role: UserRecord.Role?
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<UserResponse> {
        let admin = try requireAdmin(context)
        let body = try await request.decode(as: CreateBody.self, context: context)
        let email = body.email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard email.count <= 200, email.contains("@"), !email.contains(" ") else {
            throw APIError.badRequest("An account needs an email address.")
        }
        guard body.password.count >= 8, body.password.count <= 200 else {
            throw APIError.badRequest("A password has 8 to 200 characters.")
        }
        guard try await store.user(email: email) == nil else {
            throw APIError(.conflict, code: "email_taken", message: "An account has this address already.")
        }
        let name = DeckController.cleanTitle(body.name ?? "")
        let user = UserRecord(
            id: IDs.make("u"), email: email, name: name.isEmpty ? email : name, role: body.role ?? .presenter,
            passwordHash: try await accounts.hash(body.password), createdAt: now())
        try await store.insertUser(user)
        try await audit.record("user.created", by: admin, target: email, detail: user.role.rawValue, context: context)
        return EditedResponse(status: .created, response: UserResponse(user))
    }

    @discardableResult
    private func requireAdmin(_ context: AppRequestContext) throws -> UserRecord {
        let user = try context.requireUser()
        guard user.role == .admin else { throw APIError.forbidden }
        return user
    }
}
