import Foundation

/// The layout of the seeking thumbnails: one frame every `interval` seconds, tiled in a sprite,
/// and the WebVTT track that maps each span of the clip to its tile (`sprite.jpg#xywh=x,y,w,h`).
struct ThumbnailTrack: Equatable {
    /// At most this many tiles, however long the clip: the sprite stays one modest JPEG.
    static let maxTiles = 100
    static let tileWidth = 160
    static let columnsMax = 10

    var interval: Int
    var count: Int
    var columns: Int
    var rows: Int
    var tileWidth: Int
    var tileHeight: Int

    init(duration: Double, width: Int, height: Int) {
        interval = max(1, Int((duration / Double(Self.maxTiles)).rounded(.up)))
        count = max(1, Int((duration / Double(interval)).rounded(.up)))
        columns = min(Self.columnsMax, count)
        rows = (count + columns - 1) / columns
        tileWidth = Self.tileWidth
        let scaled = Double(Self.tileWidth) * Double(max(1, height)) / Double(max(1, width))
        tileHeight = max(2, Int((scaled / 2).rounded()) * 2)
    }

    /// The ffmpeg filter that makes the sprite from the source's frames.
    var filter: String {
        "fps=1/\(interval),scale=\(tileWidth):\(tileHeight),tile=\(columns)x\(rows)"
    }

    /// The WebVTT text; `sprite` is the sprite's URL relative to the track.
    func webVTT(sprite: String, duration: Double) -> String {
        var text = "WEBVTT\n"
        for index in 0..<count {
            let start = Double(index * interval)
            let end = min(Double((index + 1) * interval), duration)
            guard end > start else { break }
            let x = (index % columns) * tileWidth
            let y = (index / columns) * tileHeight
            text += "\n\(Self.timestamp(start)) --> \(Self.timestamp(end))\n"
            text += "\(sprite)#xywh=\(x),\(y),\(tileWidth),\(tileHeight)\n"
        }
        return text
    }

    /// `HH:MM:SS.mmm`.
    static func timestamp(_ seconds: Double) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        let hours = milliseconds / 3_600_000
        let minutes = milliseconds / 60_000 % 60
        let secs = milliseconds / 1000 % 60
        return String(format: "%02d:%02d:%02d.%03d", hours, minutes, secs, milliseconds % 1000)
    }
}
