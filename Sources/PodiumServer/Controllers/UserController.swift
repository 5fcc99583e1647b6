import Foundation
import Hummingbird
import PodiumStore

/// Accounts, for administrators: list them and make new ones (presenters who get a library, and
/// can be invited to edit someone's storyboard). There is no sign-up: an admin makes each
/// account and gives its owner the password.
struct UserController {
    let store: any PodiumStore
    let accounts: Accounts
    let now: @Sendable () -> Date

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("users", use: list)
        group.post("users", use: create)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> [UserResponse] {
        try requireAdmin(context)
        return try await store.users().map(UserResponse.init)
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
