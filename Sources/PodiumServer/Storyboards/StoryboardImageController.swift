import Foundation
import Hummingbird
import PodiumCore
import PodiumMedia
import PodiumStore
import PodiumWire

/// `POST /api/v1/storyboards/{id}/images`: a reference image for a storyboard's layers (an editor
/// of the project uploads it, then places it with an `addLayer` edit naming the blob). JPEG, PNG
/// or WebP told by its first bytes, never by its name or claimed type; at most ``Limits/bytes``
/// and ``Limits/side`` pixels a side, ``Limits/pixels`` in all. Kept as a blob, served at
/// `/blobs/<name>` (named by its content hash, as every picture there).
struct StoryboardImageController {
    let store: any StoryboardStore
    let blobs: any BlobStore
    let uploadDirectory: URL
    var limits = Limits()

    struct Limits: Sendable {
        var bytes = 20 * 1024 * 1024
        var side = 8192
        var pixels = 40_000_000
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("storyboards/:id/images", use: upload)
    }

    /// PodiumWire's, which the SDK decodes.
    typealias ImageResponse = StoryboardImage

    @Sendable func upload(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<ImageResponse> {
        let user = try context.requireUser()
        guard let record = try await store.storyboard(id: try context.parameters.require("id")),
            try await StoryboardAccess.mayEdit(record, user: user, store: store)
        else { throw APIError.notFound("storyboard") }
        let received = try await Upload.receive(request, into: uploadDirectory, limit: limits.bytes)
        defer { try? FileManager.default.removeItem(at: received.file) }
        let data = try Data(contentsOf: received.file)
        guard PictureSize.kind(of: data) != nil else {
            throw APIError(
                .unsupportedMediaType, code: "not_image", message: "That file is not a picture: upload a JPEG, PNG or WebP.")
        }
        guard let size = PictureSize.read(data) else {
            throw APIError(
                .unsupportedMediaType, code: "bad_image", message: "That picture could not be read: it may be damaged.")
        }
        guard size.width <= limits.side, size.height <= limits.side, size.width * size.height <= limits.pixels else {
            throw APIError(
                .contentTooLarge, code: "too_many_pixels",
                message:
                    "That picture is \(size.width) × \(size.height) pixels; a reference image has at most \(limits.side) "
                    + "pixels a side and \(limits.pixels / 1_000_000) megapixels.")
        }
        let name = try blobs.put(fileAt: received.file, fileExtension: size.kind)
        return EditedResponse(
            status: .created,
            response: ImageResponse(
                blob: name, url: "/blobs/\(name)", type: WebController.mediaType(for: name), width: size.width,
                height: size.height, bytes: received.bytes))
    }
}

extension StoryboardImage: ResponseEncodable {}
