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

/// An account as others see it where it is named: a storyboard's editor, a session's presenter.
/// Only what they need to recognise it (not the role or the membership `User` carries).
public struct Person: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var email: String

    public init(id: String, name: String, email: String) {
        self.id = id
        self.name = name
        self.email = email
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

/// What a client checks before it sends a file (`GET /api/v1/limits`): refusing an upload in the
/// browser saves sending gigabytes the server would refuse.
public struct Limits: Codable, Sendable, Equatable {
    /// The largest deck upload, in bytes; a larger one is refused with `413 too_large`.
    public var maxUploadBytes: Int
    /// What a deck upload may be (by its bytes, whatever its name).
    public var uploadTypes: [String]
    /// The largest video or audio file, in bytes (`413 too_large` above it).
    public var maxVideoUploadBytes: Int
    /// The longest clip accepted, in seconds (`too_long` above it, found by probing the file).
    public var maxVideoSeconds: Int

    public init(maxUploadBytes: Int, uploadTypes: [String], maxVideoUploadBytes: Int, maxVideoSeconds: Int) {
        self.maxUploadBytes = maxUploadBytes
        self.uploadTypes = uploadTypes
        self.maxVideoUploadBytes = maxVideoUploadBytes
        self.maxVideoSeconds = maxVideoSeconds
    }
}
