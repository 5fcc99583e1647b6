import Foundation
import Hummingbird
import PodiumCore
import PodiumMedia
import PodiumStore
import PodiumWire

/// The JSON shapes of the REST API (see `Public/openapi.yaml`) are PodiumWire's types, which the
/// SDK decodes; the server's names for them, and their conversions from the store's records.
typealias UserResponse = User
typealias ErrorDetail = FailureDetail
typealias DeckResponse = Deck
typealias IngestProgressResponse = WorkProgress
typealias FolderResponse = Folder
typealias SessionResponse = LiveSessionInfo
typealias UploadedResponse<Item: Encodable & Sendable> = Uploaded<Item>

extension User {
    init(_ user: UserRecord) {
        self.init(id: user.id, email: user.email, name: user.name, role: user.role.rawValue, member: user.isMember)
    }
}

extension Deck {
    init(
        _ deck: DeckRecord, pages: [PageRecord]?, firstPage: PageRecord?, progress: IngestProgress?,
        speakerNotes: Bool = false
    ) {
        let outline = pages?.compactMap { page in page.title.map { OutlineEntry(page: page.number, title: $0) } } ?? []
        let notes =
            speakerNotes
            ? pages?.filter { !$0.speakerNotes.isEmpty }.map { SpeakerNote(page: $0.number, text: $0.speakerNotes) } ?? []
            : []
        self.init(
            id: deck.id, title: deck.title, status: deck.status.rawValue, folderId: deck.folderId, createdAt: deck.createdAt,
            pageCount: deck.pageCount, thumbnailUrl: (firstPage ?? pages?.first).map { Self.blobURL($0.thumbnailImage) },
            progress: deck.status == .processing ? progress.map(WorkProgress.init) : nil,
            error: deck.errorCode.map { FailureDetail(code: $0, message: deck.errorMessage ?? "") },
            pages: pages?.map(Self.pageInfo), outline: outline.isEmpty ? nil : outline,
            speakerNotes: notes.isEmpty ? nil : notes)
    }

    static func blobURL(_ name: String) -> String { "/blobs/\(name)" }

    static func pageInfo(_ page: PageRecord) -> PageInfo {
        PageInfo(
            number: page.number, width: page.width, height: page.height, imageUrl: blobURL(page.largeImage),
            mediumUrl: blobURL(page.mediumImage), thumbnailUrl: blobURL(page.thumbnailImage))
    }
}

extension WorkProgress {
    init(_ progress: IngestProgress) {
        self.init(stage: progress.stage, done: progress.done, total: progress.total)
    }
}

extension Folder {
    init(_ folder: FolderRecord) {
        self.init(id: folder.id, name: folder.name, parentId: folder.parentId)
    }
}

extension Uploaded: ResponseGenerator where Item: Encodable {}
extension Uploaded: ResponseEncodable where Item: Encodable {}

extension RoomDeckAdded: ResponseEncodable {}
