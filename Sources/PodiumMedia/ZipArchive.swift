import Foundation

/// Writes a ZIP archive of files stored as they are (no compression: the files it is made for,
/// PNGs, are compressed already), readable by every unzip tool. Small archives only: sizes and
/// offsets are 32-bit (no ZIP64), which the callers' limits keep well within.
public enum ZipArchive {
    public struct TooLarge: Error {}

    public static func stored(_ files: [(name: String, data: Data)]) throws -> Data {
        var archive = Data()
        var central = Data()
        for file in files {
            let name = Data(file.name.utf8)
            let crc = crc32(file.data)
            guard file.data.count < Int(UInt32.max), archive.count < Int(UInt32.max) else { throw TooLarge() }
            let offset = UInt32(archive.count)
            let size = UInt32(file.data.count)
            // Local file header: version 2.0, no flags but UTF-8 names, stored, no time.
            archive.append(le32(0x0403_4b50))
            archive.append(le16(20))
            archive.append(le16(0x0800))
            archive.append(le16(0))
            archive.append(le16(0))
            archive.append(le16(0x21))  // 1980-01-01
            archive.append(le32(crc))
            archive.append(le32(size))
            archive.append(le32(size))
            archive.append(le16(UInt16(name.count)))
            archive.append(le16(0))
            archive.append(name)
            archive.append(file.data)
            // Its central directory entry.
            central.append(le32(0x0201_4b50))
            central.append(le16(20))
            central.append(le16(20))
            central.append(le16(0x0800))
            central.append(le16(0))
            central.append(le16(0))
            central.append(le16(0x21))
            central.append(le32(crc))
            central.append(le32(size))
            central.append(le32(size))
            central.append(le16(UInt16(name.count)))
            central.append(le16(0))
            central.append(le16(0))
            central.append(le16(0))
            central.append(le16(0))
            central.append(le32(0))
            central.append(le32(offset))
            central.append(name)
        }
        guard archive.count < Int(UInt32.max) else { throw TooLarge() }
        let centralOffset = UInt32(archive.count)
        archive.append(central)
        archive.append(le32(0x0605_4b50))
        archive.append(le16(0))
        archive.append(le16(0))
        archive.append(le16(UInt16(files.count)))
        archive.append(le16(UInt16(files.count)))
        archive.append(le32(UInt32(central.count)))
        archive.append(le32(centralOffset))
        archive.append(le16(0))
        return archive
    }

    static func le16(_ value: UInt16) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }
    static func le32(_ value: UInt32) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }

    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// CRC-32 (IEEE), as ZIP and PNG use it.
    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
