import Foundation
import SQLKit

extension SQLStore: DeckStore {
    public func folders(ownerId: String) async throws -> [FolderRecord] {
        try await serial { db in
            try await db.select().column("*").from("folders").where("owner_id", .equal, ownerId)
                .orderBy("name").all(decoding: FolderRecord.self, with: Self.decoding)
        }
    }

    public func folder(id: String) async throws -> FolderRecord? {
        try await serial { db in
            try await db.select().column("*").from("folders").where("id", .equal, id)
                .first(decoding: FolderRecord.self, with: Self.decoding)
        }
    }

    public func insertFolder(_ folder: FolderRecord) async throws {
        try await serial { db in
            try await db.insert(into: "folders").model(folder, keyEncodingStrategy: .convertToSnakeCase).run()
        }
    }

    public func renameFolder(id: String, name: String) async throws {
        try await serial { db in
            try await db.update("folders").set("name", to: name).where("id", .equal, id).run()
        }
    }

    public func moveFolder(id: String, parentId: String?) async throws {
        try await serial { db in
            try await db.update("folders").set("parent_id", to: parentId.map { SQLBind($0) } ?? SQLLiteral.null)
                .where("id", .equal, id).run()
        }
    }

    public func deleteFolder(id: String) async throws {
        try await transaction { db in
            guard
                let folder = try await db.select().column("*").from("folders").where("id", .equal, id)
                    .first(decoding: FolderRecord.self, with: Self.decoding)
            else { return }
            let parent: any SQLExpression = folder.parentId.map { SQLBind($0) } ?? SQLLiteral.null
            for table in ["decks", "videos", "storyboards"] {
                try await db.update(table).set("folder_id", to: parent).where("folder_id", .equal, id).run()
            }
            try await db.update("folders").set("parent_id", to: parent).where("parent_id", .equal, id).run()
            try await db.delete(from: "folders").where("id", .equal, id).run()
        }
    }

    public func insertDeck(_ deck: DeckRecord) async throws {
        try await serial { db in
            try await db.insert(into: "decks").model(deck, keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil)
                .run()
        }
    }

    public func deck(id: String) async throws -> DeckRecord? {
        try await serial { db in
            try await db.select().column("*").from("decks").where("id", .equal, id)
                .first(decoding: DeckRecord.self, with: Self.decoding)
        }
    }

    public func decks(ownerId: String, folderId: String?) async throws -> [DeckRecord] {
        try await serial { db in
            // A library lists its owner's own decks, not those guests uploaded into the owner's rooms.
            var query = db.select().column("*").from("decks").where("owner_id", .equal, ownerId)
                .where("room_id", .is, SQLLiteral.null)
            if let folderId { query = query.where("folder_id", .equal, folderId) }
            return try await query.orderBy("created_at", .descending).all(decoding: DeckRecord.self, with: Self.decoding)
        }
    }

    public func updateDeck(_ deck: DeckRecord) async throws {
        try await serial { db in try await Self.update(deck, on: db) }
    }

    public func completeDeck(_ deck: DeckRecord, pages: [PageRecord]) async throws {
        try await transaction { db in
            try await db.delete(from: "pages").where("deck_id", .equal, deck.id).run()
            if !pages.isEmpty {
                try await db.insert(into: "pages").models(
                    pages, keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil
                )
                .run()
            }
            try await Self.update(deck, on: db)
        }
    }

    public func pages(deckId: String) async throws -> [PageRecord] {
        try await serial { db in
            try await db.select().column("*").from("pages").where("deck_id", .equal, deckId).orderBy("number")
                .all(decoding: PageRecord.self, with: Self.decoding)
        }
    }

    public func deleteDeck(id: String) async throws {
        try await serial { db in
            try await db.delete(from: "decks").where("id", .equal, id).run()
        }
    }

    public func decksUsing(sourceHash: String) async throws -> Int {
        try await serial { db in
            struct Row: Decodable { let count: Int }
            return try await db.raw("SELECT COUNT(*) AS count FROM decks WHERE source_hash = \(bind: sourceHash)")
                .first(decoding: Row.self)?.count ?? 0
        }
    }

    public func processingDecks() async throws -> [DeckRecord] {
        try await serial { db in
            try await db.select().column("*").from("decks").where("status", .equal, DeckRecord.Status.processing.rawValue)
                .all(decoding: DeckRecord.self, with: Self.decoding)
        }
    }

    private static func update(_ deck: DeckRecord, on db: any SQLDatabase) async throws {
        try await db.update("decks")
            .set("folder_id", to: deck.folderId.map { SQLBind($0) as any SQLExpression } ?? SQLLiteral.null)
            .set("title", to: deck.title)
            .set("status", to: deck.status.rawValue)
            .set("page_count", to: deck.pageCount)
            .set("source_hash", to: deck.sourceHash)
            .set("source_bytes", to: deck.sourceBytes)
            .set("error_code", to: deck.errorCode.map { SQLBind($0) as any SQLExpression } ?? SQLLiteral.null)
            .set("error_message", to: deck.errorMessage.map { SQLBind($0) as any SQLExpression } ?? SQLLiteral.null)
            .where("id", .equal, deck.id)
            .run()
    }
}
