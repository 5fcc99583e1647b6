import Foundation

/// What a PDF needs to know of a JPEG to embed it as it is (`/DCTDecode`): its size and colours.
public struct JPEGInfo: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// 1 (grey) or 3 (colour).
    public var components: Int

    public init(width: Int, height: Int, components: Int) {
        self.width = width
        self.height = height
        self.components = components
    }

    /// Reads the start-of-frame marker; nil when `data` is not a JPEG a PDF can show as it is
    /// (cut off, of an unusual colour model such as CMYK, or not a JPEG at all).
    public init?(_ data: Data) {
        let bytes = [UInt8](data)
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var index = 2
        while index + 9 < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xFF {  // a fill byte before the marker
                index += 1
                continue
            }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            // SOF0 to SOF15 but DHT, JPG and DAC, which share the range: precision, height,
            // width, components.
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                let height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                let width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
                let components = Int(bytes[index + 9])
                guard bytes[index + 4] == 8, width > 0, height > 0, components == 1 || components == 3 else { return nil }
                self.init(width: width, height: height, components: components)
                return
            }
            guard length >= 2 else { return nil }
            index += 2 + length
        }
        return nil
    }
}
