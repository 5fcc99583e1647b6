import Foundation
import Hummingbird
import PodiumStore
import PodiumWire

/// Accounts, for administrators: list and search them, make new ones (presenters who get a
/// library, and can be invited to edit someone's storyboard), grant and revoke channel
/// membership. There is no sign-up: an admin makes each account and gives its owner the password.
struct UserController {
    let store: any UserStore
    let accounts: Accounts
    let now: @Sendable () -> Date

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
    }

    /// Grants or revokes channel membership, or sets a new password.
    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> UserResponse {
        try requireAdmin(context)
        let body = try await request.decode(as: UpdateBody.self, context: context)
        guard var user = try await store.user(id: try context.parameters.require("id")) else {
            throw APIError.notFound("account")
        }
        guard body.member != nil || body.password != nil else {
            throw APIError.badRequest("Say what to change: member or password.")
        }
        if let password = body.password {
            guard password.count >= 8, password.count <= 200 else {
                throw APIError.badRequest("A password has 8 to 200 characters.")
            }
            try await store.setPasswordHash(userId: user.id, try await accounts.hash(password))
        }
        if let member = body.member {
            try await store.setMember(userId: user.id, member)
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
        try requireAdmin(context)
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
        return EditedResponse(status: .created, response: UserResponse(user))
    }

    private func requireAdmin(_ context: AppRequestContext) throws {
        guard try context.requireUser().role == .admin else { throw APIError.forbidden }
    }
}
