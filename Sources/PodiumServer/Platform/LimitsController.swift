import Hummingbird

/// What a client checks before it sends a file (`GET /api/v1/limits`): refusing an upload in the
/// browser saves sending gigabytes the server would refuse.
struct LimitsController {
    struct Limits: Codable, Sendable, ResponseEncodable {
        /// The largest PDF an upload may carry, in bytes; a larger one is refused with `413 too_large`.
        let maxUploadBytes: Int
        /// What a deck upload may be (by its bytes, whatever its name).
        var uploadTypes = [
            "application/pdf", "application/vnd.openxmlformats-officedocument.presentationml.presentation",
            "application/vnd.ms-powerpoint", "application/vnd.apple.keynote", "application/vnd.oasis.opendocument.presentation",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/msword",
            "application/vnd.oasis.opendocument.text", "image/png", "image/jpeg", "image/webp", "application/zip",
        ]
        /// The largest video or audio file, in bytes (`413 too_large` above it).
        let maxVideoUploadBytes: Int
        /// The longest clip accepted, in seconds (`too_long` above it, found by probing the file).
        let maxVideoSeconds: Int
    }

    let limits: Limits

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("limits") { _, _ in limits }
    }
}
