import Foundation
import HTTPTypes
import NIOCore
import PodiumMedia
import Testing

@testable import PodiumServer

/// A storyboard's reference images: the kind and size read from real pictures' headers (JPEG,
/// PNG, lossy and lossless WebP, 40 × 30 each, made by ffmpeg); the upload route's answers, its
/// limits and errors; and a layer placing the uploaded picture, in the project's content.
@Suite("Storyboard reference images", .timeLimit(.minutes(1)))
struct StoryboardImageTests {
    static let jpeg = Data(
        base64Encoded:
            "/9j/4AAQSkZJRgABAgAAAQABAAD//gAQTGF2YzU5LjM3LjEwMAD/2wBDAAgEBAQEBAUFBQUFBQYGBgYGBgYGBgYGBgYHBwcICAgHBwcGBgcHCAgICAkJCQgICAgJCQoKCgwMCwsODg4RERT/xABNAAEBAAAAAAAAAAAAAAAAAAAABgEBAQEAAAAAAAAAAAAAAAAAAAYHEAEAAAAAAAAAAAAAAAAAAAAAEQEAAAAAAAAAAAAAAAAAAAAA/8AAEQgAHgAoAwEiAAIRAAMRAP/aAAwDAQACEQMRAD8AiwEo38AAAAAAAAAB/9k="
    )!
    static let png = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAACgAAAAeCAIAAADRv8uKAAAACXBIWXMAAAABAAAAAQBPJcTWAAAAKklEQVR4nO3NsQkAAAwDoPz/c6EvZMsiuJtLJjarWCwWi8VisVgsFosrD7mwoi31plaQAAAAAElFTkSuQmCC"
    )!
    static let webp = Data(
        base64Encoded:
            "UklGRk4AAABXRUJQVlA4IEIAAABQAwCdASooAB4APpFGnkslo6KhpWgAsBIJZwDO3oAAK/fDcAD+7tPf/2LOWwLx//7nA/7nA/7nA/jbB+29aoAAAAA="
    )!
    static let losslessWebp = Data(base64Encoded: "UklGRhwAAABXRUJQVlA4TA8AAAAvJ0AHAAcQ9Y/+ByKi/wEA")!

    /// A PNG header that says `width` × `height` (nothing after it is read).
    static func pngHeader(width: UInt32, height: UInt32) -> Data {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        for value in [width, height] { bytes += withUnsafeBytes(of: value.bigEndian, Array.init) }
        return Data(bytes + [8, 2, 0, 0, 0, 0, 0, 0, 0])
    }

    /// The JPEG with an APP1 EXIF segment (one IFD entry: the orientation) after its start.
    static func jpeg(orientation: UInt16, bigEndian: Bool = false) -> Data {
        func short(_ value: UInt16) -> [UInt8] {
            bigEndian ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
        }
        func long(_ value: UInt32) -> [UInt8] {
            let bytes = withUnsafeBytes(of: value.bigEndian, Array.init)
            return bigEndian ? bytes : bytes.reversed()
        }
        var tiff: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        tiff += short(42) + long(8) + short(1)
        tiff += short(0x0112) + short(3) + long(1) + short(orientation) + [0, 0] + long(0)
        let exif = Array("Exif".utf8) + [0, 0] + tiff
        let length = UInt16(exif.count + 2)
        let app1: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + exif
        return Data(Array(Self.jpeg.prefix(2)) + app1 + Array(Self.jpeg.dropFirst(2)))
    }

    @Test func theKindAndSizeAreReadFromTheHeader() {
        #expect(PictureSize.read(Self.jpeg) == PictureSize(kind: "jpg", width: 40, height: 30))
        #expect(PictureSize.read(Self.png) == PictureSize(kind: "png", width: 40, height: 30))
        #expect(PictureSize.read(Self.webp) == PictureSize(kind: "webp", width: 40, height: 30))
        #expect(PictureSize.read(Self.losslessWebp) == PictureSize(kind: "webp", width: 40, height: 30))
        #expect(PictureSize.read(Self.pngHeader(width: 9000, height: 20)) == PictureSize(kind: "png", width: 9000, height: 20))
        // A phone's photo held upright: stored 40 × 30 with an EXIF orientation of a quarter turn, shown 30 × 40.
        #expect(PictureSize.read(Self.jpeg(orientation: 6)) == PictureSize(kind: "jpg", width: 30, height: 40))
        #expect(PictureSize.read(Self.jpeg(orientation: 8, bigEndian: true)) == PictureSize(kind: "jpg", width: 30, height: 40))
        #expect(PictureSize.read(Self.jpeg(orientation: 3)) == PictureSize(kind: "jpg", width: 40, height: 30))
        // Not a picture, or one cut short before its size.
        #expect(PictureSize.read(Data("<html>hi</html>".utf8)) == nil)
        #expect(PictureSize.read(Self.png.prefix(12)) == nil)
        #expect(PictureSize.read(Self.jpeg.prefix(40)) == nil)
        #expect(PictureSize.read(Self.webp.prefix(20)) == nil)
    }

    @Test func anEditorUploadsAPictureAndALayerPlacesIt() async throws {
        try await AuthorizationMatrixTests.withAccounts { client, _, tokens in
            let project = try await StoryboardServerTests.create(client, token: tokens.owner)
            let id = try #require(project["id"] as? String)
            let path = "/api/v1/storyboards/\(id)/images"
            let octets: HTTPFields = [.contentType: "application/octet-stream"]

            let stored = try await client.request(
                .post, path, token: tokens.owner, headers: octets, body: ByteBuffer(data: Self.jpeg))
            #expect(stored.status == .created)
            let image = try stored.object()
            let blob = try #require(image["blob"] as? String)
            #expect(blob.hasSuffix(".jpg") && blob.count == 68, "\(image)")
            #expect(image["url"] as? String == "/blobs/\(blob)" && image["type"] as? String == "image/jpeg")
            #expect(image["width"] as? Int == 40 && image["height"] as? Int == 30 && image["bytes"] as? Int == Self.jpeg.count)
            let served = try await client.request(.get, "/blobs/\(blob)")
            #expect(served.status == .ok && served.headers[.contentType] == "image/jpeg")
            #expect(Data(buffer: served.body) == Self.jpeg)
            // A multipart form's field `file` too (a browser form); WebP is a picture.
            let boundary = "XyZ"
            var form = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.webp\"\r\n".utf8)
            form += Data("Content-Type: image/webp\r\n\r\n".utf8) + Self.webp + Data("\r\n--\(boundary)--\r\n".utf8)
            let multipart = try await client.request(
                .post, path, token: tokens.owner, headers: [.contentType: "multipart/form-data; boundary=\(boundary)"],
                body: ByteBuffer(data: form))
            #expect(try multipart.status == .created && multipart.object()["type"] as? String == "image/webp")

            // Placed on a layer by an edit; the project's content has it.
            let (_, shot, _) = try StoryboardServerTests.firstShot(project)
            let (editor, _) = try await StoryboardServerTests.editor(client, project: id, token: tokens.owner)
            try await editor.send([
                "type": "edit", "id": "r1",
                "edit": [
                    "op": "addLayer", "shot": shot, "index": 0,
                    "layer": [
                        "id": "ref", "name": "Reference", "visible": true, "locked": false, "opacity": 0.4,
                        "transform": ["x": 0, "y": 0, "scale": 1.5, "rotation": 0], "strokes": [],
                        "image": ["blob": blob, "width": 40, "height": 30],
                    ] as [String: Any],
                ] as [String: Any],
            ])
            #expect(try await editor.next(ofType: "ack")?["id"] as? String == "r1")
            await editor.close()
            let shown = try await client.request(.get, "/api/v1/storyboards/\(id)", token: tokens.owner).object()
            let content = try #require(shown["content"] as? [String: Any])
            let layer =
                (((content["scenes"] as? [[String: Any]])?[0]["shots"] as? [[String: Any]])?[0]["layers"]
                as? [[String: Any]])?[0]
            #expect((layer?["image"] as? [String: Any])?["blob"] as? String == blob && layer?["opacity"] as? Double == 0.4)
        }
    }

    @Test func whatIsNotAPictureOrTooLargeIsRefusedClearly() async throws {
        try await AuthorizationMatrixTests.withAccounts { client, _, tokens in
            let project = try await StoryboardServerTests.create(client, token: tokens.owner)
            let id = try #require(project["id"] as? String)
            let path = "/api/v1/storyboards/\(id)/images"
            func post(_ data: Data, token: String? = tokens.owner, type: String = "image/png") async throws -> TestResponse {
                try await client.request(.post, path, token: token, headers: [.contentType: type], body: ByteBuffer(data: data))
            }
            func code(_ response: TestResponse) throws -> String? {
                (try response.object()["error"] as? [String: Any])?["code"] as? String
            }
            // A page named .png is no picture: judged by its bytes.
            let page = try await post(Data("<html>hi</html>".utf8))
            #expect(try page.status == .unsupportedMediaType && code(page) == "not_image")
            let cut = try await post(Self.png.prefix(14))
            #expect(try cut.status == .unsupportedMediaType && code(cut) == "bad_image")
            let wide = try await post(Self.pngHeader(width: 9000, height: 100))
            #expect(try wide.status == .contentTooLarge && code(wide) == "too_many_pixels")
            let message = (try wide.object()["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains("9000 × 100") && message.contains("8192"), "\(message)")
            let many = try await post(Self.pngHeader(width: 8000, height: 8000))  // 64 megapixels
            #expect(try many.status == .contentTooLarge && code(many) == "too_many_pixels")
            #expect(try await post(Self.pngHeader(width: 8000, height: 5000)).status == .created)  // 40 megapixels
            let huge = try await post(Self.png + Data(count: 20 * 1024 * 1024))
            #expect(try huge.status == .contentTooLarge && code(huge) == "too_large")
            // Someone who may not edit it does not learn it exists; signed out, sign in first.
            #expect(try await post(Self.png, token: tokens.other).status == .notFound)
            #expect(try await post(Self.png, token: nil).status == .unauthorized)
            #expect(try await post(Self.png, token: tokens.admin).status == .created)
        }
    }
}
