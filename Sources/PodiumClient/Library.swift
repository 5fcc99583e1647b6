import Foundation
import PodiumCore
import PodiumWire

extension Deck {
    public var isReady: Bool { status == "ready" }
    public var isFinished: Bool { status != "processing" }
}

/// A prepared poll of a deck's question bank: the SDK's name for PodiumWire's
/// `QuestionBankItem` (the document's `BankQuestion`).
public typealias BankQuestion = QuestionBankItem

extension Endpoint {
    public static let decks = Endpoint("GET", "/api/v1/decks")
    public static let uploadDeck = Endpoint("POST", "/api/v1/decks")
    public static let deck = Endpoint("GET", "/api/v1/decks/{id}")
    public static let updateDeck = Endpoint("PATCH", "/api/v1/decks/{id}")
    public static let deleteDeck = Endpoint("DELETE", "/api/v1/decks/{id}")
    public static let deckPDF = Endpoint("GET", "/api/v1/decks/{id}/pdf")
    public static let folders = Endpoint("GET", "/api/v1/folders")
    public static let createFolder = Endpoint("POST", "/api/v1/folders")
    public static let updateFolder = Endpoint("PATCH", "/api/v1/folders/{id}")
    public static let deleteFolder = Endpoint("DELETE", "/api/v1/folders/{id}")
    public static let deckQuestions = Endpoint("GET", "/api/v1/decks/{id}/questions")
    public static let addDeckQuestion = Endpoint("POST", "/api/v1/decks/{id}/questions")
    public static let updateDeckQuestion = Endpoint("PATCH", "/api/v1/decks/{id}/questions/{questionId}")
    public static let deleteDeckQuestion = Endpoint("DELETE", "/api/v1/decks/{id}/questions/{questionId}")
    public static let blob = Endpoint("GET", "/blobs/{name}")
}

/// A field that may be set to a value, set to null, or left alone.
public enum Change<Value: Encodable & Sendable>: Sendable {
    case keep
    case set(Value?)
}

/// Encodes only the fields that change; `.set(nil)` becomes `null`.
struct Patch: Encodable {
    var fields: [(String, JSONValue)] = []

    mutating func add<Value: Encodable>(_ name: String, _ change: Change<Value>) throws {
        if case .set(let value) = change { fields.append((name, try value.map { try JSONValue(encoding: $0) } ?? .null)) }
    }

    mutating func add(_ name: String, _ value: (some Encodable)?) throws {
        if let value { fields.append((name, try JSONValue(encoding: value))) }
    }

    func encode(to encoder: any Encoder) throws {
        try JSONValue.object(Dictionary(fields, uniquingKeysWith: { _, last in last })).encode(to: encoder)
    }
}

extension PodiumClient {
    // MARK: Decks

    /// The signed-in user's decks, newest first (those of one folder when `folderId` is given).
    public func decks(folderId: String? = nil) async throws -> [Deck] {
        try await call(.decks, query: ["folderId": folderId])
    }

    public func deck(id: String) async throws -> Deck {
        try await call(.deck, ["id": id])
    }

    /// Uploads a deck file as the raw body: a PDF, or any file the server converts (PowerPoint,
    /// Keynote, OpenDocument, Word, an image or a ZIP of images; the server tells them by their
    /// bytes). `progress` hears of every chunk sent. The deck comes back `processing`: wait with
    /// ``waitUntilReady(deck:pollEvery:)``.
    ///
    /// The file goes up resumably (`/api/v1/uploads`, in chunks of at most 8 MiB): a dropped
    /// connection costs a retry from the bytes the server has, not the whole file (see
    /// ``uploadPolicy``). With `resume`, an upload interrupted in an earlier run (a crash, a
    /// killed process) continues where the server has it. A server without resumable uploads
    /// gets the file in one request, as before.
    public func uploadDeck(
        file: URL, title: String? = nil, folderId: String? = nil, progress: ProgressHandler? = nil,
        resume: (any UploadResumeStore)? = nil
    ) async throws -> Uploaded<Deck> {
        let title = title ?? file.deletingPathExtension().lastPathComponent
        return try await resumableUpload(
            .file(file), to: .deck(title: title, folderId: folderId), filename: file.lastPathComponent, resume: resume,
            progress: progress, as: Uploaded<Deck>.self
        ) {
            let request = try request(
                .uploadDeck, query: ["title": title, "folderId": folderId], contentType: "application/octet-stream")
            return try await upload(request, file: file, data: nil, progress: progress).0
        }
    }

    /// Uploads a PDF held in memory (resumably, as ``uploadDeck(file:title:folderId:progress:resume:)``,
    /// within this call).
    public func uploadDeck(
        pdf: Data, title: String? = nil, folderId: String? = nil, progress: ProgressHandler? = nil
    ) async throws -> Uploaded<Deck> {
        try await resumableUpload(
            .data(pdf), to: .deck(title: title, folderId: folderId), filename: nil, resume: nil, progress: progress,
            as: Uploaded<Deck>.self
        ) {
            let request = try request(.uploadDeck, query: ["title": title, "folderId": folderId], contentType: "application/pdf")
            return try await upload(request, file: nil, data: pdf, progress: progress).0
        }
    }

    /// Waits until the deck has been processed ("as it lands"): returns it `ready`, or throws
    /// ``PodiumError`` with the deck's failure code when it `failed`.
    public func waitUntilReady(deck id: String, pollEvery interval: Duration = .milliseconds(250)) async throws -> Deck {
        while true {
            let deck = try await deck(id: id)
            if deck.isReady { return deck }
            if deck.status == "failed" {
                throw PodiumError(
                    code: deck.error?.code ?? "failed", message: deck.error?.message ?? "The deck could not be processed.",
                    status: 200)
            }
            try await Task.sleep(for: interval)
        }
    }

    /// Renames a deck or moves it (`folderId: .set(nil)`: the top level).
    public func updateDeck(id: String, title: String? = nil, folderId: Change<String> = .keep) async throws -> Deck {
        var patch = Patch()
        try patch.add("title", title)
        try patch.add("folderId", folderId)
        return try await call(.updateDeck, ["id": id], json: patch)
    }

    public func deleteDeck(id: String) async throws {
        try await callIgnoringReply(.deleteDeck, ["id": id])
    }

    /// Downloads a deck's PDF into `destination`.
    public func downloadDeckPDF(id: String, to destination: URL, progress: ProgressHandler? = nil) async throws {
        try await download(try request(.deckPDF, ["id": id]), to: destination, progress: progress)
    }

    /// A picture blob (`/blobs/{name}`: a page image, a poster, a thumbnail sprite, a place's
    /// picture) by name or by the URL the server gave. Media (playlists, segments, MP4) are not
    /// blobs to the API: they are read through the expiring stream URLs the server gives
    /// (`/stream/<token>/<file>`, e.g. a video's `masterPlaylistUrl`), and `/blobs/` answers
    /// `404 not_found` for them.
    public func blob(_ nameOrURL: String) async throws -> Data {
        let name = nameOrURL.split(separator: "/").last.map(String.init) ?? nameOrURL
        return try await bytes(.blob, ["name": name])
    }

    // MARK: Folders

    public func folders() async throws -> [Folder] {
        try await call(.folders)
    }

    public func createFolder(name: String, parentId: String? = nil) async throws -> Folder {
        var patch = Patch()
        try patch.add("name", name)
        try patch.add("parentId", parentId)
        return try await call(.createFolder, json: patch)
    }

    /// Renames a folder or moves it (`parentId: .set(nil)`: the top level; a cycle is `409 folder_cycle`).
    public func updateFolder(id: String, name: String? = nil, parentId: Change<String> = .keep) async throws -> Folder {
        var patch = Patch()
        try patch.add("name", name)
        try patch.add("parentId", parentId)
        return try await call(.updateFolder, ["id": id], json: patch)
    }

    /// Deletes a folder; what it held moves up to its parent.
    public func deleteFolder(id: String) async throws {
        try await callIgnoringReply(.deleteFolder, ["id": id])
    }

    // MARK: Question bank

    public func questionBank(deckId: String) async throws -> [BankQuestion] {
        try await call(.deckQuestions, ["id": deckId])
    }

    public func addBankQuestion(deckId: String, poll: Poll, position: Int? = nil) async throws -> BankQuestion {
        var patch = Patch()
        try patch.add("poll", poll)
        try patch.add("position", position)
        return try await call(.addDeckQuestion, ["id": deckId], json: patch)
    }

    public func updateBankQuestion(deckId: String, questionId: String, poll: Poll? = nil, position: Int? = nil) async throws
        -> BankQuestion
    {
        var patch = Patch()
        try patch.add("poll", poll)
        try patch.add("position", position)
        return try await call(.updateDeckQuestion, ["id": deckId, "questionId": questionId], json: patch)
    }

    public func deleteBankQuestion(deckId: String, questionId: String) async throws {
        try await callIgnoringReply(.deleteDeckQuestion, ["id": deckId, "questionId": questionId])
    }
}
