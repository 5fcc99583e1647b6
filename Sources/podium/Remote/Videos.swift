import ArgumentParser
import Foundation
import PodiumClient

/// `podium videos import|list`: the clips of a running server's library.
struct Videos: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Videos on a running server: upload clips, list them.", subcommands: [Import.self, List.self])

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Upload video or audio files and wait until each plays.",
            discussion: """
                Uploads are resumable: a dropped connection is retried from the bytes the server \
                has, and running the same command again for the same, unchanged file continues an \
                upload a dropped connection or a killed run left unfinished ("Resuming talk.mp4 at \
                43 %"). Unfinished uploads are remembered in $XDG_STATE_HOME/podium/uploads.json \
                (else ~/.local/state/podium/uploads.json); the server forgets an unfinished upload \
                after a day (its --upload-expiry).
                """)

        @OptionGroup var remote: RemoteOptions

        @Argument(help: ArgumentHelp("Video or audio files to upload.", valueName: "file"))
        var files: [String]

        @Option(help: "The clip's title (one file only; default: the file's name).")
        var title: String?

        @Option(help: ArgumentHelp("Put the clips into this folder (its id).", valueName: "id"))
        var folder: String?

        @Flag(help: "Return once uploaded, without waiting until the clip plays (its first rendition).")
        var noWait = false

        func validate() throws { try FileImport<Video>.validate(title: title, files: files, noun: "clip") }

        func run() async throws {
            let (title, folder) = (title, folder)
            try await FileImport(
                files: files, noWait: noWait,
                upload: { client, file, progress, resume in
                    try await client.uploadVideo(
                        file: file, title: title, folderId: folder, progress: progress, resume: resume
                    ).item
                },
                waitUntilReady: { client, video in try await client.waitUntilReady(video: video.id) },
                line: { Self.line($0) }
            ).run(remote)
        }

        static func line(_ video: Video) -> String {
            "\(video.id)\t\(video.status)\t\(Int(video.duration.rounded())) s\t\(video.title)"
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List your clips, newest first.")

        @OptionGroup var remote: RemoteOptions

        @Option(help: ArgumentHelp("Only the clips of this folder (its id).", valueName: "id"))
        var folder: String?

        func run() async throws {
            try await remote.run { output in
                let videos = try await remote.client().videos(folderId: folder)
                try output.emit(videos) { videos.map(Import.line).joined(separator: "\n") }
            }
        }
    }
}
