import Foundation
import Hummingbird
import PodiumCore
import PodiumMedia
import PodiumStore

/// The JSON shapes of the REST API (see `Public/openapi.yaml`).
struct UserResponse: Codable, Sendable {
    let id: String
    let email: String
    let name: String
    let role: String
    /// A member of the channel (admins see all of it whatever this says).
    let member: Bool

    init(_ user: UserRecord) {
        id = user.id
        email = user.email
        name = user.name
        role = user.role.rawValue
        member = user.isMember
    }
}

struct LoginResponse: Codable, Sendable {
    let token: String
    let user: UserResponse
}

struct ErrorDetail: Codable, Sendable {
    let code: String
    let message: String
}

struct DeckResponse: Codable, Sendable {
    let id: String
    let title: String
    let status: String
    let folderId: String?
    let createdAt: Date
    let pageCount: Int
    let thumbnailUrl: String?
    let progress: IngestProgressResponse?
    let error: ErrorDetail?
    /// Present on `GET /api/v1/decks/{id}`; left out of listings to keep them small.
    let pages: [PageInfo]?
    /// The slides' titles (from an Office deck), page by page; with `pages`, when any page has one.
    let outline: [OutlineEntry]?
    /// The speaker notes of an Office deck, for its owner's presenter console only (`GET
    /// /api/v1/decks/{id}`); never in what viewers receive.
    let speakerNotes: [SpeakerNote]?

    struct OutlineEntry: Codable, Sendable, Equatable {
        let page: Int
        let title: String
    }

    struct SpeakerNote: Codable, Sendable, Equatable {
        let page: Int
        let text: String
    }

    init(
        _ deck: DeckRecord, pages: [PageRecord]?, firstPage: PageRecord?, progress: IngestProgress?,
        speakerNotes: Bool = false
    ) {
        id = deck.id
        title = deck.title
        status = deck.status.rawValue
        folderId = deck.folderId
        createdAt = deck.createdAt
        pageCount = deck.pageCount
        thumbnailUrl = (firstPage ?? pages?.first).map { Self.blobURL($0.thumbnailImage) }
        self.progress = deck.status == .processing ? progress.map(IngestProgressResponse.init) : nil
        error = deck.errorCode.map { ErrorDetail(code: $0, message: deck.errorMessage ?? "") }
        self.pages = pages?.map(Self.pageInfo)
        let outline = pages?.compactMap { page in page.title.map { OutlineEntry(page: page.number, title: $0) } } ?? []
        self.outline = outline.isEmpty ? nil : outline
        let notes =
            speakerNotes
            ? pages?.filter { !$0.speakerNotes.isEmpty }.map { SpeakerNote(page: $0.number, text: $0.speakerNotes) } ?? []
            : []
        self.speakerNotes = notes.isEmpty ? nil : notes
    }

    static func blobURL(_ name: String) -> String { "/blobs/\(name)" }

    static func pageInfo(_ page: PageRecord) -> PageInfo {
        PageInfo(
            number: page.number, width: page.width, height: page.height, imageUrl: blobURL(page.largeImage),
            mediumUrl: blobURL(page.mediumImage), thumbnailUrl: blobURL(page.thumbnailImage))
    }
}

struct IngestProgressResponse: Codable, Sendable {
    let stage: String
    let done: Int
    let total: Int

    init(_ progress: IngestProgress) {
        stage = progress.stage
        done = progress.done
        total = progress.total
    }
}

struct FolderResponse: Codable, Sendable {
    let id: String
    let name: String
    /// The folder it is in; null at the top level.
    let parentId: String?

    init(_ folder: FolderRecord) {
        id = folder.id
        name = folder.name
        parentId = folder.parentId
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(parentId, forKey: .parentId)
    }
}

struct SessionResponse: Codable, Sendable {
    let id: String
    let code: String
    let kind: SessionKind
    let joinUrl: String
    /// Rooms: where presenters join, the moderator's console and the projector's page.
    let presenterUrl: String?
    let moderatorUrl: String?
    let projectorUrl: String?
    /// The big screen (content only, for the projector): a session's `/s/{code}/screen`, a
    /// room's projector page.
    let screenUrl: String
    /// The session's deck; absent for a room.
    let deckId: String?
    let title: String
    let presenter: String
    let hasPasscode: Bool
    let allowDownload: Bool
    let live: Bool
    let pageCount: Int
    let createdAt: Date
    /// The same instant as `createdAt`, under the name the live list uses.
    let startedAt: Date
    let endedAt: Date?
    /// Connected viewers, while the session is live.
    let viewers: Int?
    /// Left out of the live list ("Live now"): joined by code or link only.
    var unlisted = false
    /// The passcode, for the host alone (absent for everyone else, and when there is none or it
    /// was set before passcodes were kept).
    var passcode: String? = nil
}

/// An upload's answer (`POST /api/v1/decks`, `/videos`): what was uploaded, with the id of the
/// job that processes it beside its own fields.
struct UploadedResponse<Item: Encodable & Sendable>: ResponseEncodable {
    let item: Item
    let jobId: String

    enum CodingKeys: String, CodingKey { case jobId }

    func encode(to encoder: any Encoder) throws {
        try item.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jobId, forKey: .jobId)
    }
}
