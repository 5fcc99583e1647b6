import Foundation

/// The errors of a video ingest. Codes: `empty`, `not_video`, `corrupt`, `too_long`,
/// `resolution_too_large`, `timeout`, `tool_missing` (the same shape as the PDF errors, so the
/// job queue and the API treat both alike).
extension IngestError {
    /// The file has no bytes.
    public static let emptyVideo = IngestError(
        code: "empty", message: "This file is empty. Choose the video again and upload it.")

    /// The file is a PDF, an image or something else that is not a video or audio clip.
    /// - Parameter what: what it is instead, when known ("a PDF", "an image").
    public static func notVideo(_ what: String? = nil) -> IngestError {
        let found = what.map { "This file is \($0), not a video." } ?? "This file is not a video or audio clip."
        return IngestError(
            code: "not_video",
            message: "\(found) Upload an MP4, MOV, WebM or MKV video (or an audio file); decks are uploaded as PDF.")
    }

    /// The file looks like a video but could not be read to the end.
    public static func corruptVideo(detail: String) -> IngestError {
        IngestError(
            code: "corrupt",
            message: "This video could not be read (\(detail)). It may be damaged or cut off: "
                + "export it again and upload the new file.")
    }

    /// The clip is longer than the server accepts.
    public static func tooLong(limit: Duration) -> IngestError {
        IngestError(
            code: "too_long",
            message: "This clip is longer than \(describe(limit)), the most the server accepts. Trim it and upload it again.")
    }

    /// The picture is larger than the server accepts.
    public static func resolutionTooLarge(maxWidth: Int, maxHeight: Int) -> IngestError {
        IngestError(
            code: "resolution_too_large",
            message: "This video's picture is larger than \(maxWidth)×\(maxHeight), the most the server accepts. "
                + "Export it at a smaller size and upload it again.")
    }

    /// Packaging ran past its deadline.
    public static func packagingTimeout(_ limit: Duration) -> IngestError {
        IngestError(
            code: "timeout",
            message: "Preparing this video took longer than the \(describe(limit)) the server allows. "
                + "Trim it or export it at a smaller size, then upload it again.")
    }

    /// FFmpeg is not installed: an administrator has to fix this, not the uploader.
    public static func videoToolMissing(tool: String) -> IngestError {
        IngestError(
            code: "tool_missing",
            message: "The server cannot process videos because the program \"\(tool)\" is not installed. "
                + "Ask the administrator to install ffmpeg.")
    }

    /// "3 hours", "10 minutes", "30 seconds".
    static func describe(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        if seconds >= 7200, seconds % 3600 == 0 { return "\(seconds / 3600) hours" }
        if seconds >= 120 { return "\(seconds / 60) minutes" }
        return seconds == 1 ? "1 second" : "\(seconds) seconds"
    }
}
