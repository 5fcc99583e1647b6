import Foundation
import Hummingbird
import PodiumCore
import PodiumStore
import PodiumWire

/// Storyboard projects over REST: list, create, show (with content), rename and move, delete,
/// share with other editors, and each shot's version history. The content itself changes only
/// through the storyboard socket (``StoryboardSocket``).
struct StoryboardController {
    let store: any StoryboardStore
    /// Editors' accounts.
    let userStore: any UserStore
    /// The library's folders.
    let deckStore: any DeckStore
    let hub: StoryboardHub
    let now: @Sendable () -> Date

    static let aspectRatios = ["16:9", "4:3", "2.39:1", "1.85:1", "1:1", "9:16"]
    /// Versions listed per shot (newest first).
    static let maxVersions = 200
    /// One person's edits of a shot closer together than this are one version.
    static let versionBurst: TimeInterval = 60

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("storyboards", use: list)
        group.post("storyboards", use: create)
        group.get("storyboards/:id", use: show)
        group.patch("storyboards/:id", use: update)
        group.delete("storyboards/:id", use: delete)
        group.get("storyboards/:id/editors", use: editors)
        group.post("storyboards/:id/editors", use: addEditor)
        group.delete("storyboards/:id/editors/:user", use: removeEditor)
        group.get("storyboards/:id/shots/:shot/versions", use: versions)
        group.get("storyboards/:id/shots/:shot/versions/:seq", use: version)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> [StoryboardResponse] {
        let user = try context.requireUser()
        let folderId = request.uri.queryParameters.get("folderId")
        return try await store.storyboards(userId: user.id, folderId: folderId).map { StoryboardResponse($0, viewer: user) }
    }

    struct CreateBody: Decodable {
        let title: String
        let description: String?
        let aspectRatio: String?
        let folderId: String?
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<StoryboardResponse> {
        let user = try context.requireUser()
        let body = try await request.decode(as: CreateBody.self, context: context)
        let title = try Self.title(body.title)
        let aspectRatio = try Self.aspectRatio(body.aspectRatio ?? "16:9")
        if let folderId = body.folderId { _ = try await FolderController.owned(folderId, user: user, store: deckStore) }
        let content = Storyboard.empty(firstScene: IDs.make("sc"), firstShot: IDs.make("sh"), layer: IDs.make("ly"))
        let date = now()
        let record = StoryboardRecord(
            id: IDs.make("sb"), ownerId: user.id, folderId: body.folderId, title: title,
            description: try Self.description(body.description ?? ""), aspectRatio: aspectRatio,
            sceneCount: content.scenes.count, shotCount: content.shotCount, seq: 0, createdAt: date, updatedAt: date)
        try await store.insertStoryboard(
            record, content: String(decoding: try StoryboardDesk.encoder.encode(content), as: UTF8.self))
        return EditedResponse(status: .created, response: StoryboardResponse(record, viewer: user, content: content))
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> StoryboardResponse {
        let (record, user) = try await editable(context)
        let (content, seq) = try await hub.content(record.id)
        var shown = record
        shown.seq = seq
        return StoryboardResponse(shown, viewer: user, content: content)
    }

    struct Patch: Decodable {
        var title: String?
        var description: String?
        var aspectRatio: String?
        /// Absent: unchanged. `null`: top level. A string: that folder.
        var folderId: String??

        enum CodingKeys: String, CodingKey { case title, description, aspectRatio, folderId }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            title = try container.decodeIfPresent(String.self, forKey: .title)
            description = try container.decodeIfPresent(String.self, forKey: .description)
            aspectRatio = try container.decodeIfPresent(String.self, forKey: .aspectRatio)
            if container.contains(.folderId) { folderId = .some(try container.decodeIfPresent(String.self, forKey: .folderId)) }
        }
    }

    /// Renames, describes, reshapes or files a project. Filing is the owner's (folders are theirs).
    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> StoryboardResponse {
        var (record, user) = try await editable(context)
        let patch = try await request.decode(as: Patch.self, context: context)
        if let title = patch.title { record.title = try Self.title(title) }
        if let description = patch.description { record.description = try Self.description(description) }
        if let aspectRatio = patch.aspectRatio { record.aspectRatio = try Self.aspectRatio(aspectRatio) }
        if let folderId = patch.folderId {
            guard record.ownerId == user.id else { throw APIError.forbidden }
            if let folderId { _ = try await FolderController.owned(folderId, user: user, store: deckStore) }
            record.folderId = folderId
        }
        record.updatedAt = now()
        try await store.updateStoryboard(record)
        return StoryboardResponse(try await store.storyboard(id: record.id) ?? record, viewer: user)
    }

    /// Deletes a project (its owner or an admin): its editors are disconnected.
    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let (record, user) = try await editable(context)
        guard record.ownerId == user.id || user.role == .admin else { throw APIError.forbidden }
        await hub.deleted(record.id)
        try await store.deleteStoryboard(id: record.id)
        return .noContent
    }

    @Sendable func editors(_ request: Request, context: AppRequestContext) async throws -> [EditorResponse] {
        let (record, _) = try await editable(context)
        return try await store.storyboardEditors(storyboardId: record.id).map(EditorResponse.init)
    }

    struct EditorBody: Decodable { let email: String }

    /// Invites another account, by email, to edit the project (the owner only).
    @Sendable func addEditor(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<EditorResponse> {
        let (record, user) = try await editable(context)
        guard record.ownerId == user.id || user.role == .admin else { throw APIError.forbidden }
        let email = try await request.decode(as: EditorBody.self, context: context).email
            .trimmingCharacters(in: .whitespaces).lowercased()
        guard let invited = try await userStore.user(email: email) else {
            throw APIError(.notFound, code: "not_found", message: "No account has the address \(email).")
        }
        guard invited.id != record.ownerId else { throw APIError.badRequest("The owner edits already.") }
        try await store.addStoryboardEditor(storyboardId: record.id, userId: invited.id)
        return EditedResponse(status: .created, response: EditorResponse(invited))
    }

    @Sendable func removeEditor(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let (record, user) = try await editable(context)
        let removed = try context.parameters.require("user")
        // The owner removes anyone; an editor may leave.
        guard record.ownerId == user.id || user.role == .admin || removed == user.id else { throw APIError.forbidden }
        try await store.removeStoryboardEditor(storyboardId: record.id, userId: removed)
        return .noContent
    }

    /// The moments a shot changed, newest first, one per burst of one person's edits.
    @Sendable func versions(_ request: Request, context: AppRequestContext) async throws -> [ShotVersionResponse] {
        let (record, _) = try await editable(context)
        let shot = try context.parameters.require("shot")
        let edits = try await store.storyboardShotEdits(storyboardId: record.id, shotId: shot, limit: Self.maxVersions * 10)
        var names: [String: String] = [:]
        var versions: [ShotVersionResponse] = []
        for edit in edits {
            // Newest first: an edit joins the version above it when the same person made it
            // shortly before.
            if let last = versions.last, last.author == edit.authorId,
                last.firstAt.timeIntervalSince(edit.createdAt) < Self.versionBurst
            {
                versions[versions.count - 1].firstAt = edit.createdAt
                continue
            }
            guard versions.count < Self.maxVersions else { break }
            if names[edit.authorId] == nil {
                let user = try await userStore.user(id: edit.authorId)
                names[edit.authorId] = user.map { $0.name.isEmpty ? $0.email : $0.name } ?? "Someone"
            }
            versions.append(
                ShotVersionResponse(
                    seq: edit.seq, at: edit.createdAt, firstAt: edit.createdAt, author: edit.authorId,
                    authorName: names[edit.authorId] ?? ""))
        }
        // The shot as it was before the oldest change listed, when it existed then (the shot a
        // project starts with, a shot older than the history kept): one can go back to it too.
        if versions.count < Self.maxVersions, let oldest = edits.last, oldest.seq > 0,
            let before = try? await StoryboardHub.load(record.id, throughSeq: oldest.seq - 1, store: store),
            before.content.scenes.contains(where: { $0.shots.contains { $0.id == shot } })
        {
            let previous = try await store.storyboardEdits(
                storyboardId: record.id, afterSeq: oldest.seq - 2, throughSeq: oldest.seq - 1)
            let at = previous.first?.createdAt ?? record.createdAt
            versions.append(
                ShotVersionResponse(
                    seq: oldest.seq - 1, at: at, firstAt: at, author: previous.first?.authorId ?? record.ownerId,
                    authorName: "Earlier"))
        }
        return versions
    }

    /// The shot as it was after edit `seq`.
    @Sendable func version(_ request: Request, context: AppRequestContext) async throws -> ShotResponse {
        let (record, _) = try await editable(context)
        let shotID = try context.parameters.require("shot")
        guard let seq = Int(try context.parameters.require("seq")), seq >= 0, seq <= record.seq else {
            throw APIError.notFound("version")
        }
        let loaded = try await StoryboardHub.load(record.id, throughSeq: seq, store: store)
        guard let shot = loaded.content.scenes.lazy.flatMap(\.shots).first(where: { $0.id == shotID }) else {
            throw APIError.notFound("shot at that version")
        }
        return ShotResponse(shot: shot)
    }

    /// The project in the path, if the signed-in user may edit it (else 404: others' projects
    /// are not theirs to know of).
    private func editable(_ context: AppRequestContext) async throws -> (StoryboardRecord, UserRecord) {
        let user = try context.requireUser()
        guard let record = try await store.storyboard(id: try context.parameters.require("id")),
            try await StoryboardAccess.mayEdit(record, user: user, store: store)
        else { throw APIError.notFound("storyboard") }
        return (record, user)
    }

    static func title(_ raw: String) throws -> String {
        let title = DeckController.cleanTitle(raw)
        guard !title.isEmpty else { throw APIError.badRequest("A storyboard needs a title.") }
        return title
    }

    static func description(_ raw: String) throws -> String {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count <= 2000 else { throw APIError.badRequest("A description has at most 2,000 characters.") }
        return text
    }

    static func aspectRatio(_ raw: String) throws -> String {
        guard aspectRatios.contains(raw) else {
            throw APIError.badRequest("The aspect ratio is one of \(aspectRatios.joined(separator: ", ")).")
        }
        return raw
    }
}

/// A storyboard as the library lists it; `content` and `seq` when one is shown (PodiumWire's
/// `StoryboardProject`, which the SDK decodes).
typealias StoryboardResponse = StoryboardProject

extension StoryboardProject: ResponseEncodable {
    init(_ record: StoryboardRecord, viewer: UserRecord, content: Storyboard? = nil) {
        let owned = record.ownerId == viewer.id
        self.init(
            id: record.id, title: record.title, description: record.description, aspectRatio: record.aspectRatio,
            folderId: owned ? record.folderId : nil, ownerId: record.ownerId, owned: owned,
            sceneCount: content?.scenes.count ?? record.sceneCount, shotCount: content?.shotCount ?? record.shotCount,
            seq: record.seq, createdAt: record.createdAt, updatedAt: record.updatedAt, content: content)
    }
}

/// Someone who may edit a storyboard project besides its owner.
typealias EditorResponse = Person

extension Person: ResponseEncodable {
    init(_ user: UserRecord) {
        self.init(id: user.id, name: user.name, email: user.email)
    }
}

typealias ShotVersionResponse = ShotVersion

extension ShotVersion: ResponseEncodable {}

/// A shot, encoded as the model's JSON.
struct ShotResponse: Encodable, Sendable, ResponseEncodable {
    let shot: Shot

    func encode(to encoder: any Encoder) throws { try shot.encode(to: encoder) }
}
