import Foundation
import PodiumCore

/// Where long work stands: a deck's or a video's processing, a job (`{"stage", "done", "total"}`).
public struct WorkProgress: Codable, Sendable, Equatable {
    public var stage: String
    public var done: Int
    public var total: Int
    /// A video's packaging only: its place among the clips waiting to be packaged (1: next),
    /// while it waits; left out otherwise.
    public var queuePosition: Int? = nil
    /// A video's packaging only: about how many seconds the step under way has left (queued:
    /// until it is packaged whole, from the lengths of the clips before it and this server's
    /// measured pace; processing: until it is playable; adding renditions: until they are all
    /// there), from the progress rate; left out when unknown.
    public var secondsLeft: Int? = nil

    public init(stage: String, done: Int, total: Int) {
        self.stage = stage
        self.done = done
        self.total = total
    }
}

/// The `{"code", "message"}` of a failed deck, video or job, and of every REST error body.
public struct FailureDetail: Codable, Sendable, Equatable {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

/// A deck of the library (`GET /api/v1/decks`, `GET /api/v1/decks/{id}`, an upload's answer).
/// Fields without a value are left out.
public struct Deck: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    /// `processing`, `ready` or `failed`.
    public var status: String
    public var folderId: String?
    public var createdAt: Date
    public var pageCount: Int
    public var thumbnailUrl: String?
    /// While processing.
    public var progress: WorkProgress?
    /// When failed.
    public var error: FailureDetail?
    /// Present on `GET /api/v1/decks/{id}`; left out of listings to keep them small.
    public var pages: [PageInfo]?
    /// The slides' titles (from an Office deck), page by page; with `pages`, when any page has one.
    public var outline: [OutlineEntry]?
    /// The speaker notes of an Office deck, for its owner's presenter console only (`GET
    /// /api/v1/decks/{id}`); never in what viewers receive.
    public var speakerNotes: [SpeakerNote]?

    /// A slide's title.
    public struct OutlineEntry: Codable, Sendable, Equatable {
        public var page: Int
        public var title: String

        public init(page: Int, title: String) {
            self.page = page
            self.title = title
        }
    }

    /// A slide's speaker notes.
    public struct SpeakerNote: Codable, Sendable, Equatable {
        public var page: Int
        public var text: String

        public init(page: Int, text: String) {
            self.page = page
            self.text = text
        }
    }

    public init(
        id: String, title: String, status: String, folderId: String?, createdAt: Date, pageCount: Int,
        thumbnailUrl: String?, progress: WorkProgress? = nil, error: FailureDetail? = nil, pages: [PageInfo]? = nil,
        outline: [OutlineEntry]? = nil, speakerNotes: [SpeakerNote]? = nil
    ) {
        self.id = id
        self.title = title
        self.status = status
        self.folderId = folderId
        self.createdAt = createdAt
        self.pageCount = pageCount
        self.thumbnailUrl = thumbnailUrl
        self.progress = progress
        self.error = error
        self.pages = pages
        self.outline = outline
        self.speakerNotes = speakerNotes
    }
}

/// A folder of the library. `parentId` is `null` at the top level (sent as `null`, not left out).
public struct Folder: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    /// The folder it is in; null at the top level.
    public var parentId: String?

    public init(id: String, name: String, parentId: String?) {
        self.id = id
        self.name = name
        self.parentId = parentId
    }

    enum CodingKeys: String, CodingKey { case id, name, parentId }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(parentId, forKey: .parentId)
    }
}

/// An upload's answer (`POST /api/v1/decks`, `/videos`): what was uploaded, with the id of the
/// job that processes it beside its own fields (`{...item, "jobId"}`).
public struct Uploaded<Item: Sendable>: Sendable {
    public var item: Item
    public var jobId: String

    public init(item: Item, jobId: String) {
        self.item = item
        self.jobId = jobId
    }

    enum CodingKeys: String, CodingKey { case jobId }
}

extension Uploaded: Encodable where Item: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try item.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jobId, forKey: .jobId)
    }
}

extension Uploaded: Decodable where Item: Decodable {
    public init(from decoder: any Decoder) throws {
        item = try Item(from: decoder)
        jobId = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .jobId)
    }
}

extension Uploaded: Equatable where Item: Equatable {}

/// A deck brought into a room (`POST /api/v1/sessions/{code}/decks`).
public struct RoomDeckAdded: Codable, Sendable, Equatable {
    public var deckId: String
    public var title: String
    /// `processing` (an upload: it joins when processed) or `ready`.
    public var status: String
    /// An upload's processing job (`GET /api/v1/jobs/{id}`); absent for a deck from the library.
    public var jobId: String?

    public init(deckId: String, title: String, status: String, jobId: String? = nil) {
        self.deckId = deckId
        self.title = title
        self.status = status
        self.jobId = jobId
    }
}

/// A prepared poll of a deck's question bank (`GET/POST /api/v1/decks/{id}/questions`, `PATCH
/// …/{questionId}`; the document's `BankQuestion`, a name PodiumStore's record has too).
public struct QuestionBankItem: Codable, Sendable, Equatable {
    public var id: String
    public var position: Int
    public var poll: Poll

    public init(id: String, position: Int, poll: Poll) {
        self.id = id
        self.position = position
        self.poll = poll
    }
}
