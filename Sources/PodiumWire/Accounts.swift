import Foundation

/// An account as the server shows it (`GET /api/v1/me`, the users list, a login's `user`).
public struct User: Codable, Sendable, Equatable {
    public var id: String
    public var email: String
    public var name: String
    /// `admin` or `presenter`.
    public var role: String
    /// A member of the channel (admins see all of it whatever this says).
    public var member: Bool

    public init(id: String, email: String, name: String, role: String, member: Bool) {
        self.id = id
        self.email = email
        self.name = name
        self.role = role
        self.member = member
    }
}

/// The answer to `POST /api/v1/auth/login`: a bearer token and the account it signs in.
public struct LoginResponse: Codable, Sendable, Equatable {
    public var token: String
    public var user: User

    public init(token: String, user: User) {
        self.token = token
        self.user = user
    }
}
