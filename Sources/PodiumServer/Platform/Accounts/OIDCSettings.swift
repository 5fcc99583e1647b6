import Foundation
import PodiumStore

/// Single sign-on with an OpenID Connect provider (the school's Microsoft Entra ID, Google
/// Workspace, Keycloak, ...): `podium serve --oidc-issuer ... --oidc-client-id ...`.
public struct OIDCSettings: Sendable, Equatable {
    /// The provider's issuer identifier; its discovery document is at
    /// `<issuer>/.well-known/openid-configuration`.
    public var issuer: String
    public var clientId: String
    public var clientSecret: String
    /// The sign-in button says "Sign in with <name>".
    public var name = "School account"
    public var scopes = ["openid", "email", "profile"]
    /// The claim that lists the person's groups (an array of strings, or one string).
    public var groupsClaim = "groups"
    /// Groups whose people are admins.
    public var adminGroups: Set<String> = []
    /// Groups whose people are presenters. Empty: everyone the provider signs in may be one.
    public var presenterGroups: Set<String> = []
    /// Groups whose people are channel members. Empty: membership stays as an admin sets it.
    public var memberGroups: Set<String> = []
    /// A first sign-in takes over the local account with the same address when the provider
    /// says the address is verified (`email_verified` true).
    public var linkVerifiedEmail = true

    public init(issuer: String, clientId: String, clientSecret: String) {
        self.issuer = issuer
        self.clientId = clientId
        self.clientSecret = clientSecret
    }

    /// What a person's groups give here, or nil: refused (in none of the allowed groups).
    ///
    /// - admin: in one of `adminGroups`;
    /// - otherwise presenter, when `presenterGroups` is empty or they are in one of the presenter
    ///   or member groups; else refused;
    /// - without admin groups set, an account an admin made admin by hand stays admin;
    /// - channel membership: in one of `memberGroups`; without member groups, `currentMember` stays.
    public func grant(groups: Set<String>, current: (role: UserRecord.Role, isMember: Bool)?) -> (
        role: UserRecord.Role, isMember: Bool
    )? {
        let isMember = memberGroups.isEmpty ? (current?.isMember ?? false) : !groups.isDisjoint(with: memberGroups)
        if !groups.isDisjoint(with: adminGroups) { return (.admin, isMember) }
        let allowed =
            presenterGroups.isEmpty || !groups.isDisjoint(with: presenterGroups) || !groups.isDisjoint(with: memberGroups)
        guard allowed else { return nil }
        if adminGroups.isEmpty, current?.role == .admin { return (.admin, isMember) }
        return (.presenter, isMember)
    }

    /// The groups a claim holds: an array of strings, or one string (spaces or commas between several).
    static func groups(from claim: Any?) -> Set<String> {
        switch claim {
        case let list as [Any]: Set(list.compactMap { $0 as? String })
        case let text as String: Set(text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init))
        default: []
        }
    }
}
