import Foundation
import PodiumWire

extension Video {
    /// It plays (in a preview, on a stage, in the channel): from its first rendition on, while the
    /// rest of its ladder may still be packaged (``isPackagedWhole``).
    public var isReady: Bool { status == "ready" }
    /// Ready with every rendition of its ladder, its MP4 and thumbnails.
    public var isPackagedWhole: Bool { isReady && ladderComplete != false }
}

extension Endpoint {
    public static let videos = Endpoint("GET", "/api/v1/videos")
    public static let uploadVideo = Endpoint("POST", "/api/v1/videos")
    public static let video = Endpoint("GET", "/api/v1/videos/{id}")
    public static let updateVideo = Endpoint("PATCH", "/api/v1/videos/{id}")
    public static let deleteVideo = Endpoint("DELETE", "/api/v1/videos/{id}")
    public static let setVideoClip = Endpoint("PUT", "/api/v1/videos/{id}/clip")
}

extension PodiumClient {
    public func videos(folderId: String? = nil) async throws -> [Video] {
        try await call(.videos, query: ["folderId": folderId])
    }

    public func video(id: String) async throws -> Video {
        try await call(.video, ["id": id])
    }

    /// Uploads a video or audio file (judged by its content); it comes back `queued`.
    ///
    /// Resumably, in chunks of at most 8 MiB, as ``uploadDeck(file:title:folderId:progress:resume:)``:
    /// a dropped connection is retried from the server's offset, and with `resume` a later call
    /// for the same file continues an upload an earlier run left unfinished.
    public func uploadVideo(
        file: URL, title: String? = nil, folderId: String? = nil, progress: ProgressHandler? = nil,
        resume: (any UploadResumeStore)? = nil
    ) async throws -> Uploaded<Video> {
        let title = title ?? file.deletingPathExtension().lastPathComponent
        return try await resumableUpload(
            .file(file), to: .video(title: title, folderId: folderId), filename: file.lastPathComponent, resume: resume,
            progress: progress, as: Uploaded<Video>.self
        ) {
            let request = try request(
                .uploadVideo, query: ["title": title, "folderId": folderId], contentType: "application/octet-stream")
            return try await upload(request, file: file, data: nil, progress: progress).0
        }
    }

    /// Waits until the video plays: `ready` (from its first rendition on, its other renditions
    /// perhaps still packaged: `ladderComplete` false), or ``PodiumError`` with its failure code.
    public func waitUntilReady(video id: String, pollEvery interval: Duration = .milliseconds(250)) async throws -> Video {
        try await waitForVideo(id, until: \.isReady, pollEvery: interval)
    }

    /// Waits until the video is packaged whole: ready with its whole ladder (``Video/isPackagedWhole``),
    /// or ``PodiumError`` with its failure code.
    public func waitUntilPackagedWhole(video id: String, pollEvery interval: Duration = .milliseconds(250)) async throws
        -> Video
    {
        try await waitForVideo(id, until: \.isPackagedWhole, pollEvery: interval)
    }

    private func waitForVideo(_ id: String, until done: (Video) -> Bool, pollEvery interval: Duration) async throws -> Video {
        while true {
            let video = try await video(id: id)
            if done(video) { return video }
            if video.status == "failed" {
                throw PodiumError(
                    code: video.error?.code ?? "failed", message: video.error?.message ?? "The video could not be packaged.",
                    status: 200)
            }
            try await Task.sleep(for: interval)
        }
    }

    public func updateVideo(id: String, title: String? = nil, folderId: Change<String> = .keep) async throws -> Video {
        var patch = Patch()
        try patch.add("title", title)
        try patch.add("folderId", folderId)
        return try await call(.updateVideo, ["id": id], json: patch)
    }

    /// Sets how the clip plays on a stage: its trim (nil: its own start or end; `invalid_trim`
    /// unless `0 ≤ start < end ≤ duration`) and whether it loops. The whole setting each time.
    public func setVideoClip(id: String, _ settings: VideoClipSettings) async throws -> Video {
        try await call(.setVideoClip, ["id": id], json: settings)
    }

    public func deleteVideo(id: String) async throws {
        try await callIgnoringReply(.deleteVideo, ["id": id])
    }
}
