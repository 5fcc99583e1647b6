import Foundation
import PodiumWire

extension Endpoint {
    public static let createReplayExport = Endpoint("POST", "/api/v1/sessions/{code}/replay/exports")
    public static let replayExports = Endpoint("GET", "/api/v1/sessions/{code}/replay/exports")
    public static let replayExport = Endpoint("GET", "/api/v1/replay-exports/{id}")
    public static let replayExportFile = Endpoint("GET", "/api/v1/replay-exports/{id}/file")
    public static let publishReplayExport = Endpoint("POST", "/api/v1/replay-exports/{id}/publish")

    /// A replay as an MP4, and published to the channel.
    static let replayExportEndpoints: [Endpoint] = [
        .createReplayExport, .replayExports, .replayExport, .replayExportFile, .publishReplayExport,
    ]
}

extension PodiumClient {
    /// Starts an MP4 export of session `code`'s replay (its hosts only); poll it until ready.
    /// Refusal: `nothing_shown` (no slide was ever on screen).
    public func exportReplay(session code: String) async throws -> ReplayExport {
        try await call(.createReplayExport, ["code": code])
    }

    /// Session `code`'s exports, newest first (its hosts only).
    public func replayExports(session code: String) async throws -> [ReplayExport] {
        try await call(.replayExports, ["code": code])
    }

    public func replayExport(id: String) async throws -> ReplayExport {
        try await call(.replayExport, ["id": id])
    }

    /// Polls an export until it is `ready` (returned) or `failed` (thrown as ``PodiumError``).
    public func waitForReplayExport(id: String, pollEvery interval: Duration = .milliseconds(250)) async throws
        -> ReplayExport
    {
        while true {
            let current = try await replayExport(id: id)
            switch current.status {
            case "ready": return current
            case "failed":
                throw PodiumError(code: current.error?.code ?? "failed", message: current.error?.message ?? "", status: 200)
            default: try await Task.sleep(for: interval)
            }
        }
    }

    public func downloadReplayExport(id: String, to destination: URL, progress: ProgressHandler? = nil) async throws {
        try await download(try request(.replayExportFile, ["id": id]), to: destination, progress: progress)
    }

    /// Publishes a ready export on the channel (an admin): its MP4 becomes a channel video (in
    /// `categoryId`, else the "Replays" category), which plays once packaged.
    public func publishReplayExport(id: String, title: String, categoryId: String? = nil, description: String? = nil)
        async throws -> ChannelVideo
    {
        try await call(
            .publishReplayExport, ["id": id],
            json: ReplayExportPublish(title: title, categoryId: categoryId, description: description))
    }
}
