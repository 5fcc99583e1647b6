import ArgumentParser

@main
struct Podium: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "podium",
        abstract: "Self-hosted live presentations: present a PDF, every device in the room follows.",
        subcommands: [
            Serve.self, MigrateData.self, Bench.self,
            BackupCommand.self,
            RestoreCommand.self,
            CheckCommand.self,
        ],
        defaultSubcommand: Serve.self)
}
