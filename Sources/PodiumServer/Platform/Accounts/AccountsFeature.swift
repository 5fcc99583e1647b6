import Foundation
import Hummingbird
import PodiumStore
import PodiumWire

/// Accounts: signing in and out (`/api/v1/auth`) and the admin's users (`/api/v1/users`). The
/// ``Accounts`` themselves are the platform's: every feature checks who asks.
struct AccountsFeature: ServerFeature {
    let auth: AuthController
    let users: UserController
    let invitations: InvitationController
    let signUps: SignUpController
    let passwordResets: PasswordResetController
    let audit: AuditController
    /// What the sign-in page offers (`GET /api/v1/auth/options`): the single sign-on button
    /// (``OIDCFeature``), asking for an account, a password reset by email.
    let signInOptions: SignInOptionsResponse

    init(_ platform: Platform) {
        let configuration = platform.configuration
        let channelVideos = platform.stores.channelVideos
        let auditLog = AuditLog(store: platform.stores.accounts, now: platform.now)
        auth = AuthController(
            accounts: platform.accounts, tokenLifetime: configuration.tokenLifetime,
            limits: SignInLimits(
                limit: configuration.loginAttempts, window: configuration.passcodeWindow,
                deviceKey: SignInLimits.deviceKey(from: platform.streamTokens.keyBytes)),
            audit: auditLog,
            languages: platform.stores.accounts,
            now: platform.now,
            // What the browser kept on the channel before signing in (favourites, positions) is the person's.
            signedIn: { viewerId, user in
                if let viewerId { try await channelVideos.adoptChannelViewer(from: viewerId, into: user.id) }
            })
        users = UserController(
            store: platform.stores.users, accounts: platform.accounts, now: platform.now, roles: platform.stores.accounts,
            audit: auditLog)
        let links = AccountLinks(
            store: platform.stores.accounts, users: platform.stores.users, accounts: platform.accounts,
            mailer: Mailer(relay: configuration.smtpRelay, from: configuration.mailFrom, logger: platform.logger),
            mail: AccountMail(
                catalog: MailCatalog(webRoot: configuration.webRoot, defaultLanguage: configuration.mailLanguage)),
            audit: auditLog, publicURL: configuration.publicURL, invitationLifetime: configuration.invitationLifetime,
            verificationLifetime: configuration.signUpVerificationLifetime,
            resetLifetime: configuration.passwordResetLifetime, now: platform.now)
        invitations = InvitationController(links: links, auth: auth)
        signUps = SignUpController(
            links: links, allowSignUp: configuration.allowSignUp,
            asksPerClient: AttemptLimiter(limit: configuration.accountMailPerHour, window: 3600))
        passwordResets = PasswordResetController(
            links: links, asksPerClient: AttemptLimiter(limit: configuration.accountMailPerHour, window: 3600),
            logger: platform.logger)
        audit = AuditController(store: platform.stores.accounts)
        signInOptions = SignInOptionsResponse(
            password: true,
            singleSignOn: configuration.oidc.map {
                SignInOptionsResponse.SingleSignOn(name: $0.name, start: "/api/v1/auth/oidc/start")
            },
            signUp: signUps.isOpen, passwordReset: links.mailer.isConfigured)
    }

    func addRoutes(to api: RouterGroup<AppRequestContext>, router: Router<AppRequestContext>) {
        let options = signInOptions
        api.get("auth/options") { _, _ in options }
        auth.addRoutes(to: api)
        users.addRoutes(to: api)
        invitations.addRoutes(to: api)
        signUps.addRoutes(to: api)
        passwordResets.addRoutes(to: api)
        audit.addRoutes(to: api)
    }
}
