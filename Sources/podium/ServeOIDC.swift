import ArgumentParser
import Foundation
import PodiumServer

/// `podium serve`'s single sign-on options (OpenID Connect), each with its `PODIUM_OIDC_*`
/// variable. The client secret is best given in a file or the environment: a command line is
/// visible to every user of the machine.
struct OIDCOptions: ParsableArguments {
    @Option(
        help:
            "Single sign-on: the OpenID Connect provider's issuer URL, e.g. https://login.microsoftonline.com/<tenant>/v2.0 (env PODIUM_OIDC_ISSUER)."
    )
    var oidcIssuer: String?

    @Option(help: "The client id Podium is registered with at the provider (env PODIUM_OIDC_CLIENT_ID).")
    var oidcClientId: String?

    @Option(
        help: "A file holding the client secret (env PODIUM_OIDC_CLIENT_SECRET_FILE, or the secret in PODIUM_OIDC_CLIENT_SECRET)."
    )
    var oidcClientSecretFile: String?

    @Option(help: "The client secret itself; prefer --oidc-client-secret-file (env PODIUM_OIDC_CLIENT_SECRET).")
    var oidcClientSecret: String?

    @Option(help: "The sign-in button's name: 'Sign in with <name>' (env PODIUM_OIDC_NAME; 'School account').")
    var oidcName: String?

    @Option(help: "The claim listing a person's groups (env PODIUM_OIDC_GROUPS_CLAIM; groups).")
    var oidcGroupsClaim: String?

    @Option(help: "Groups whose people are admins, comma-separated (env PODIUM_OIDC_ADMIN_GROUPS).")
    var oidcAdminGroups: String?

    @Option(
        help:
            "Groups whose people may sign in as presenters, comma-separated; none: everyone the provider signs in (env PODIUM_OIDC_PRESENTER_GROUPS)."
    )
    var oidcPresenterGroups: String?

    @Option(
        help:
            "Groups whose people are channel members, comma-separated; none: membership is set by an admin (env PODIUM_OIDC_MEMBER_GROUPS)."
    )
    var oidcMemberGroups: String?

    @Option(help: "Scopes asked for, space-separated (env PODIUM_OIDC_SCOPES; 'openid email profile').")
    var oidcScopes: String?

    @Flag(
        help:
            "Never link a first single sign-on to the local account with the same verified address: make a new account (env PODIUM_OIDC_NO_EMAIL_LINK=1)."
    )
    var oidcNoEmailLink = false

    /// The settings, or nil when no issuer is given.
    func settings(_ environment: [String: String]) throws -> OIDCSettings? {
        func value(_ option: String?, _ name: String) -> String? {
            (option ?? environment[name]).flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let issuer = value(oidcIssuer, "PODIUM_OIDC_ISSUER") else { return nil }
        guard let url = URL(string: issuer), ["https", "http"].contains(url.scheme ?? ""), url.host != nil else {
            throw ValidationError("--oidc-issuer must be an https URL")
        }
        guard let clientId = value(oidcClientId, "PODIUM_OIDC_CLIENT_ID") else {
            throw ValidationError("--oidc-issuer needs --oidc-client-id")
        }
        var secret = value(oidcClientSecret, "PODIUM_OIDC_CLIENT_SECRET")
        if let file = value(oidcClientSecretFile, "PODIUM_OIDC_CLIENT_SECRET_FILE") {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw ValidationError("cannot read --oidc-client-secret-file \(file)")
            }
            secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let secret, !secret.isEmpty else {
            throw ValidationError("--oidc-issuer needs a client secret (--oidc-client-secret-file or PODIUM_OIDC_CLIENT_SECRET)")
        }
        var settings = OIDCSettings(issuer: issuer, clientId: clientId, clientSecret: secret)
        if let name = value(oidcName, "PODIUM_OIDC_NAME") { settings.name = name }
        if let claim = value(oidcGroupsClaim, "PODIUM_OIDC_GROUPS_CLAIM") { settings.groupsClaim = claim }
        func groups(_ option: String?, _ name: String) -> Set<String> {
            Set(
                (value(option, name) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                    !$0.isEmpty
                })
        }
        settings.adminGroups = groups(oidcAdminGroups, "PODIUM_OIDC_ADMIN_GROUPS")
        settings.presenterGroups = groups(oidcPresenterGroups, "PODIUM_OIDC_PRESENTER_GROUPS")
        settings.memberGroups = groups(oidcMemberGroups, "PODIUM_OIDC_MEMBER_GROUPS")
        if let scopes = value(oidcScopes, "PODIUM_OIDC_SCOPES") {
            settings.scopes = scopes.split(separator: " ").map(String.init)
            if !settings.scopes.contains("openid") { settings.scopes.insert("openid", at: 0) }
        }
        settings.linkVerifiedEmail = !(oidcNoEmailLink || environment["PODIUM_OIDC_NO_EMAIL_LINK"] == "1")
        return settings
    }
}
