import Foundation
import Hummingbird
import PodiumStore
import PodiumWire

/// The library's folders: one tree of the owner's for decks, videos and storyboards. Folders
/// nest; a move that would put a folder inside itself is refused.
struct FolderController {
    let store: any DeckStore
    let now: @Sendable () -> Date

    /// How deep folders may nest: deep enough for anyone's filing, small enough to walk.
    static let maxDepth = 32

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("folders", use: list)
        group.post("folders", use: create)
        group.patch("folders/:id", use: update)
        group.delete("folders/:id", use: delete)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> [FolderResponse] {
        try await store.folders(ownerId: try context.requireUser().id).map(FolderResponse.init)
    }

    struct CreateBody: Decodable {
        let name: String
        let parentId: String?
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<FolderResponse> {
        let user = try context.requireUser()
        let body = try await request.decode(as: CreateBody.self, context: context)
        let name = try Self.name(body.name)
        if let parentId = body.parentId {
            _ = try await Self.owned(parentId, user: user, store: store)
            try Self.checkDepth(below: parentId, adding: 1, in: try await store.folders(ownerId: user.id))
        }
        let folder = FolderRecord(id: IDs.make("f"), ownerId: user.id, name: name, parentId: body.parentId, createdAt: now())
        try await store.insertFolder(folder)
        return EditedResponse(status: .created, response: FolderResponse(folder))
    }

    /// `name` renames; `parentId` moves (null: to the top level); a field left out stays.
    struct UpdateBody: Decodable {
        let name: String?
        let parentId: String??

        enum CodingKeys: String, CodingKey { case name, parentId }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decodeIfPresent(String.self, forKey: .name)
            parentId =
                container.contains(.parentId) ? .some(try container.decodeIfPresent(String.self, forKey: .parentId)) : .none
        }
    }

    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> FolderResponse {
        let user = try context.requireUser()
        var folder = try await Self.owned(try context.parameters.require("id"), user: user, store: store)
        let body = try await request.decode(as: UpdateBody.self, context: context)
        if let name = body.name {
            folder.name = try Self.name(name)
            try await store.renameFolder(id: folder.id, name: folder.name)
        }
        if let parentId = body.parentId, parentId != folder.parentId {
            if let parentId {
                _ = try await Self.owned(parentId, user: user, store: store)
                let folders = try await store.folders(ownerId: user.id)
                guard !Self.ancestors(of: parentId, in: folders).contains(folder.id), parentId != folder.id else {
                    throw APIError(.conflict, code: "folder_cycle", message: "A folder cannot go inside itself.")
                }
                try Self.checkDepth(below: parentId, adding: Self.height(of: folder.id, in: folders), in: folders)
            }
            try await store.moveFolder(id: folder.id, parentId: parentId)
            folder.parentId = parentId
        }
        return FolderResponse(folder)
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let folder = try await Self.owned(try context.parameters.require("id"), user: try context.requireUser(), store: store)
        try await store.deleteFolder(id: folder.id)
        return .noContent
    }

    /// The folder, if `user` owns it.
    static func owned(_ id: String, user: UserRecord, store: any DeckStore) async throws -> FolderRecord {
        guard let folder = try await store.folder(id: id), folder.ownerId == user.id else {
            throw APIError.notFound("folder")
        }
        return folder
    }

    static func name(_ raw: String) throws -> String {
        let name = DeckController.cleanTitle(raw)
        guard !name.isEmpty else { throw APIError.badRequest("A folder needs a name.") }
        return name
    }

    /// `id` and the folders above it, nearest first (a cycle left by a bug ends the walk).
    static func ancestors(of id: String, in folders: [FolderRecord]) -> [String] {
        let parents = Dictionary(folders.map { ($0.id, $0.parentId) }, uniquingKeysWith: { first, _ in first })
        var chain: [String] = []
        var current: String? = id
        while let next = current, !chain.contains(next) {
            chain.append(next)
            current = parents[next] ?? nil
        }
        return chain
    }

    /// How many levels a folder and the folders inside it take (1: none inside).
    static func height(of id: String, in folders: [FolderRecord]) -> Int {
        var children: [String: [String]] = [:]
        for folder in folders { if let parent = folder.parentId { children[parent, default: []].append(folder.id) } }
        func height(_ id: String, _ depth: Int) -> Int {
            guard depth < maxDepth * 2 else { return depth }
            return 1 + (children[id] ?? []).map { height($0, depth + 1) }.max(default: 0)
        }
        return height(id, 0)
    }

    private static func checkDepth(below parentId: String, adding levels: Int, in folders: [FolderRecord]) throws {
        guard ancestors(of: parentId, in: folders).count + levels <= maxDepth else {
            throw APIError.badRequest("Folders nest at most \(maxDepth) deep.")
        }
    }
}

extension Sequence where Element == Int {
    fileprivate func max(default value: Int) -> Int { self.max() ?? value }
}
