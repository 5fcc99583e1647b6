import Crypto
import Foundation
import HummingbirdBcrypt
import Logging
import NIOPosix
import PodiumStore

/// Passwords, passcodes and sign-in tokens.
///
/// bcrypt is deliberately slow, so it runs on the thread pool, never on an event loop.
struct Accounts: Sendable {
    let store: any UserStore
    let cost: UInt8
    let tokenLifetime: TimeInterval
    let now: @Sendable () -> Date

    func hash(_ secret: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(secret, cost: cost) }
    }

    func verify(_ secret: String, against hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(secret, hash: hash) }
    }

    /// The account a sign-in names: an email address, or the first admin's user name `admin`
    /// (its account has no address), in any case, spaces around it ignored.
    static func accountKey(_ login: String) -> String {
        login.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// Checks an email (or the user name `admin`) and password; returns the user and a new token.
    func signIn(email: String, password: String) async throws -> (UserRecord, String)? {
        guard let user = try await store.user(email: Self.accountKey(email)),
            try await verify(password, against: user.passwordHash)
        else { return nil }
        return (user, try await newToken(for: user))
    }

    /// A new sign-in token for `user`.
    func newToken(for user: UserRecord) async throws -> String {
        let token = Self.randomToken()
        try await store.insertToken(hash: Self.tokenHash(token), userId: user.id, expiresAt: now() + tokenLifetime)
        return token
    }

    func user(token: String) async throws -> UserRecord? {
        try await store.user(tokenHash: Self.tokenHash(token), now: now())
    }

    func signOut(token: String) async throws {
        try await store.deleteToken(hash: Self.tokenHash(token))
    }

    /// Creates the first admin when there is no account yet. Returns the password when it was
    /// generated here, so it can be printed once.
    func ensureAdmin(password: String?, logger: Logger) async throws -> (created: Bool, generatedPassword: String?) {
        guard try await store.userCount() == 0 else { return (false, nil) }
        let chosen = password ?? Self.randomPassword()
        let admin = UserRecord(
            id: IDs.make("u"), email: "admin", name: "Admin", role: .admin, passwordHash: try await hash(chosen),
            createdAt: now())
        do {
            try await store.insertUser(admin)
        } catch {
            // Several nodes starting together on one empty database all find no user; the first
            // to insert wins (the email is unique) and the others go on with its account.
            guard try await store.user(email: admin.email) != nil else { throw error }
            return (false, nil)
        }
        logger.info("created the first admin account")
        return (true, password == nil ? chosen : nil)
    }

    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
    }

    /// Four groups of four unambiguous characters: easy to read off a terminal and type.
    static func randomPassword() -> String {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")
        return (0..<4).map { _ in String((0..<4).map { _ in alphabet.randomElement()! }) }.joined(separator: "-")
    }

    static func tokenHash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// Random identifiers with a short prefix that says what they name (`d_…` a deck, `s_…` a session).
enum IDs {
    static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")

    /// `prefix_` and `length` characters of the alphabet, each equally likely. The alphabet has 32
    /// letters, so a letter is 5 random bits and one 64-bit draw gives twelve: a viewer's cookie
    /// (24 letters) asks the system for randomness twice, not once a letter (`getrandom(2)` each).
    ///
    /// Written as bytes into the string's own storage: an array of `Character`s made into a
    /// string and joined to the prefix cost about 6,000 instructions an id, and every viewer's
    /// hello makes two (its cookie, its visit; `Benchmarks/fanout-instructions.sh`, #42).
    static func make(_ prefix: String, length: Int = 12) -> String {
        var generator = SystemRandomNumberGenerator()
        let head = prefix.utf8
        return String(unsafeUninitializedCapacity: head.count + 1 + length) { buffer in
            var end = buffer.initialize(fromContentsOf: head)
            buffer[end] = UInt8(ascii: "_")
            end += 1
            var bits: UInt64 = 0
            for index in 0..<length {
                if index % 12 == 0 { bits = generator.next() }
                buffer[end] = alphabetBytes[Int(bits & 31)]
                end += 1
                bits >>= 5
            }
            return end
        }
    }

    /// ``alphabet`` as ASCII bytes.
    private static let alphabetBytes = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)
}
