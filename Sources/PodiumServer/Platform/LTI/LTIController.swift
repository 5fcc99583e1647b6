import Foundation
import Hummingbird
import Logging
import NIOCore
import PodiumStore
import PodiumWire

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Podium as an LTI 1.3 tool (issue #43): an admin registers a learning platform; a course's link
/// starts an OpenID Connect login initiation (`/api/v1/lti/login`), the platform posts back a
/// signed launch (`/api/v1/lti/launch`); a teacher lands signed in (their library, a deck, a
/// session's console or report), a student on the session's join page with their name; a deep
/// linking request opens the picker (`/lti/pick/{id}`), whose choice goes back signed with the
/// tool's key (``LTIToolKey``). What a teacher places in a course is shared with its other
/// teachers, who become co-hosts (``SessionHosts``); the launch's language goes on to the landing page.
struct LTIController {
    let store: any LTIStore
    let users: any UserStore
    let sessions: any SessionStore
    let decks: any DeckStore
    let accounts: Accounts
    let toolKey: LTIToolKey
    let keySets: JSONWebKeySetCache
    let publicURL: String?
    let webRoot: URL
    let tokenLifetime: TimeInterval
    let now: @Sendable () -> Date
    /// Records platforms registered and removed, the accounts launches make, and the co-hosts
    /// a course's teachers become.
    var audit: AuditLog? = nil
    /// Keeps the language of a teacher's launch as their account's, for the mail they get.
    var languages: (any AccountStore)? = nil

    /// How long a login initiation waits for its launch, and a teacher may take in the picker.
    static let loginLifetime: TimeInterval = 600
    static let deepLinkLifetime: TimeInterval = 3600
    /// The custom parameters a resource link carries (Podium writes them in deep linking).
    static let deckParameter = "podium_deck"
    static let sessionParameter = "podium_session"
    static let reportParameter = "podium_report"

    func addRoutes(to api: RouterGroup<AppRequestContext>, router: Router<AppRequestContext>) {
        api.get("lti/jwks", use: jwks)
        api.get("lti/tool", use: tool)
        api.get("lti/platforms", use: platforms)
        api.post("lti/platforms", use: register)
        api.delete("lti/platforms/:id", use: unregister)
        api.get("lti/login", use: login)
        api.post("lti/login", use: login)
        api.post("lti/launch", use: launch)
        api.post("lti/deep-links/:id", use: answerDeepLink)
        router.get("/lti/pick/:id", use: picker)
    }

    // MARK: Registration (admins)

    func baseURL(_ request: Request) -> String {
        if let publicURL { return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL }
        // Served over TLS by the server itself, the request says so; behind a proxy, --public-url does.
        return "\(request.head.scheme ?? "http")://\(request.head.authority ?? "localhost")"
    }

    func toolURLs(_ request: Request) -> LTIToolURLs {
        let base = baseURL(request)
        return LTIToolURLs(
            loginURL: base + "/api/v1/lti/login", launchURL: base + "/api/v1/lti/launch",
            deepLinkingURL: base + "/api/v1/lti/launch", jwksURL: base + "/api/v1/lti/jwks")
    }

    @Sendable func jwks(_ request: Request, context: AppRequestContext) async throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "public, max-age=300"
        return Response(
            status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try await toolKey.publicKeySet())))
    }

    @Sendable func tool(_ request: Request, context: AppRequestContext) async throws -> LTIToolURLs {
        try requireAdmin(context)
        return toolURLs(request)
    }

    @Sendable func platforms(_ request: Request, context: AppRequestContext) async throws -> [LTIPlatform] {
        try requireAdmin(context)
        return try await store.ltiPlatforms().map(Self.wire)
    }

    @Sendable func register(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<LTIPlatform> {
        let admin = try requireAdmin(context)
        let body = try await request.decode(as: LTIPlatformRegistration.self, context: context)
        let trim = { (text: String) in text.trimmingCharacters(in: .whitespacesAndNewlines) }
        let issuer = trim(body.issuer)
        let clientId = trim(body.clientId)
        let deployments = body.deploymentIds.map(trim).filter { !$0.isEmpty }
        guard !issuer.isEmpty, issuer.count <= 500, !clientId.isEmpty, clientId.count <= 500 else {
            throw APIError.badRequest("A platform needs its issuer and the client id it gave Podium.")
        }
        guard !deployments.isEmpty, deployments.count <= 100, deployments.allSatisfy({ $0.count <= 500 }) else {
            throw APIError.badRequest("A platform needs at least one deployment id.")
        }
        let urls = [body.authLoginURL, body.tokenURL, body.jwksURL].map(trim)
        guard urls.allSatisfy(Self.isWebURL) else {
            throw APIError.badRequest("The login, token and key set URLs must be http or https addresses.")
        }
        guard try await store.ltiPlatforms(issuer: issuer).allSatisfy({ $0.clientId != clientId }) else {
            throw APIError(.conflict, code: "platform_taken", message: "This issuer and client id are registered already.")
        }
        let name = DeckController.cleanTitle(body.name ?? "")
        let record = LTIPlatformRecord(
            id: IDs.make("lti"), name: name.isEmpty ? (URL(string: issuer)?.host ?? issuer) : name, issuer: issuer,
            clientId: clientId, deploymentIds: Array(Set(deployments)).sorted(), authLoginURL: urls[0], tokenURL: urls[1],
            jwksURL: urls[2], createdAt: now())
        try await store.insertLTIPlatform(record)
        try await audit?.record(
            "lti.platform_registered", by: admin, target: issuer, detail: "\(record.name), client \(clientId)", context: context)
        return EditedResponse(status: .created, response: Self.wire(record))
    }

    @Sendable func unregister(_ request: Request, context: AppRequestContext) async throws -> Response {
        let admin = try requireAdmin(context)
        let id = try context.parameters.require("id")
        guard let platform = try await store.ltiPlatform(id: id), try await store.deleteLTIPlatform(id: id) else {
            throw APIError.notFound("platform")
        }
        try await audit?.record(
            "lti.platform_removed", by: admin, target: platform.issuer, detail: "\(platform.name), client \(platform.clientId)",
            context: context)
        return Response(status: .noContent)
    }

    static func isWebURL(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.host?.isEmpty == false else { return false }
        return scheme == "https" || scheme == "http"
    }

    static func wire(_ record: LTIPlatformRecord) -> LTIPlatform {
        LTIPlatform(
            id: record.id, name: record.name, issuer: record.issuer, clientId: record.clientId,
            deploymentIds: record.deploymentIds, authLoginURL: record.authLoginURL, tokenURL: record.tokenURL,
            jwksURL: record.jwksURL, createdAt: record.createdAt)
    }

    @discardableResult
    private func requireAdmin(_ context: AppRequestContext) throws -> UserRecord {
        let user = try context.requireUser()
        guard user.role == .admin else { throw APIError.forbidden }
        return user
    }

    // MARK: Login initiation and launch

    /// The parameters of a GET's query or a POSTed form.
    func parameters(_ request: Request, context: AppRequestContext) async throws -> [String: String] {
        var values: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { values[String(key)] = String(value) }
        if request.method == .post {
            let body = try await request.body.collect(upTo: 256 * 1024)
            values.merge(Self.form(String(buffer: body)), uniquingKeysWith: { _, form in form })
        }
        return values
    }

    static func form(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in
                part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
            }
            guard let key = parts.first else { continue }
            values[decode(key)] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return values
    }

    /// OIDC login initiation (LTI 1.3 §4.1): the platform sends the browser here with its issuer and
    /// hints; Podium keeps a state and nonce and sends the browser on to the platform's
    /// authorisation endpoint, which posts the signed launch to `/api/v1/lti/launch`.
    @Sendable func login(_ request: Request, context: AppRequestContext) async throws -> Response {
        let values = try await parameters(request, context: context)
        guard let issuer = values["iss"], let loginHint = values["login_hint"], let target = values["target_link_uri"] else {
            return try page(.unknownPlatform)
        }
        let candidates = try await store.ltiPlatforms(issuer: issuer)
        let platform: LTIPlatformRecord? =
            if let clientId = values["client_id"] { candidates.first { $0.clientId == clientId } } else {
                candidates.count == 1 ? candidates.first : nil
            }
        guard let platform else { return try page(.unknownPlatform) }
        if let deployment = values["lti_deployment_id"], !platform.deploymentIds.contains(deployment) {
            return try page(.unknownDeployment)
        }
        let login = LTILoginRecord(
            state: Accounts.randomToken(), nonce: Accounts.randomToken(), platformId: platform.id, targetLinkURI: target,
            expiresAt: now() + Self.loginLifetime)
        try await store.insertLTILogin(login, now: now())
        var query: [(String, String)] = [
            ("scope", "openid"), ("response_type", "id_token"), ("response_mode", "form_post"), ("prompt", "none"),
            ("client_id", platform.clientId), ("redirect_uri", toolURLs(request).launchURL), ("login_hint", loginHint),
            ("state", login.state), ("nonce", login.nonce),
        ]
        if let hint = values["lti_message_hint"] { query.append(("lti_message_hint", hint)) }
        let separator = platform.authLoginURL.contains("?") ? "&" : "?"
        let location =
            platform.authLoginURL + separator + query.map { "\(Self.escape($0))=\(Self.escape($1))" }.joined(separator: "&")
        return Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
    }

    static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// The launch (LTI 1.3 §5.1): the platform's signed `id_token` with the `state` Podium sent.
    @Sendable func launch(_ request: Request, context: AppRequestContext) async throws -> Response {
        let values = try await parameters(request, context: context)
        do {
            guard let state = values["state"], let token = values["id_token"],
                let login = try await store.takeLTILogin(state: state, now: now())
            else { throw LTIRefusal.loginExpired }
            guard let platform = try await store.ltiPlatform(id: login.platformId) else { throw LTIRefusal.unknownPlatform }
            let launch = try LTILaunch.read(
                payload: try await verify(token, platform: platform), platform: platform, nonce: login.nonce)
            return try await land(launch, platform: platform, request: request)
        } catch let refusal as LTIRefusal {
            context.logger.notice("LTI launch refused: \(refusal)")
            return try page(refusal)
        }
    }

    /// The token's payload once its signature (the platform's key set, fetched and kept) and times
    /// are proven.
    func verify(_ token: String, platform: LTIPlatformRecord) async throws(LTIRefusal) -> Data {
        guard let url = URL(string: platform.jwksURL) else { throw .keysUnavailable }
        let keyID = Self.keyID(of: token)
        let keys: JSONWebKeySet
        do { keys = try await keySets.keys(at: url, needing: keyID) } catch { throw .keysUnavailable }
        do {
            return try JSONWebToken.verify(token, keys: keys, now: now())
        } catch {
            switch error {
            case .expired, .notYetValid: throw .tokenExpired
            default: throw .badSignature
            }
        }
    }

    /// The `kid` of a token's header, if it has one.
    static func keyID(of token: String) -> String? {
        guard let header = token.split(separator: ".").first, let bytes = Base64URL.decode(header),
            let object = (try? JSONSerialization.jsonObject(with: bytes)) as? [String: Any]
        else { return nil }
        return object["kid"] as? String
    }

    /// Where the launch takes the person.
    func land(_ launch: LTILaunch, platform: LTIPlatformRecord, request: Request) async throws -> Response {
        switch launch.kind {
        case .deepLinking(let returnURL, let data, let acceptMultiple):
            guard launch.isInstructor else { throw LTIRefusal.notInstructor }
            let user = try await teacher(launch, platform: platform)
            let link = LTIDeepLinkRecord(
                id: IDs.make("dl", length: 24), platformId: platform.id, deploymentId: launch.deploymentId, userId: user.id,
                returnURL: returnURL, data: data, acceptMultiple: acceptMultiple, expiresAt: now() + Self.deepLinkLifetime,
                contextId: launch.contextId)
            try await store.insertLTIDeepLink(link, now: now())
            return try await signIn(user, to: Self.inLanguage("/lti/pick/\(link.id)", launch.locale), request: request)
        case .resourceLink:
            if launch.isInstructor {
                let user = try await teacher(launch, platform: platform)
                let path = try await teacherPath(launch, platform: platform, user: user)
                return try await signIn(user, to: Self.inLanguage(path, launch.locale), request: request)
            }
            let session = try await learnerSession(launch)
            var path = Self.inLanguage("/s/\(Self.escape(session.code))", launch.locale)
            if let name = launch.name {
                path += (path.contains("?") ? "&" : "?") + "name=\(Self.escape(String(name.prefix(60))))"
            }
            // The course vouches for its students: the session's passcode goes with them, in the
            // fragment (never sent to a server nor written in a log; the join page takes it out of
            // the address), so a student types nothing, as with a course link that names the session.
            if let passcode = session.passcode, !passcode.isEmpty { path += "#passcode=\(Self.escape(passcode))" }
            return Response(status: .seeOther, headers: [.location: path, .cacheControl: "no-store"])
        }
    }

    /// `path` with the launch's language (`?lang=`, which the pages' i18n follows before the
    /// person's stored choice and the browser's; a language Podium lacks falls back as there).
    static func inLanguage(_ path: String, _ locale: String?) -> String {
        guard let locale else { return path }
        let end = path.firstIndex(of: "#") ?? path.endIndex
        let separator = path[..<end].contains("?") ? "&" : "?"
        return path[..<end] + separator + "lang=" + escape(locale) + path[end...]
    }

    /// A teacher's landing: a session's console, a report, the library; for a deck, the console of
    /// the teacher's own live session of it, else the library with its Go live dialog open (the
    /// passcode and the other choices, then Start: the console). What the link names is shared in
    /// its course (``shareInCourse(_:owns:launch:platform:user:)``): another teacher of the course
    /// lands in the console of the deck's live session, or, when it is not live, in the same Go
    /// live dialog for it (``CourseTeachers``: the session they start is the deck owner's, and
    /// they its co-host).
    func teacherPath(_ launch: LTILaunch, platform: LTIPlatformRecord, user: UserRecord) async throws -> String {
        let custom = launch.custom
        if let code = (custom[Self.sessionParameter] ?? custom[Self.reportParameter]), !code.isEmpty {
            if let session = try await sessions.session(code: code.uppercased()) {
                let owns = SessionController.isHost(user, of: session)
                try await shareInCourse(session, owns: owns, launch: launch, platform: platform, user: user)
            }
            return Self.teacherPath(custom)
        }
        guard let deckId = custom[Self.deckParameter], !deckId.isEmpty else { return Self.teacherPath(custom) }
        let deck = try await decks.deck(id: deckId)
        let owns = deck.map { $0.ownerId == user.id || user.role == .admin } ?? false
        let live = try await sessions.liveSessions().filter { $0.deckId == deckId }
        let newest = { (records: [SessionRecord]) in records.max(by: { $0.createdAt < $1.createdAt }) }
        if owns { try await place("deck", deckId, launch: launch, platform: platform, user: user) }
        if let own = newest(live.filter { $0.presenterId == user.id }) { return "/present/\(Self.escape(own.code))" }
        if owns { return Self.teacherPath(custom) }
        // Another teacher's deck, placed in this course: its live session, else (for a teacher
        // proper) the Go live dialog, which the launch just vouched for (``CourseTeachers``).
        guard let deck, let contextId = launch.contextId,
            try await store.isLTIContentPlaced(platformId: platform.id, contextId: contextId, kind: "deck", target: deckId)
        else { return "/library" }
        if let session = newest(live) {
            try await grant(session, launch: launch, platform: platform, user: user)
            return "/present/\(Self.escape(session.code))"
        }
        guard launch.isCourseTeacher, deck.status == .ready else { return "/library" }
        try await store.recordLTICourseTeacher(platformId: platform.id, contextId: contextId, userId: user.id, at: now())
        return Self.teacherPath(custom)
    }

    /// A session's link launched by a teacher of its course: its host's launch places it in the
    /// course (a link they made by hand, or before deep linking kept the course); another
    /// teacher of the same course, where it is placed, becomes its co-host. A teacher of another
    /// course gets nothing: the console then refuses them, as before.
    func shareInCourse(
        _ session: SessionRecord, owns: Bool, launch: LTILaunch, platform: LTIPlatformRecord, user: UserRecord
    ) async throws {
        if owns { return try await place("session", session.id, launch: launch, platform: platform, user: user) }
        guard let contextId = launch.contextId,
            try await store.isLTIContentPlaced(platformId: platform.id, contextId: contextId, kind: "session", target: session.id)
        else { return }
        try await grant(session, launch: launch, platform: platform, user: user)
    }

    /// Records that the launch's course holds a link to `target` (a deck's id, a session's id).
    func place(_ kind: String, _ target: String, launch: LTILaunch, platform: LTIPlatformRecord, user: UserRecord) async throws {
        guard let contextId = launch.contextId else { return }
        try await store.placeLTIContent(
            platformId: platform.id, contextId: contextId, kind: kind, target: target, placedBy: user.id, at: now())
    }

    /// Makes a course's teacher a co-host of `session` (the share a session's co-hosts have), in
    /// the audit log the first time.
    func grant(_ session: SessionRecord, launch: LTILaunch, platform: LTIPlatformRecord, user: UserRecord) async throws {
        let course = launch.contextTitle.flatMap { $0.isEmpty ? nil : $0 } ?? launch.contextId ?? "?"
        try await courses.grant(session, to: user, course: "\(course) on \(platform.name)")
    }

    var courses: CourseTeachers { CourseTeachers(store: store, sessions: sessions, audit: audit, now: now) }

    static func teacherPath(_ custom: [String: String]) -> String {
        if let code = custom[sessionParameter], !code.isEmpty { return "/present/\(escape(code))" }
        if let code = custom[reportParameter], !code.isEmpty { return "/report.html?code=\(escape(code))" }
        if let deck = custom[deckParameter], !deck.isEmpty { return "/library?golive=\(escape(deck))" }
        return "/library"
    }

    /// The session a student's link names: its custom parameters (a session's or report's code, or a
    /// deck, whose newest live session it is), else a join link as its target.
    func learnerSession(_ launch: LTILaunch) async throws -> SessionRecord {
        if let code = launch.custom[Self.sessionParameter] ?? launch.custom[Self.reportParameter] {
            guard let session = try await sessions.session(code: code.uppercased()) else { throw LTIRefusal.noSession }
            return session
        }
        if let deck = launch.custom[Self.deckParameter] {
            let live = try await sessions.liveSessions().filter { $0.deckId == deck }.max { $0.createdAt < $1.createdAt }
            guard let live else { throw LTIRefusal.notLive }
            return live
        }
        if let target = launch.targetLinkURI.flatMap(URL.init(string:)) {
            let parts = target.path.split(separator: "/")
            if parts.count == 2, parts[0] == "s", let session = try await sessions.session(code: String(parts[1]).uppercased()) {
                return session
            }
        }
        throw LTIRefusal.noSession
    }

    /// The Podium account of a platform's teacher: the one they launched as before, else a new
    /// presenter named from the token (their address when no other account has it). Accounts are
    /// never joined by address alone: a platform must not speak for an account made elsewhere.
    func teacher(_ launch: LTILaunch, platform: LTIPlatformRecord) async throws -> UserRecord {
        if let id = try await store.ltiUserId(platformId: platform.id, subject: launch.subject),
            let user = try await users.user(id: id)
        {
            // A launch is a sign-in: the account reads its mail in the language it last came in with.
            if let locale = launch.locale { try await languages?.setUserLanguage(userId: user.id, locale) }
            return user
        }
        var email =
            "lti-\(Accounts.tokenHash(platform.id + "\n" + launch.subject).prefix(16))@\(URL(string: platform.issuer)?.host ?? "lti")"
        if let claimed = launch.email, claimed.contains("@"), claimed.count <= 200, try await users.user(email: claimed) == nil {
            email = claimed
        }
        let name = DeckController.cleanTitle(launch.name ?? launch.email ?? "")
        let user = UserRecord(
            id: IDs.make("u"), email: email, name: name.isEmpty ? "Teacher" : name, role: .presenter,
            passwordHash: try await accounts.hash(Accounts.randomToken()), createdAt: now())
        try await users.insertUser(user)
        try await store.linkLTIUser(platformId: platform.id, subject: launch.subject, userId: user.id)
        if let locale = launch.locale { try await languages?.setUserLanguage(userId: user.id, locale) }
        try await audit?.record("lti.account_created", by: nil, target: user.email, detail: platform.name)
        return user
    }

    /// Signs `user` in (the same cookie as a password sign-in) and sends the browser to `path`.
    func signIn(_ user: UserRecord, to path: String, request: Request) async throws -> Response {
        let token = Accounts.randomToken()
        try await users.insertToken(hash: Accounts.tokenHash(token), userId: user.id, expiresAt: now() + tokenLifetime)
        var response = Response(status: .seeOther, headers: [.location: path, .cacheControl: "no-store"])
        let secure = baseURL(request).hasPrefix("https://")
        response.setCookie(
            Cookie(
                name: AuthMiddleware.cookieName, value: token, maxAge: Int(tokenLifetime), path: "/", secure: secure,
                httpOnly: true, sameSite: .lax))
        return response
    }

    func page(_ refusal: LTIRefusal) throws -> Response {
        var response = try refusal.deadEnd.response(webRoot: webRoot)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    // MARK: Deep linking

    /// The picker page of a deep linking request: its own Content-Security-Policy lets its form go
    /// to the platform's return URL, and only there.
    @Sendable func picker(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let user = context.user else {
            return Response(status: .seeOther, headers: [.location: "/login?next=" + Self.escape(request.uri.path)])
        }
        guard let link = try await store.ltiDeepLink(id: try context.parameters.require("id"), now: now()),
            link.userId == user.id, let origin = Self.origin(link.returnURL)
        else { return try page(.loginExpired) }
        let url = webRoot.appendingPathComponent("lti-pick.html")
        var response = Response(
            status: .ok,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: try Data(contentsOf: url))))
        response.headers[.contentSecurityPolicy] = SecurityHeadersMiddleware<AppRequestContext>.contentSecurityPolicy
            .replacingOccurrences(of: "form-action 'self'", with: "form-action 'self' \(origin)")
        return response
    }

    /// `scheme://host[:port]` of a URL, for a Content-Security-Policy source.
    static func origin(_ text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = url.host, host.allSatisfy({ $0.isLetter || $0.isNumber || ".-[]:".contains($0) })
        else { return nil }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }

    /// The teacher's choice, as a signed LtiDeepLinkingResponse for the picker to post to the platform.
    @Sendable func answerDeepLink(_ request: Request, context: AppRequestContext) async throws -> LTIDeepLinkAnswer {
        let user = try context.requireUser()
        let choices = try await request.decode(as: [LTIDeepLinkChoice].self, context: context)
        guard let link = try await store.ltiDeepLink(id: try context.parameters.require("id"), now: now()),
            link.userId == user.id, let platform = try await store.ltiPlatform(id: link.platformId)
        else { throw APIError.notFound("deep link") }
        guard !choices.isEmpty, choices.count <= 20, link.acceptMultiple || choices.count == 1 else {
            throw APIError.badRequest(link.acceptMultiple ? "Choose 1 to 20 items." : "This course takes one item at a time.")
        }
        var items: [[String: Any]] = []
        let launchURL = toolURLs(request).launchURL
        for choice in choices {
            let (title, parameter, value) = try await item(choice, user: user)
            if let contextId = link.contextId {
                // Placed in the course: its other teachers may run it (``shareInCourse``).
                let isDeck = parameter == Self.deckParameter
                if let target = isDeck ? value : try await sessions.session(code: value)?.id {
                    try await store.placeLTIContent(
                        platformId: platform.id, contextId: contextId, kind: isDeck ? "deck" : "session", target: target,
                        placedBy: user.id, at: now())
                }
            }
            items.append([
                "type": "ltiResourceLink", "title": title, "url": launchURL, "custom": [parameter: value],
            ])
        }
        let (key, keyID) = try await toolKey.key()
        let issued = now().timeIntervalSince1970.rounded(.down)
        var claims: [String: Any] = [
            "iss": platform.clientId, "aud": platform.issuer, "azp": platform.clientId, "iat": issued,
            "exp": issued + 600, "nonce": Accounts.randomToken(),
            LTILaunch.claim + "message_type": "LtiDeepLinkingResponse", LTILaunch.claim + "version": "1.3.0",
            LTILaunch.claim + "deployment_id": link.deploymentId, LTILaunch.deepLinkingClaim + "content_items": items,
        ]
        if let data = link.data { claims[LTILaunch.deepLinkingClaim + "data"] = data }
        let jwt = try JSONWebToken.signRS256(
            payload: try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]), key: key, keyID: keyID)
        _ = try await store.deleteLTIDeepLink(id: link.id)
        return LTIDeepLinkAnswer(url: link.returnURL, jwt: jwt)
    }

    /// A picked item's title and custom parameter; only what the teacher may present.
    func item(_ choice: LTIDeepLinkChoice, user: UserRecord) async throws -> (String, String, String) {
        switch choice.kind {
        case "deck":
            guard let deck = try await decks.deck(id: choice.id), deck.ownerId == user.id || user.role == .admin else {
                throw APIError.notFound("deck")
            }
            return (deck.title, Self.deckParameter, deck.id)
        case "session", "report":
            guard let session = try await sessions.session(code: choice.id.uppercased()),
                session.presenterId == user.id || user.role == .admin
            else { throw APIError.notFound("session") }
            let title = try await sessionTitle(session)
            return choice.kind == "session"
                ? (title, Self.sessionParameter, session.code) : ("\(title) (report)", Self.reportParameter, session.code)
        default:
            throw APIError.badRequest("Choose a deck, a session or a report.")
        }
    }

    func sessionTitle(_ session: SessionRecord) async throws -> String {
        if let title = session.title, !title.isEmpty { return title }
        if let deckId = session.deckId, let deck = try await decks.deck(id: deckId) { return deck.title }
        return session.code
    }
}

extension LTIPlatform: ResponseEncodable {}
extension LTIToolURLs: ResponseEncodable {}
extension LTIDeepLinkAnswer: ResponseEncodable {}

/// Fetches a platform's key set over HTTP(S) (FoundationNetworking's URLSession), 10 s at most.
enum LTIKeySetFetch {
    struct Failed: Error {}

    static func fetch(_ url: URL) async throws -> Data {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 10)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200, data.count <= 1_000_000 else { throw Failed() }
        return data
    }
}
