import ArgumentParser
import Foundation
import PodiumClient
import PodiumCore

/// `podium sessions start|list|end|report`.
struct Sessions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Live sessions on a running server: start, list, end, report.",
        subcommands: [Start.self, List.self, End.self, Report.self])

    static func line(_ session: LiveSessionInfo) -> String {
        "\(session.code)\t\(session.live ? "live" : "ended")\t\(session.title)\t\(session.joinUrl)"
    }

    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start a live session of a ready deck.")

        @OptionGroup var remote: RemoteOptions

        @Argument(help: ArgumentHelp("The deck's id.", valueName: "deck-id"))
        var deckId: String

        @Option(help: "A passcode viewers must give.")
        var passcode: String?

        @Flag(help: "Viewers may download the deck.")
        var allowDownload = false

        @Flag(help: "Leave it out of the live list (join by code or link only).")
        var unlisted = false

        func run() async throws {
            try await remote.run { output in
                let session = try await remote.client().startSession(
                    deckId: deckId, passcode: passcode, allowDownload: allowDownload, unlisted: unlisted)
                try output.emit(session) { Sessions.line(session) }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List your sessions and rooms, newest first (--live: the server's live list).")

        @OptionGroup var remote: RemoteOptions

        @Flag(help: "The listed live sessions (public) instead of your history.")
        var live = false

        @Option(help: "How many (1-100).")
        var limit: Int = 20

        func run() async throws {
            try await remote.run { output in
                if live {
                    let sessions = try await remote.client(signIn: remote.token != nil || remote.email != nil).liveSessions()
                    try output.emit(sessions) { sessions.map(Sessions.line).joined(separator: "\n") }
                } else {
                    let page = try await remote.client().history(limit: limit)
                    try output.emit(page.sessions) {
                        page.sessions.map { "\($0.code)\t\($0.kind.rawValue)\t\($0.live ? "live" : "ended")\t\($0.title)" }
                            .joined(separator: "\n")
                    }
                }
            }
        }
    }

    struct End: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End a session or a room.")

        @OptionGroup var remote: RemoteOptions

        @Argument(help: ArgumentHelp("The join code.", valueName: "code"))
        var code: String

        func run() async throws {
            try await remote.run { output in
                let session = try await remote.client().endSession(code: code)
                try output.emit(session) { Sessions.line(session) }
            }
        }
    }

    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A session's report: a summary, the JSON, or one CSV part into a file.")

        @OptionGroup var remote: RemoteOptions

        @Argument(help: ArgumentHelp("The join code.", valueName: "code"))
        var code: String

        @Option(
            help: ArgumentHelp("Download this part as CSV: attendance, polls, answers, questions or clips.", valueName: "part"))
        var csv: String?

        @Option(name: .shortAndLong, help: ArgumentHelp("Where the CSV goes (default: <code>-<part>.csv).", valueName: "file"))
        var output: String?

        func validate() throws {
            if let csv, ReportFile(rawValue: csv) == nil {
                throw ValidationError("--csv is one of \(ReportFile.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
        }

        func run() async throws {
            try await remote.run { out in
                let client = try await remote.client()
                if let csv, let part = ReportFile(rawValue: csv) {
                    let destination = outputURL(output, default: "\(code)-\(part.fileName)")
                    try await client.downloadReport(code: code, part, to: destination, progress: out.progressBar(part.fileName))
                    try out.emit(SavedFile(destination)) { destination.path }
                    return
                }
                let report = try await client.report(code: code)
                try out.emit(report) {
                    """
                    \(report.title) (\(report.code), \(report.kind.rawValue))
                    viewers: \(report.uniqueViewers) in all, at most \(report.peakViewers) at once
                    polls: \(report.polls.count)  questions: \(report.questions.count)  clips: \(report.clips.count)
                    """
                }
            }
        }
    }
}
