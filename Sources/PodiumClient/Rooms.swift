import Foundation
import PodiumWire

extension Endpoint {
    public static let openRoom = Endpoint("POST", "/api/v1/rooms")
    public static let addRoomDeck = Endpoint("POST", "/api/v1/sessions/{code}/decks")
    public static let roomVideos = Endpoint("GET", "/api/v1/sessions/{code}/videos")
    public static let uploadRoomVideo = Endpoint("POST", "/api/v1/sessions/{code}/videos")
    public static let exportPDF = Endpoint("GET", "/api/v1/sessions/{code}/export.pdf")
}

extension PodiumClient {
    /// Opens a room; the signed-in user moderates it. Presenters join at `presenterUrl`.
    public func openRoom(title: String? = nil, passcode: String? = nil, allowDownload: Bool = false) async throws
        -> LiveSessionInfo
    {
        var patch = Patch()
        try patch.add("title", title)
        try patch.add("passcode", passcode)
        try patch.add("allowDownload", allowDownload)
        return try await call(.openRoom, json: patch)
    }

    /// A ready deck of your library joins the room at once (event `deckAdded`).
    public func addDeckToRoom(code: String, deckId: String) async throws -> RoomDeckAdded {
        struct Body: Encodable { let deckId: String }
        return try await call(.addRoomDeck, ["code": code], json: Body(deckId: deckId))
    }

    /// Uploads a PDF into the room; it joins once processed. Resumably, as
    /// ``uploadDeck(file:title:folderId:progress:resume:)``.
    public func uploadDeckToRoom(
        code: String, file: URL, progress: ProgressHandler? = nil, resume: (any UploadResumeStore)? = nil
    ) async throws -> RoomDeckAdded {
        try await resumableUpload(
            .file(file), to: .roomDeck(code: code, asPresenter: false), filename: file.lastPathComponent, resume: resume,
            progress: progress, as: RoomDeckAdded.self
        ) {
            let request = try request(.addRoomDeck, ["code": code], contentType: "application/pdf")
            return try await upload(request, file: file, data: nil, progress: progress).0
        }
    }

    /// The room's own clips, newest first.
    public func roomVideos(code: String) async throws -> [Video] {
        try await call(.roomVideos, ["code": code])
    }

    /// Uploads a clip that belongs to the room alone. Resumably, as
    /// ``uploadVideo(file:title:folderId:progress:resume:)``.
    public func uploadRoomVideo(
        code: String, file: URL, title: String? = nil, progress: ProgressHandler? = nil,
        resume: (any UploadResumeStore)? = nil
    ) async throws -> Uploaded<Video> {
        try await resumableUpload(
            .file(file), to: .roomVideo(code: code, title: title, asPresenter: false), filename: file.lastPathComponent,
            resume: resume, progress: progress, as: Uploaded<Video>.self
        ) {
            let request = try request(
                .uploadRoomVideo, ["code": code], query: ["title": title], contentType: "application/octet-stream")
            return try await upload(request, file: file, data: nil, progress: progress).0
        }
    }

    /// Downloads the slides shown with their ink (and the clips shown) as one PDF
    /// (`409 nothing_shown` for a room that showed nothing yet).
    public func downloadExportPDF(code: String, to destination: URL, progress: ProgressHandler? = nil) async throws {
        try await download(try request(.exportPDF, ["code": code]), to: destination, progress: progress)
    }
}
