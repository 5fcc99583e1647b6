import Crypto
import Foundation
import Hummingbird
import PodiumStore

/// `GET /tiles/{z}/{x}/{y}.png`: the offline basemap's tiles (see ``TileSet``), cached for ever
/// by browsers (the tiles of one installed version never change), 404 outside the set or when
/// no basemap is installed.
struct TileController {
    let tiles: TileSet?

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/tiles/:z/:x/{y}.png", use: tile)
    }

    @Sendable func tile(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let tiles else { throw APIError(.notFound, code: "not_found", message: "No basemap is installed.") }
        guard let z = Self.number(context.parameters.get("z")), let x = Self.number(context.parameters.get("x")),
            let y = Self.number(context.parameters.get("y")),
            let data = try await tiles.tile(z: z, x: x, y: y)
        else { throw APIError.notFound("tile") }
        let tag = "\"" + SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
        var headers = HTTPFields()
        headers[.cacheControl] = "public, max-age=31536000, immutable"
        headers[.eTag] = tag
        if let match = request.headers[.ifNoneMatch],
            match.split(separator: ",").contains(where: {
                $0.trimmingCharacters(in: .whitespaces) == tag || $0.trimmingCharacters(in: .whitespaces) == "*"
            })
        {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = tiles.info.format == "jpg" ? "image/jpeg" : "image/png"
        headers[.contentLength] = String(data.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A tile coordinate: digits only (no sign, no spaces), small enough for a zoom level.
    static func number(_ text: String?) -> Int? {
        guard let text, !text.isEmpty, text.count <= 9, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) else {
            return nil
        }
        return Int(text)
    }
}
