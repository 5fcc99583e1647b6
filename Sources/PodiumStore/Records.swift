import Foundation
import PodiumCore

/// A presenter or admin account.
public struct UserRecord: Sendable, Equatable, Codable {
    public enum Role: String, Sendable, Codable {
        case admin
        case presenter
    }

    public var id: String
    public var email: String
    public var name: String
    public var role: Role
    public var passwordHash: String
    public var createdAt: Date
    /// A member of the channel, set by an admin: no channel limits (see `ChannelLimit`).
    public var isMember: Bool

    public init(
        id: String, email: String, name: String, role: Role, passwordHash: String, createdAt: Date, isMember: Bool = false
    ) {
        self.id = id
        self.email = email
        self.name = name
        self.role = role
        self.passwordHash = passwordHash
        self.createdAt = createdAt
        self.isMember = isMember
    }

    /// Members and admins see all of the channel.
    public var seesWholeChannel: Bool { isMember || role == .admin }
}

/// A folder in a presenter's library.
public struct FolderRecord: Sendable, Equatable, Codable {
    public var id: String
    public var ownerId: String
    public var name: String
    /// The folder it is in; nil at the top level.
    public var parentId: String?
    public var createdAt: Date

    public init(id: String, ownerId: String, name: String, parentId: String? = nil, createdAt: Date) {
        self.id = id
        self.ownerId = ownerId
        self.name = name
        self.parentId = parentId
        self.createdAt = createdAt
    }
}

/// A PDF in a presenter's library and where its processing stands.
public struct DeckRecord: Sendable, Equatable, Codable {
    public enum Status: String, Sendable, Codable {
        case processing
        case ready
        case failed
    }

    public var id: String
    public var ownerId: String
    public var folderId: String?
    public var title: String
    public var status: Status
    /// SHA-256 of the deck's PDF in the blob store (for an Office or image upload: the PDF made
    /// from it once it is ready; the uploaded file until then).
    public var sourceHash: String
    public var sourceBytes: Int
    public var pageCount: Int
    public var errorCode: String?
    public var errorMessage: String?
    public var createdAt: Date
    /// A deck a guest without an account uploaded into this room (a session id): it belongs to
    /// the room, not to its owner's library (the owner is the room's moderator, for the foreign key).
    public var roomId: String?

    public init(
        id: String, ownerId: String, folderId: String?, title: String, status: Status, sourceHash: String,
        sourceBytes: Int, pageCount: Int = 0, errorCode: String? = nil, errorMessage: String? = nil, createdAt: Date,
        roomId: String? = nil
    ) {
        self.id = id
        self.ownerId = ownerId
        self.folderId = folderId
        self.title = title
        self.status = status
        self.sourceHash = sourceHash
        self.sourceBytes = sourceBytes
        self.pageCount = pageCount
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.createdAt = createdAt
        self.roomId = roomId
    }
}

/// One rendered page of a deck. Images are blob names (`<sha256>.jpg`).
public struct PageRecord: Sendable, Equatable, Codable {
    public var deckId: String
    public var number: Int
    public var width: Double
    public var height: Double
    public var text: String
    public var largeImage: String
    public var mediumImage: String
    public var thumbnailImage: String
    /// The slide's title from an Office deck (its outline entry); nil when it has none.
    public var title: String?
    /// The speaker's notes from an Office deck: for the presenter's console, never for viewers.
    public var speakerNotes: String

    public init(
        deckId: String, number: Int, width: Double, height: Double, text: String, largeImage: String,
        mediumImage: String, thumbnailImage: String, title: String? = nil, speakerNotes: String = ""
    ) {
        self.deckId = deckId
        self.number = number
        self.width = width
        self.height = height
        self.text = text
        self.largeImage = largeImage
        self.mediumImage = mediumImage
        self.thumbnailImage = thumbnailImage
        self.title = title
        self.speakerNotes = speakerNotes
    }
}

/// A live session of one deck. Its state is not stored here but as events (see ``EventStore``).
public struct SessionRecord: Sendable, Equatable, Codable {
    /// One presenter and a deck, or a room (a moderator, presenters who bring decks, a projector).
    public typealias Kind = SessionKind

    public var id: String
    public var code: String
    public var kind: Kind
    /// A room's name; a session is named by its deck.
    public var title: String?
    /// The session's deck; nil for a room.
    public var deckId: String?
    /// The presenter of a session, the moderator of a room.
    public var presenterId: String
    /// bcrypt hash of the passcode, if the session has one: what a hello is checked against.
    public var passcodeHash: String?
    /// The passcode itself, for the host's eyes only (the console shows it on screen to read out);
    /// nil when there is none, or for sessions started before it was kept.
    public var passcode: String?
    public var allowDownload: Bool
    /// Not listed under "Live now" (the lobby and the public list): joined by code or link only.
    public var unlisted: Bool
    public var createdAt: Date
    public var endedAt: Date?
    /// Who may watch its replay: the host (the default), or anyone with the link.
    public var replay: ReplayAccess

    public init(
        id: String, code: String, kind: Kind = .session, title: String? = nil, deckId: String?, presenterId: String,
        passcodeHash: String?, passcode: String? = nil, allowDownload: Bool, unlisted: Bool = false, createdAt: Date,
        endedAt: Date? = nil, replay: ReplayAccess = .host
    ) {
        self.replay = replay
        self.id = id
        self.code = code
        self.kind = kind
        self.title = title
        self.deckId = deckId
        self.presenterId = presenterId
        self.passcodeHash = passcodeHash
        self.passcode = passcode
        self.allowDownload = allowDownload
        self.unlisted = unlisted
        self.createdAt = createdAt
        self.endedAt = endedAt
    }

    public var isLive: Bool { endedAt == nil }
    public var isRoom: Bool { kind == .room }
}

/// A video (or audio) clip in a presenter's library, and where its packaging stands. Its files
/// are blobs: the HLS playlists refer to segments by their blob names.
public struct VideoRecord: Sendable, Equatable, Codable {
    public enum Status: String, Sendable, Codable {
        /// Uploaded; its packaging job has not started.
        case queued
        case processing
        case ready
        case failed
    }

    public var id: String
    public var ownerId: String
    public var folderId: String?
    /// Set for a clip uploaded into a room (the room's session id): it belongs to that room alone,
    /// owned by its moderator, and is in nobody's library.
    public var roomId: String?
    public var title: String
    public var status: Status
    /// The uploaded file in the blob store.
    public var sourceHash: String
    public var sourceBytes: Int
    public var errorCode: String?
    public var errorMessage: String?
    /// Seconds; 0 until probed.
    public var duration: Double
    /// The source's picture size; 0 for audio only or until probed.
    public var width: Int
    public var height: Int
    public var hasVideo: Bool
    public var hasAudio: Bool
    /// The master playlist's variants, as JSON (`[{playlist, bandwidth, width, height, codecs}]`).
    public var renditions: String
    /// Blob names, once ready: the master playlist, the poster, the thumbnail sprite and track, the MP4.
    public var masterPlaylist: String?
    public var poster: String?
    public var thumbnailSprite: String?
    public var thumbnailTrack: String?
    public var mp4: String?
    /// Every blob the packaged clip uses, as a JSON array of names: what its routes may serve.
    public var files: String
    public var createdAt: Date
    /// Where the clip starts and ends on a stage (seconds into it; nil: its own start or end).
    /// Metadata only: the packaged files are whole (migration 26).
    public var trimStart: Double? = nil
    public var trimEnd: Double? = nil
    /// On a stage, reaching its end starts it again from its start.
    public var loops: Bool = false
    /// The integrated loudness its packaging measured (LUFS, EBU R128) before normalising it;
    /// nil before packaging, for a clip without sound, or packaged before migration 26.
    public var loudness: Double? = nil
    /// Files that left the clip's master playlist when its whole ladder was stored (a first
    /// rendition that is not one of the ladder's rungs: the upload's picture copied, its sound),
    /// as a JSON array of names: still served under the clip's stream tokens, so a player that
    /// loaded them plays on, until ``retireAt`` (migration 37).
    public var retiringFiles: String = "[]"
    /// When ``retiringFiles`` go: every stream token issued before they left has expired by then.
    public var retireAt: Date? = nil

    public init(
        id: String, ownerId: String, folderId: String?, roomId: String? = nil, title: String, status: Status,
        sourceHash: String, sourceBytes: Int, errorCode: String? = nil, errorMessage: String? = nil, duration: Double = 0,
        width: Int = 0,
        height: Int = 0, hasVideo: Bool = false, hasAudio: Bool = false, renditions: String = "[]",
        masterPlaylist: String? = nil, poster: String? = nil, thumbnailSprite: String? = nil,
        thumbnailTrack: String? = nil, mp4: String? = nil, files: String = "[]", createdAt: Date
    ) {
        self.id = id
        self.ownerId = ownerId
        self.folderId = folderId
        self.roomId = roomId
        self.title = title
        self.status = status
        self.sourceHash = sourceHash
        self.sourceBytes = sourceBytes
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.duration = duration
        self.width = width
        self.height = height
        self.hasVideo = hasVideo
        self.hasAudio = hasAudio
        self.renditions = renditions
        self.masterPlaylist = masterPlaylist
        self.poster = poster
        self.thumbnailSprite = thumbnailSprite
        self.thumbnailTrack = thumbnailTrack
        self.mp4 = mp4
        self.files = files
        self.createdAt = createdAt
    }

    /// The blob names in ``files``.
    public var fileNames: [String] {
        (try? JSONDecoder().decode([String].self, from: Data(files.utf8))) ?? []
    }

    /// The blob names in ``retiringFiles``.
    public var retiringFileNames: [String] {
        (try? JSONDecoder().decode([String].self, from: Data(retiringFiles.utf8))) ?? []
    }

    /// What the clip's stream tokens may serve: its files and those still retiring.
    public var servedFileNames: Set<String> { Set(fileNames).union(retiringFileNames) }

    /// Whether a `ready` clip has its whole ladder (every rendition, the MP4, the thumbnails).
    /// Packaging stores a first playable rendition and its poster before the rest (issue #41):
    /// the clip is `ready` (it plays, on every stage) from then on, and its MP4, which comes
    /// with the whole ladder only, says the ladder is complete. A clip without a picture is
    /// packaged in one go. False while not `ready`.
    public var ladderComplete: Bool { status == .ready && (!hasVideo || mp4 != nil) }
}
