import Foundation
import PodiumCore

/// A storyboard project as the library lists it (`GET /api/v1/storyboards`); ``content`` (the
/// model, `PodiumCore.Storyboard`) only when one project is shown, created or edited. `folderId`
/// is sent as `null` at the top level; `content` is left out of lists.
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

    public init(
        id: String, title: String, description: String, aspectRatio: String, folderId: String?, ownerId: String,
        owned: Bool, sceneCount: Int, shotCount: Int, seq: Int, createdAt: Date, updatedAt: Date, content: Storyboard?
    ) {
        self.id = id
        self.title = title
        self.description = description
        self.aspectRatio = aspectRatio
        self.folderId = folderId
        self.ownerId = ownerId
        self.owned = owned
        self.sceneCount = sceneCount
        self.shotCount = shotCount
        self.seq = seq
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.content = content
    }

    enum CodingKeys: String, CodingKey {
        case id, title, description, aspectRatio, folderId, ownerId, owned, sceneCount, shotCount, seq, createdAt, updatedAt,
            content
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(description, forKey: .description)
        try container.encode(aspectRatio, forKey: .aspectRatio)
        try container.encode(folderId, forKey: .folderId)
        try container.encode(ownerId, forKey: .ownerId)
        try container.encode(owned, forKey: .owned)
        try container.encode(sceneCount, forKey: .sceneCount)
        try container.encode(shotCount, forKey: .shotCount)
        try container.encode(seq, forKey: .seq)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encodeIfPresent(content, forKey: .content)
    }
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

/// An export of a storyboard project (a file made by a job). `url`, `error` and `progress` are
/// sent as `null` when they have no value; `jobId` is left out but in the answer that queued it.
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

    public init(
        id: String, format: StoryboardExportFormat, layout: Int, seq: Int, status: String, bytes: Int, url: String?,
        fileName: String, error: FailureDetail?, progress: WorkProgress?, jobId: String?, createdAt: Date
    ) {
        self.id = id
        self.format = format
        self.layout = layout
        self.seq = seq
        self.status = status
        self.bytes = bytes
        self.url = url
        self.fileName = fileName
        self.error = error
        self.progress = progress
        self.jobId = jobId
        self.createdAt = createdAt
    }

    public var isReady: Bool { status == "ready" }

    enum CodingKeys: String, CodingKey {
        case id, format, layout, seq, status, bytes, url, fileName, error, progress, jobId, createdAt
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(format, forKey: .format)
        try container.encode(layout, forKey: .layout)
        try container.encode(seq, forKey: .seq)
        try container.encode(status, forKey: .status)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(url, forKey: .url)
        try container.encode(fileName, forKey: .fileName)
        try container.encode(error, forKey: .error)
        try container.encode(progress, forKey: .progress)
        try container.encodeIfPresent(jobId, forKey: .jobId)
        try container.encode(createdAt, forKey: .createdAt)
    }
}

/// A reference image uploaded for a storyboard (`POST /api/v1/storyboards/{id}/images`): place it
/// with an `addLayer` edit whose layer has `image: LayerImage(blob:width:height:)`.
public struct StoryboardImage: Codable, Sendable, Equatable {
    /// The blob's name, `<sha256>.jpg|png|webp`: what a layer's `image.blob` names.
    public var blob: String
    /// `/blobs/<blob>`.
    public var url: String
    /// `image/jpeg`, `image/png` or `image/webp`.
    public var type: String
    public var width: Int
    public var height: Int
    public var bytes: Int

    public init(blob: String, url: String, type: String, width: Int, height: Int, bytes: Int) {
        self.blob = blob
        self.url = url
        self.type = type
        self.width = width
        self.height = height
        self.bytes = bytes
    }

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

    public init(seq: Int, at: Date, firstAt: Date, author: String, authorName: String) {
        self.seq = seq
        self.at = at
        self.firstAt = firstAt
        self.author = author
        self.authorName = authorName
    }
}
