import Foundation

/// A storyboard project in a library: what is listed and renamed. Its content (scenes, shots,
/// layers, strokes) is kept as snapshots and the edits after them, as JSON the store does not
/// read: the live editor owns the model.
public struct StoryboardRecord: Sendable, Equatable, Codable {
    public var id: String
    public var ownerId: String
    public var folderId: String?
    public var title: String
    public var description: String
    /// `"16:9"`, `"4:3"`, `"2.39:1"` …: the shape of every shot.
    public var aspectRatio: String
    /// Counts as of the newest stored edit, for the library's list.
    public var sceneCount: Int
    public var shotCount: Int
    /// The newest stored edit's number (0: none yet).
    public var seq: Int
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: String, ownerId: String, folderId: String? = nil, title: String, description: String = "",
        aspectRatio: String = "16:9", sceneCount: Int = 0, shotCount: Int = 0, seq: Int = 0, createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.ownerId = ownerId
        self.folderId = folderId
        self.title = title
        self.description = description
        self.aspectRatio = aspectRatio
        self.sceneCount = sceneCount
        self.shotCount = shotCount
        self.seq = seq
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// One stored edit of a storyboard's content, numbered from 1 per storyboard.
public struct StoryboardEditRecord: Sendable, Equatable, Codable {
    public var storyboardId: String
    public var seq: Int
    public var authorId: String
    /// The id the editor gave the edit, so a resent edit counts once (nil for an undo made by
    /// the server on someone's behalf without an id).
    public var commandKey: String?
    /// The shot the edit changed, when it changed one: the shot's version history.
    public var shotId: String?
    /// The edit, as the model's JSON.
    public var edit: String
    public var createdAt: Date

    public init(
        storyboardId: String, seq: Int, authorId: String, commandKey: String?, shotId: String?, edit: String,
        createdAt: Date
    ) {
        self.storyboardId = storyboardId
        self.seq = seq
        self.authorId = authorId
        self.commandKey = commandKey
        self.shotId = shotId
        self.edit = edit
        self.createdAt = createdAt
    }
}

/// The whole content of a storyboard as it was after edit `seq`, as the model's JSON.
public struct StoryboardSnapshot: Sendable, Equatable {
    public var seq: Int
    public var content: String

    public init(seq: Int, content: String) {
        self.seq = seq
        self.content = content
    }
}

/// What one append changes besides the edits: the counts and time the library lists.
public struct StoryboardSummaryChange: Sendable, Equatable {
    public var sceneCount: Int
    public var shotCount: Int

    public init(sceneCount: Int, shotCount: Int) {
        self.sceneCount = sceneCount
        self.shotCount = shotCount
    }
}

/// A storyboard exported as a file: a sheet or shots as PDF, the shots as PNGs in a ZIP, or an
/// animatic MP4. Made by a `storyboard-export` job; the file is a blob once ready.
public struct StoryboardExportRecord: Sendable, Equatable, Codable {
    public enum Format: String, Sendable, Codable, CaseIterable {
        /// Panels with their text on A4 landscape pages.
        case sheet
        /// One page per shot.
        case pdf
        /// One PNG per shot, in a ZIP.
        case png
        /// An MP4: each shot for its duration.
        case animatic
    }

    public enum Status: String, Sendable, Codable {
        case queued
        case ready
        case failed
    }

    public var id: String
    public var storyboardId: String
    public var ownerId: String
    public var format: Format
    /// Panels per sheet page (sheets only; 0 otherwise).
    public var layout: Int
    /// The content exported: as it was after this edit.
    public var seq: Int
    public var status: Status
    public var blob: String?
    public var bytes: Int
    public var errorCode: String?
    public var errorMessage: String?
    public var createdAt: Date

    public init(
        id: String, storyboardId: String, ownerId: String, format: Format, layout: Int, seq: Int, status: Status = .queued,
        blob: String? = nil, bytes: Int = 0, errorCode: String? = nil, errorMessage: String? = nil, createdAt: Date
    ) {
        self.id = id
        self.storyboardId = storyboardId
        self.ownerId = ownerId
        self.format = format
        self.layout = layout
        self.seq = seq
        self.status = status
        self.blob = blob
        self.bytes = bytes
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.createdAt = createdAt
    }
}
