import Foundation

extension Endpoint {
    public static let users = Endpoint("GET", "/api/v1/users")
    public static let createUser = Endpoint("POST", "/api/v1/users")
    public static let updateUser = Endpoint("PATCH", "/api/v1/users/{id}")
}

extension PodiumClient {
    /// Every account, or those whose name or address contains `search` (admins only).
    public func users(search: String? = nil) async throws -> [User] {
        try await call(.users, query: ["search": search])
    }

    /// Makes an account (admins only): `role` `presenter` (default) or `admin`.
    public func createUser(email: String, password: String, name: String? = nil, role: String? = nil) async throws -> User {
        struct Body: Encodable {
            let email: String
            let password: String
            let name: String?
            let role: String?
        }
        return try await call(.createUser, json: Body(email: email, password: password, name: name, role: role))
    }

    /// Grants or revokes channel membership (admins only).
    public func setMember(userId: String, _ member: Bool) async throws -> User {
        struct Body: Encodable { let member: Bool }
        return try await call(.updateUser, ["id": userId], json: Body(member: member))
    }

    /// Sets an account's password (admins only); the account's other sign-ins end.
    public func setPassword(userId: String, _ password: String) async throws -> User {
        struct Body: Encodable { let password: String }
        return try await call(.updateUser, ["id": userId], json: Body(password: password))
    }

    /// The account with this address (admins only), or nil.
    public func user(email: String) async throws -> User? {
        try await users(search: email).first { $0.email.lowercased() == email.lowercased() }
    }
}
