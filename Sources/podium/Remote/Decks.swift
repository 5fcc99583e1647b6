import ArgumentParser
import Foundation
import PodiumClient

/// `podium decks import|list|export`: the library of a running server.
struct Decks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decks on a running server: import PDFs, list them, export one.",
        subcommands: [Import.self, List.self, Export.self])

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import", abstract: "Upload PDF files and wait until each is ready.",
            discussion: """
                Uploads are resumable: a dropped connection is retried from the bytes the server \
                has, and running the same command again for the same, unchanged file continues an \
                upload a dropped connection or a killed run left unfinished ("Resuming talk.pdf at \
                43 %"). Unfinished uploads are remembered in $XDG_STATE_HOME/podium/uploads.json \
                (else ~/.local/state/podium/uploads.json); the server forgets an unfinished upload \
                after a day (its --upload-expiry).
                """)

        @OptionGroup var remote: RemoteOptions

        @Argument(help: ArgumentHelp("PDF files to upload.", valueName: "file"))
        var files: [String]

        @Option(help: "The deck's title (one file only; default: the file's name).")
        var title: String?

        @Option(help: ArgumentHelp("Put the decks into this folder (its id).", valueName: "id"))
        var folder: String?

        @Flag(help: "Return once uploaded, without waiting for processing.")
        var noWait = false

        func validate() throws { try FileImport<Deck>.validate(title: title, files: files, noun: "deck") }

        func run() async throws {
            let (title, folder) = (title, folder)
            try await FileImport(
                files: files, noWait: noWait,
                upload: { client, file, progress, resume in
                    try await client.uploadDeck(
                        file: file, title: title, folderId: folder, progress: progress, resume: resume
                    ).item
                },
                waitUntilReady: { client, deck in try await client.waitUntilReady(deck: deck.id) },
                line: { Self.line($0) }
            ).run(remote)
        }

        static func line(_ deck: Deck) -> String { "\(deck.id)\t\(deck.status)\t\(deck.pageCount) pages\t\(deck.title)" }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List your decks, newest first.")

        @OptionGroup var remote: RemoteOptions

        @Option(help: ArgumentHelp("Only the decks of this folder (its id).", valueName: "id"))
        var folder: String?

        func run() async throws {
            try await remote.run { output in
                let decks = try await remote.client().decks(folderId: folder)
                try output.emit(decks) { decks.map(Import.line).joined(separator: "\n") }
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Download a deck's PDF.")

        @OptionGroup var remote: RemoteOptions

        @Argument(help: ArgumentHelp("The deck's id.", valueName: "id"))
        var id: String

        @Option(name: .shortAndLong, help: ArgumentHelp("Where to write it (default: <id>.pdf).", valueName: "file"))
        var output: String?

        func run() async throws {
            try await remote.run { out in
                let destination = outputURL(output, default: "\(id).pdf")
                let progress = out.progressBar("Downloading \(destination.lastPathComponent)")
                try await remote.client().downloadDeckPDF(id: id, to: destination, progress: progress)
                if progress != nil { out.endProgress() }
                try out.emit(SavedFile(destination)) { destination.path }
            }
        }
    }
}

/// `--json` answer of a download: where the file went and its size.
struct SavedFile: Encodable {
    let path: String
    let bytes: Int

    init(_ url: URL) {
        path = url.path
        bytes = ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int) ?? 0
    }
}
