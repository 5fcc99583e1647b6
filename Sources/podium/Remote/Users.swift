import ArgumentParser
import Foundation
import PodiumClient

/// `podium users add|list|passwd|member` (admins).
struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Accounts on a running server (admins): add, list, set a password, channel membership.",
        subcommands: [Add.self, List.self, Passwd.self, Member.self])

    static func line(_ user: User) -> String {
        "\(user.id)\t\(user.email)\t\(user.role)\(user.member ? "\tmember" : "")\t\(user.name)"
    }

    /// The new password: `$PODIUM_NEW_PASSWORD`, else one line of stdin (never a flag).
    static func newPassword() throws -> String {
        if let password = ProcessInfo.processInfo.environment["PODIUM_NEW_PASSWORD"], !password.isEmpty { return password }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw RemoteFailure.usage("Give the new password in PODIUM_NEW_PASSWORD or on one line of standard input.")
        }
        return line
    }

    /// An account by id (`u_…`) or email address.
    static func find(_ who: String, on client: PodiumClient) async throws -> String {
        guard who.contains("@") || !who.hasPrefix("u_") else { return who }
        guard let user = try await client.user(email: who) else {
            throw PodiumError(code: "not_found", message: "No account has the address \(who).", status: 404)
        }
        return user.id
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an account; its password comes from $PODIUM_NEW_PASSWORD or standard input.")

        @OptionGroup var remote: RemoteOptions

        @Argument(help: ArgumentHelp("The account's email address.", valueName: "email"))
        var address: String

        @Option(help: "The name shown for it.")
        var name: String?

        @Option(help: "presenter (default) or admin.")
        var role: String?

        func validate() throws {
            if let role, !["presenter", "admin"].contains(role) { throw ValidationError("--role is presenter or admin.") }
        }

        func run() async throws {
            try await remote.run { output in
                let password = try Users.newPassword()
                let user = try await remote.client().createUser(email: address, password: password, name: name, role: role)
                try output.emit(user) { Users.line(user) }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List accounts.")

        @OptionGroup var remote: RemoteOptions

        @Option(help: "Only those whose name or address contains this.")
        var search: String?

        func run() async throws {
            try await remote.run { output in
                let users = try await remote.client().users(search: search)
                try output.emit(users) { users.map(Users.line).joined(separator: "\n") }
            }
        }
    }

    struct Passwd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set an account's password (from $PODIUM_NEW_PASSWORD or standard input); its sign-ins end.")

        @OptionGroup var remote: RemoteOptions

        @Argument(help: ArgumentHelp("The account's email address or id.", valueName: "account"))
        var account: String

        func run() async throws {
            try await remote.run { output in
                let password = try Users.newPassword()
                let client = try await remote.client()
                let user = try await client.setPassword(userId: try await Users.find(account, on: client), password)
                try output.emit(user) { "Password set for \(user.email)." }
            }
        }
    }

    struct Member: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Grant (--on) or revoke (--off) channel membership.")

        @OptionGroup var remote: RemoteOptions

        @Argument(help: ArgumentHelp("The account's email address or id.", valueName: "account"))
        var account: String

        @Flag(exclusivity: .exclusive, help: "Grant or revoke.")
        var membership: Membership

        enum Membership: String, EnumerableFlag {
            case on, off
        }

        func run() async throws {
            try await remote.run { output in
                let client = try await remote.client()
                let user = try await client.setMember(userId: try await Users.find(account, on: client), membership == .on)
                try output.emit(user) { Users.line(user) }
            }
        }
    }
}
