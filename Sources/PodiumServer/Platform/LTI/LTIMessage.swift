import Foundation
import Hummingbird
import PodiumStore

/// Why a launch was refused: each case is a page that says so (``deadEnd``), never a bare error.
enum LTIRefusal: Error, Equatable, Sendable {
    /// No login initiation with this state: it expired (10 minutes), or was used already (a replay).
    case loginExpired
    /// The login initiation named an issuer (and client id) no admin registered.
    case unknownPlatform
    /// The platform's key set could not be fetched or read.
    case keysUnavailable
    /// The token is malformed, or its signature does not verify with the platform's keys.
    case badSignature
    /// The token's `exp` is past.
    case tokenExpired
    /// `iss`, `aud` or `azp` do not name this registration, or the nonce is not the one sent.
    case wrongClaims
    /// The deployment id is not one of the registration's.
    case unknownDeployment
    /// Not an LTI 1.3 resource link or deep linking request.
    case unsupportedMessage
    /// A student's link names no session of this server.
    case noSession
    /// A student's link names a deck that nobody presents now.
    case notLive
    /// A deep linking request from someone who is not a teacher of the course.
    case notInstructor

    /// The page: reason `lti-<case>` (the page's script says it again in the reader's language).
    var deadEnd: DeadEnd {
        let (kind, status, title, message): (String, HTTPResponse.Status, String, String) =
            switch self {
            case .loginExpired:
                (
                    "expired", .badRequest, "This link has expired",
                    "The sign-in from your course took too long or was already used. Go back to the course and open the link again."
                )
            case .unknownPlatform:
                (
                    "platform", .badRequest, "This course is not connected to Podium",
                    "Podium does not know the learning platform that sent you. Ask the school's IT team to register it on Podium's admin page."
                )
            case .keysUnavailable:
                (
                    "keys", .badGateway, "The learning platform did not answer",
                    "Podium could not fetch the platform's keys to check who you are. Try again in a minute."
                )
            case .badSignature:
                (
                    "signature", .unauthorized, "This launch could not be verified",
                    "The message from the learning platform is not signed with its registered key. Ask the school's IT team to check the registration."
                )
            case .tokenExpired:
                (
                    "expired", .unauthorized, "This link has expired",
                    "The sign-in from your course took too long or was already used. Go back to the course and open the link again."
                )
            case .wrongClaims:
                (
                    "claims", .unauthorized, "This launch could not be verified",
                    "The message from the learning platform does not match its registration (issuer, client id or nonce)."
                )
            case .unknownDeployment:
                (
                    "deployment", .forbidden, "This course's deployment is not registered",
                    "The learning platform sent a deployment id Podium does not know. Ask the school's IT team to add it to the registration."
                )
            case .unsupportedMessage:
                (
                    "message", .badRequest, "Podium cannot open this kind of link",
                    "Podium opens LTI 1.3 resource links and deep linking requests only."
                )
            case .noSession:
                (
                    "session", .notFound, "No lecture at this link",
                    "This course link names no Podium session. Ask your teacher for the session's link."
                )
            case .notLive:
                (
                    "not-live", .notFound, "The lecture has not started yet",
                    "Your teacher has not started presenting this deck. Open the link again when the lecture begins."
                )
            case .notInstructor:
                (
                    "role", .forbidden, "Only teachers can add Podium content",
                    "Choosing a deck or session for the course is for the course's teachers."
                )
            }
        return DeadEnd(
            status: status, reason: "lti-\(kind)", title: title, message: message, action: "Podium home", href: "/",
            other: "Presenter? Sign in to your library", otherHref: "/library")
    }
}

/// What a verified launch says (LTI 1.3 core, Deep Linking 2.0): the claims Podium uses.
struct LTILaunch: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case resourceLink
        case deepLinking(returnURL: String, data: String?, acceptMultiple: Bool)
    }

    var kind: Kind
    var deploymentId: String
    var subject: String
    var name: String?
    var email: String?
    var roles: [String]
    var custom: [String: String]
    var targetLinkURI: String?
    /// The course it comes from (the context claim's `id` and `title`): a course's teachers share
    /// the sessions and decks placed in it.
    var contextId: String? = nil
    var contextTitle: String? = nil
    /// The person's language on the platform (`launch_presentation.locale`: `de`, `en-US`, `pt_br`),
    /// as a language tag (`pt-br`); nil when absent or not one.
    var locale: String? = nil

    static let claim = "https://purl.imsglobal.org/spec/lti/claim/"
    static let deepLinkingClaim = "https://purl.imsglobal.org/spec/lti-dl/claim/"

    /// A teacher: the course's instructor (teaching assistants too), or an administrator.
    var isInstructor: Bool { hasRole(in: ["Instructor", "TeachingAssistant", "Administrator", "ContentDeveloper"]) }

    /// A course's teacher proper (Instructor or Administrator), who may start a deck another
    /// teacher placed in the course (``CourseTeachers``); an assistant may run it once live.
    var isCourseTeacher: Bool { hasRole(in: ["Instructor", "Administrator"]) }

    func hasRole(in names: Set<String>) -> Bool {
        roles.contains { role in
            names.contains(role.split(whereSeparator: { $0 == "#" || $0 == "/" }).last.map(String.init) ?? role)
        }
    }

    /// The person's name for Podium: `name`, else given and family name, else the address.
    static func displayName(_ claims: [String: Any]) -> String? {
        if let name = (claims["name"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty {
            return name
        }
        let parts = [claims["given_name"], claims["family_name"]].compactMap {
            ($0 as? String)?.trimmingCharacters(in: .whitespaces)
        }
        .filter { !$0.isEmpty }
        if !parts.isEmpty { return parts.joined(separator: " ") }
        return nil
    }

    /// The launch of a verified token's payload, checked against the registration and the nonce
    /// sent with the login: `iss` is the platform's, `aud` holds its client id (and `azp` names it
    /// when there are several audiences, or at all), the nonce is the one sent, the deployment is
    /// registered, the message is LTI 1.3's resource link or deep linking request.
    static func read(payload: Data, platform: LTIPlatformRecord, nonce: String) throws(LTIRefusal) -> LTILaunch {
        guard let claims = (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any] else { throw .badSignature }
        guard claims["iss"] as? String == platform.issuer else { throw .wrongClaims }
        let audiences: [String] =
            if let single = claims["aud"] as? String { [single] } else { (claims["aud"] as? [String]) ?? [] }
        guard audiences.contains(platform.clientId) else { throw .wrongClaims }
        if let azp = claims["azp"] as? String {
            guard azp == platform.clientId else { throw .wrongClaims }
        } else if audiences.count > 1 {
            throw .wrongClaims
        }
        guard let sent = claims["nonce"] as? String, sent == nonce else { throw .wrongClaims }
        guard let deploymentId = claims[claim + "deployment_id"] as? String, platform.deploymentIds.contains(deploymentId)
        else { throw .unknownDeployment }
        guard claims[claim + "version"] as? String == "1.3.0", let subject = claims["sub"] as? String, !subject.isEmpty else {
            throw .unsupportedMessage
        }
        let kind: Kind
        switch claims[claim + "message_type"] as? String {
        case "LtiResourceLinkRequest":
            guard let link = claims[claim + "resource_link"] as? [String: Any], link["id"] is String else {
                throw .unsupportedMessage
            }
            kind = .resourceLink
        case "LtiDeepLinkingRequest":
            guard let settings = claims[deepLinkingClaim + "deep_linking_settings"] as? [String: Any],
                let returnURL = settings["deep_link_return_url"] as? String, URL(string: returnURL)?.scheme != nil
            else { throw .unsupportedMessage }
            kind = .deepLinking(
                returnURL: returnURL, data: settings["data"] as? String,
                acceptMultiple: settings["accept_multiple"] as? Bool ?? false)
        default:
            throw .unsupportedMessage
        }
        var custom: [String: String] = [:]
        for (key, value) in (claims[claim + "custom"] as? [String: Any]) ?? [:] {
            if let text = value as? String {
                custom[key] = text
            } else if let number = value as? NSNumber {
                custom[key] = number.stringValue
            }
        }
        let context = claims[claim + "context"] as? [String: Any]
        let presentation = claims[claim + "launch_presentation"] as? [String: Any]
        return LTILaunch(
            kind: kind, deploymentId: deploymentId, subject: subject, name: displayName(claims),
            email: (claims["email"] as? String)?.trimmingCharacters(in: .whitespaces).lowercased(),
            roles: (claims[claim + "roles"] as? [String]) ?? [], custom: custom,
            targetLinkURI: claims[claim + "target_link_uri"] as? String,
            contextId: (context?["id"] as? String).flatMap { $0.isEmpty || $0.count > 255 ? nil : $0 },
            contextTitle: (context?["title"] as? String).map { String($0.prefix(200)) },
            locale: languageTag(presentation?["locale"] as? String))
    }

    /// A locale as a BCP 47 language tag Podium's pages and mail read (`pt_BR` -> `pt-BR`): letters,
    /// digits and hyphens, at most 35 characters; nil for anything else.
    static func languageTag(_ locale: String?) -> String? {
        guard let text = locale?.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "-"),
            !text.isEmpty, text.count <= 35,
            text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }), text.first?.isLetter == true
        else { return nil }
        return text
    }
}
