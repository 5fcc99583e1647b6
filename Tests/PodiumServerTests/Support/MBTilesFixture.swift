import Foundation
import SQLKit
import SQLiteKit

/// A small MBTiles file for the tile tests: zoom 0 and 1, each tile's bytes its own TMS
/// address as text (`z/column/row`), and the metadata the basemap has.
enum MBTilesFixture {
    static func write(to path: String) async throws {
        let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: TestServer.logger())
        do {
            let db = connection.sql()
            try await db.raw("CREATE TABLE metadata (name text, value text)").run()
            try await db.raw("CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob)")
                .run()
            for (name, value) in [
                ("format", "png"), ("minzoom", "0"), ("maxzoom", "1"), ("attribution", "© OpenStreetMap contributors"),
            ] {
                try await db.insert(into: "metadata").columns("name", "value").values(SQLBind(name), SQLBind(value)).run()
            }
            for z in 0...1 {
                for x in 0..<(1 << z) {
                    for y in 0..<(1 << z) {
                        try await db.insert(into: "tiles").columns("zoom_level", "tile_column", "tile_row", "tile_data")
                            .values(SQLBind(z), SQLBind(x), SQLBind(y), SQLBind(Data("\(z)/\(x)/\(y)".utf8))).run()
                    }
                }
            }
            try await connection.close().get()
        } catch {
            try? await connection.close().get()
            throw error
        }
    }
}
