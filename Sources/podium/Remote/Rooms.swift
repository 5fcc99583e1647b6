import ArgumentParser
import Foundation
import PodiumClient

/// `podium rooms open|export`.
struct Rooms: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rooms on a running server: open one, export what it showed.", subcommands: [Open.self, Export.self])

    struct Open: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Open a room you moderate; presenters join at its link.")

        @OptionGroup var remote: RemoteOptions

        @Option(help: "The room's title.")
        var title: String?

        @Option(help: "A passcode presenters and viewers must give.")
        var passcode: String?

        @Flag(help: "Viewers may download the room's export.")
        var allowDownload = false

        func run() async throws {
            try await remote.run { output in
                let room = try await remote.client().openRoom(title: title, passcode: passcode, allowDownload: allowDownload)
                try output.emit(room) {
                    """
                    \(room.code)\t\(room.title)
                    viewers:    \(room.joinUrl)
                    presenters: \(room.presenterUrl ?? "")
                    moderator:  \(room.moderatorUrl ?? "")
                    projector:  \(room.projectorUrl ?? "")
                    """
                }
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download every page a room (or session) showed, with its ink, as one PDF.")

        @OptionGroup var remote: RemoteOptions

        @Argument(help: ArgumentHelp("The join code.", valueName: "code"))
        var code: String

        @Option(name: .shortAndLong, help: ArgumentHelp("Where to write it (default: <code>.pdf).", valueName: "file"))
        var output: String?

        func run() async throws {
            try await remote.run { out in
                let destination = outputURL(output, default: "\(code).pdf")
                let progress = out.progressBar("Exporting \(code)")
                try await remote.client().downloadExportPDF(code: code, to: destination, progress: progress)
                if progress != nil { out.endProgress() }
                try out.emit(SavedFile(destination)) { destination.path }
            }
        }
    }
}
