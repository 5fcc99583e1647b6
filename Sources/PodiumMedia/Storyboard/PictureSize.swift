import Foundation

/// The kind and size of a JPEG, PNG or WebP picture, read from its header bytes (the picture is
/// not decoded): what the storyboard's reference images are checked with.
public struct PictureSize: Sendable, Equatable {
    /// `jpg`, `png` or `webp`.
    public var kind: String
    public var width: Int
    public var height: Int

    public init(kind: String, width: Int, height: Int) {
        self.kind = kind
        self.width = width
        self.height = height
    }

    /// `jpg`, `png` or `webp` by the magic numbers at the start; nil for anything else.
    public static func kind(of head: Data) -> String? {
        let bytes = [UInt8](head.prefix(16))
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpg" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "png" }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return "webp"
        }
        return nil
    }

    /// The picture's kind and size; nil when it is none of the three or its header cannot be read.
    public static func read(_ data: Data) -> PictureSize? {
        let bytes = [UInt8](data)
        guard let kind = kind(of: data) else { return nil }
        let size: (Int, Int)? =
            switch kind {
            case "png": png(bytes)
            case "jpg": jpeg(bytes)
            default: webp(bytes)
            }
        guard let (width, height) = size, width > 0, height > 0 else { return nil }
        return PictureSize(kind: kind, width: width, height: height)
    }

    private static func bigEndian(_ b: [UInt8], _ at: Int, _ count: Int) -> Int {
        (at..<at + count).reduce(0) { $0 << 8 | Int(b[$1]) }
    }

    private static func littleEndian(_ b: [UInt8], _ at: Int, _ count: Int) -> Int {
        (at..<at + count).reversed().reduce(0) { $0 << 8 | Int(b[$1]) }
    }

    /// The IHDR chunk comes first: width and height at bytes 16 and 20.
    private static func png(_ b: [UInt8]) -> (Int, Int)? {
        guard b.count >= 24, Array(b[12..<16]) == Array("IHDR".utf8) else { return nil }
        return (bigEndian(b, 16, 4), bigEndian(b, 20, 4))
    }

    /// The first start-of-frame segment (SOF0…SOF15 but DHT, JPG and DAC) holds the size; an
    /// EXIF orientation of a quarter turn (5 to 8, a phone held upright) swaps it, as browsers
    /// show the picture turned.
    private static func jpeg(_ b: [UInt8]) -> (Int, Int)? {
        var at = 2
        var turned = false
        while at + 3 < b.count {
            guard b[at] == 0xFF else { return nil }
            let marker = b[at + 1]
            if marker == 0xFF {  // fill byte
                at += 1
                continue
            }
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {  // no length
                at += 2
                continue
            }
            if marker == 0xD9 || marker == 0xDA { return nil }  // end, or the scan before any frame
            let length = bigEndian(b, at + 2, 2)
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard at + 9 <= b.count else { return nil }
                let (width, height) = (bigEndian(b, at + 7, 2), bigEndian(b, at + 5, 2))
                return turned ? (height, width) : (width, height)
            }
            if marker == 0xE1, let orientation = exifOrientation(b, from: at + 4, to: min(b.count, at + 2 + length)) {
                turned = (5...8).contains(orientation)
            }
            guard length >= 2 else { return nil }
            at += 2 + length
        }
        return nil
    }

    /// The orientation tag (0x0112) of an APP1 segment's EXIF block in `b[start..<end]`, if any.
    private static func exifOrientation(_ b: [UInt8], from start: Int, to end: Int) -> Int? {
        guard end - start > 14, Array(b[start..<start + 6]) == Array("Exif".utf8) + [0, 0] else { return nil }
        let tiff = start + 6
        let little: Bool
        switch (b[tiff], b[tiff + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func number(_ at: Int, _ count: Int) -> Int? {
            guard at >= tiff, at + count <= end else { return nil }
            return little ? littleEndian(b, at, count) : bigEndian(b, at, count)
        }
        guard let ifd = number(tiff + 4, 4), let entries = number(tiff + ifd, 2) else { return nil }
        for index in 0..<min(entries, 256) {
            let entry = tiff + ifd + 2 + index * 12
            guard let tag = number(entry, 2) else { return nil }
            if tag == 0x0112 { return number(entry + 8, 2) }
        }
        return nil
    }

    /// The first chunk: lossy `VP8 `, lossless `VP8L` or extended `VP8X`.
    private static func webp(_ b: [UInt8]) -> (Int, Int)? {
        guard b.count >= 30 else { return nil }
        switch String(decoding: b[12..<16], as: UTF8.self) {
        case "VP8 ":
            guard b[23] == 0x9D, b[24] == 0x01, b[25] == 0x2A else { return nil }
            return (littleEndian(b, 26, 2) & 0x3FFF, littleEndian(b, 28, 2) & 0x3FFF)
        case "VP8L":
            guard b[20] == 0x2F else { return nil }
            let bits = littleEndian(b, 21, 4)
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":
            return (littleEndian(b, 24, 3) + 1, littleEndian(b, 27, 3) + 1)
        default:
            return nil
        }
    }
}
