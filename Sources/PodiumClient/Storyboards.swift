import Foundation
import PodiumCore
import PodiumWire

extension Endpoint {
    public static let storyboards = Endpoint("GET", "/api/v1/storyboards")
    public static let createStoryboard = Endpoint("POST", "/api/v1/storyboards")
    public static let storyboard = Endpoint("GET", "/api/v1/storyboards/{id}")
    public static let updateStoryboard = Endpoint("PATCH", "/api/v1/storyboards/{id}")
    public static let deleteStoryboard = Endpoint("DELETE", "/api/v1/storyboards/{id}")
    public static let storyboardEditors = Endpoint("GET", "/api/v1/storyboards/{id}/editors")
    public static let inviteStoryboardEditor = Endpoint("POST", "/api/v1/storyboards/{id}/editors")
    public static let removeStoryboardEditor = Endpoint("DELETE", "/api/v1/storyboards/{id}/editors/{userId}")
    public static let storyboardExports = Endpoint("GET", "/api/v1/storyboards/{id}/exports")
    public static let createStoryboardExport = Endpoint("POST", "/api/v1/storyboards/{id}/exports")
    public static let storyboardExport = Endpoint("GET", "/api/v1/storyboards/{id}/exports/{export}")
    public static let storyboardExportFile = Endpoint("GET", "/api/v1/storyboards/{id}/exports/{export}/file")
    public static let presentStoryboard = Endpoint("POST", "/api/v1/storyboards/{id}/present")
    public static let shotVersions = Endpoint("GET", "/api/v1/storyboards/{id}/shots/{shot}/versions")
    public static let shotVersion = Endpoint("GET", "/api/v1/storyboards/{id}/shots/{shot}/versions/{seq}")
    public static let uploadStoryboardImage = Endpoint("POST", "/api/v1/storyboards/{id}/images")
    /// The storyboard editing socket (docs/protocol.md, "The storyboard socket").
    public static let storyboardLive = Endpoint("GET", "/api/v1/storyboards/{id}/live")
}

/// Storyboards: projects, their editors, exports and shots' histories. The content is
/// `PodiumCore.Storyboard`, the model the server and the browser edit.
extension PodiumClient {
    public func storyboards(folderId: String? = nil) async throws -> [StoryboardProject] {
        try await call(.storyboards, query: ["folderId": folderId])
    }

    public func createStoryboard(title: String, aspectRatio: String? = nil, folderId: String? = nil) async throws
        -> StoryboardProject
    {
        var patch = Patch()
        try patch.add("title", title)
        try patch.add("aspectRatio", aspectRatio)
        try patch.add("folderId", folderId)
        return try await call(.createStoryboard, json: patch)
    }

    /// The project with its `content`.
    public func storyboard(id: String) async throws -> StoryboardProject { try await call(.storyboard, ["id": id]) }

    /// Renames, describes, reshapes or files a project (filing is the owner's); nil leaves a field alone.
    public func updateStoryboard(
        id: String, title: String? = nil, description: String? = nil, aspectRatio: String? = nil,
        folderId: Change<String> = .keep
    ) async throws -> StoryboardProject {
        var patch = Patch()
        try patch.add("title", title)
        try patch.add("description", description)
        try patch.add("aspectRatio", aspectRatio)
        try patch.add("folderId", folderId)
        return try await call(.updateStoryboard, ["id": id], json: patch)
    }

    public func deleteStoryboard(id: String) async throws { try await callIgnoringReply(.deleteStoryboard, ["id": id]) }

    public func storyboardEditors(id: String) async throws -> [Person] {
        try await call(.storyboardEditors, ["id": id])
    }

    public func inviteStoryboardEditor(id: String, email: String) async throws -> Person {
        try await call(.inviteStoryboardEditor, ["id": id], json: ["email": email])
    }

    public func removeStoryboardEditor(id: String, userId: String) async throws {
        try await callIgnoringReply(.removeStoryboardEditor, ["id": id, "userId": userId])
    }

    public func storyboardExports(id: String) async throws -> [StoryboardExport] {
        try await call(.storyboardExports, ["id": id])
    }

    /// Starts an export (`layout`: panels a page of a sheet); poll it until ready.
    public func exportStoryboard(id: String, format: StoryboardExportFormat, layout: Int? = nil) async throws
        -> StoryboardExport
    {
        var patch = Patch()
        try patch.add("format", format)
        try patch.add("layout", layout)
        return try await call(.createStoryboardExport, ["id": id], json: patch)
    }

    public func storyboardExport(id: String, export: String) async throws -> StoryboardExport {
        try await call(.storyboardExport, ["id": id, "export": export])
    }

    /// Polls an export until it is `ready` (returned) or `failed` (thrown as ``PodiumError``).
    public func waitForStoryboardExport(id: String, export: String, pollEvery interval: Duration = .milliseconds(250))
        async throws -> StoryboardExport
    {
        while true {
            let current = try await storyboardExport(id: id, export: export)
            switch current.status {
            case "ready": return current
            case "failed":
                throw PodiumError(
                    code: current.error?.code ?? "failed", message: current.error?.message ?? "", status: 200)
            default: try await Task.sleep(for: interval)
            }
        }
    }

    public func downloadStoryboardExport(id: String, export: String, to destination: URL, progress: ProgressHandler? = nil)
        async throws
    {
        try await download(try request(.storyboardExportFile, ["id": id, "export": export]), to: destination, progress: progress)
    }

    /// Turns the storyboard into a deck of your library (processed like an upload).
    public func presentStoryboard(id: String) async throws -> Uploaded<Deck> {
        try await call(.presentStoryboard, ["id": id])
    }

    /// A shot's versions, newest first.
    public func shotVersions(id: String, shot: String) async throws -> [ShotVersion] {
        try await call(.shotVersions, ["id": id, "shot": shot])
    }

    /// The shot as it was after the edit `seq`.
    public func shotVersion(id: String, shot: String, seq: Int) async throws -> Shot {
        try await call(.shotVersion, ["id": id, "shot": shot, "seq": String(seq)])
    }

    /// Uploads a reference image (JPEG, PNG or WebP, judged by content) for the project's layers.
    public func uploadStoryboardImage(id: String, file: URL) async throws -> StoryboardImage {
        try await uploadJSON(.uploadStoryboardImage, ["id": id], file: file).decode(as: StoryboardImage.self)
    }
}
