/// The answer to `GET /api/v1/auth/options`: how people may sign in here, and what else the
/// sign-in page offers (asking for an account, a password reset by email).
public struct SignInOptionsResponse: Codable, Sendable, Equatable {
    /// A single sign-on provider: the button's name and where a browser starts.
    public struct SingleSignOn: Codable, Sendable, Equatable {
        /// "School account": the button says "Sign in with School account".
        public var name: String
        /// `/api/v1/auth/oidc/start` (takes `?next=` a path of this site).
        public var start: String

        public init(name: String, start: String) {
            self.name = name
            self.start = start
        }
    }

    /// Email (or user name) and password.
    public var password: Bool
    /// nil: no single sign-on is configured.
    public var singleSignOn: SingleSignOn?
    /// Visitors may ask for an account (`--allow-sign-up` with a mail relay).
    public var signUp: Bool
    /// A mail relay is configured: "Forgot password?" can send a link.
    public var passwordReset: Bool

    public init(password: Bool, singleSignOn: SingleSignOn?, signUp: Bool, passwordReset: Bool) {
        self.password = password
        self.singleSignOn = singleSignOn
        self.signUp = signUp
        self.passwordReset = passwordReset
    }
}
