import Hummingbird
import PodiumWire

/// What a client checks before it sends a file (`GET /api/v1/limits`): refusing an upload in the
/// browser saves sending gigabytes the server would refuse.
struct LimitsController {
    /// PodiumWire's, which the SDK decodes.
    typealias Limits = PodiumWire.Limits

    let limits: Limits

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("limits") { _, _ in limits }
    }
}

extension PodiumWire.Limits: ResponseEncodable {
    /// What a deck upload may be (by its bytes, whatever its name).
    static let deckUploadTypes = [
        "application/pdf", "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "application/vnd.ms-powerpoint", "application/vnd.apple.keynote", "application/vnd.oasis.opendocument.presentation",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/msword",
        "application/vnd.oasis.opendocument.text", "image/png", "image/jpeg", "image/webp", "application/zip",
    ]

    init(maxUploadBytes: Int, maxVideoUploadBytes: Int, maxVideoSeconds: Int) {
        self.init(
            maxUploadBytes: maxUploadBytes, uploadTypes: Self.deckUploadTypes, maxVideoUploadBytes: maxVideoUploadBytes,
            maxVideoSeconds: maxVideoSeconds)
    }
}
