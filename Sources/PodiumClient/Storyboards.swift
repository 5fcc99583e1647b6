import Foundation
import PodiumCore

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

/// A storyboard project as the library lists it; ``content`` (the model, `PodiumCore.Storyboard`)
/// only when one project is shown, created or edited.
public struct StoryboardProject: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var description: String
    /// `16:9`, `4:3`, `2.39:1`… as the server accepts them.
    public var aspectRatio: String
    /// The owner's folder; nil at the top level and for a project shared with the one asking.
    public var folderId: String?
    public var ownerId: String
    /// Whether the one asking owns it (a shared project is someone else's).
    public var owned: Bool
    public var sceneCount: Int
    public var shotCount: Int
    /// The last edit's sequence number.
    public var seq: Int
    public var createdAt: Date
    public var updatedAt: Date
    public var content: Storyboard?
}

/// Someone who may edit a storyboard project besides its owner.
public struct StoryboardEditor: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var email: String
}

/// What a storyboard export makes.
public enum StoryboardExportFormat: String, Codable, Sendable, CaseIterable {
    /// Panels with their text on A4 landscape pages (``StoryboardExport/layout`` panels a page).
    case sheet
    /// One page per shot.
    case pdf
    /// A zip of one PNG per shot.
    case png
    /// An MP4 of the shots for their durations.
    case animatic
}

/// An export of a storyboard project (a file made by a job).
public struct StoryboardExport: Codable, Sendable, Equatable {
    public var id: String
    public var format: StoryboardExportFormat
    /// Panels a page for a sheet; 0 otherwise.
    public var layout: Int
    /// The project's sequence number the export was made of.
    public var seq: Int
    /// `queued`, `ready` or `failed`.
    public var status: String
    public var bytes: Int
    /// Where the file is once ready; nil before.
    public var url: String?
    public var fileName: String
    public var error: FailureDetail?
    /// While queued: how far its job has come (nil when not running).
    public var progress: WorkProgress?
    /// Only in the answer to the request that made it.
    public var jobId: String?
    public var createdAt: Date

    public var isReady: Bool { status == "ready" }
}

/// A reference image uploaded for a storyboard: place it with an `addLayer` edit whose layer has
/// `image: LayerImage(blob:width:height:)` (``layerImage``).
public struct StoryboardImage: Codable, Sendable, Equatable {
    /// The blob's name, `<sha256>.jpg|png|webp`.
    public var blob: String
    /// `/blobs/<blob>`.
    public var url: String
    /// `image/jpeg`, `image/png` or `image/webp`.
    public var type: String
    public var width: Int
    public var height: Int
    public var bytes: Int

    /// What a layer records of it.
    public var layerImage: LayerImage { LayerImage(blob: blob, width: width, height: height) }
}

/// One version of a shot in its history (restore it with a `restoreShot` edit).
public struct ShotVersion: Codable, Sendable, Equatable {
    /// Restoring this version restores the shot as it was after this edit.
    public var seq: Int
    /// When the version's last edit was made.
    public var at: Date
    /// When its first edit was made.
    public var firstAt: Date
    /// The author's user id.
    public var author: String
    public var authorName: String
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

    /// The project with its ``StoryboardProject/content``.
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

    public func storyboardEditors(id: String) async throws -> [StoryboardEditor] {
        try await call(.storyboardEditors, ["id": id])
    }

    public func inviteStoryboardEditor(id: String, email: String) async throws -> StoryboardEditor {
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
