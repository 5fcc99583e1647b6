import ArgumentParser

@main
struct Podium: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "podium",
        abstract: "Self-hosted live presentations: present a PDF, every device in the room follows.",
        subcommands: [
            Serve.self, MigrateData.self, Bench.self,
            Decks.self, Videos.self, Sessions.self, Rooms.self, Users.self,  // against a running server (Remote/)
            BackupCommand.self, RestoreCommand.self, CheckCommand.self, GCCommand.self,  // on the data directory (DataDirectory/)
        ],
        defaultSubcommand: Serve.self)
}
