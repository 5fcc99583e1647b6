import Foundation

/// The central directory of a ZIP file (Office Open XML, OpenDocument, Keynote and image sets
/// are all ZIP containers): entry names and their declared sizes, read without decompressing
/// anything. Enough to tell the formats apart and to refuse a zip bomb before any tool expands it.
public struct OfficeZip: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var name: String
        /// 0 stored, 8 deflated.
        public var method: UInt16
        /// General-purpose flags; bit 0 is "encrypted" (ZIP's own encryption).
        public var flags: UInt16
        public var compressedSize: UInt64
        public var uncompressedSize: UInt64
        /// Where the entry's local header starts.
        public var localHeaderOffset: UInt64

        public var isDirectory: Bool { name.hasSuffix("/") }
    }

    public var entries: [Entry]

    /// The sum of the declared sizes once expanded.
    public var expandedBytes: UInt64 { entries.reduce(0) { $0 &+ $1.uncompressedSize } }

    public func entry(_ name: String) -> Entry? { entries.first { $0.name == name } }

    /// At most this many entries are read: a real deck has hundreds, a hostile file millions.
    public static let maxEntries = 100_000

    /// Reads the central directory of the ZIP file at `url`; nil when it is not a readable ZIP.
    public static func read(_ url: URL) -> OfficeZip? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size >= 22 else { return nil }
        // The end-of-central-directory record is in the last 22 bytes plus a comment of at most 64 KiB.
        let tailLength = min(size, 22 + 65_535 + 20)
        guard (try? handle.seek(toOffset: size - tailLength)) != nil,
            let tail = try? handle.read(upToCount: Int(tailLength))
        else { return nil }
        let bytes = [UInt8](tail)
        guard let eocd = lastIndex(of: [0x50, 0x4B, 0x05, 0x06], in: bytes), eocd + 22 <= bytes.count else { return nil }
        var count = UInt64(le16(bytes, eocd + 10))
        var directorySize = UInt64(le32(bytes, eocd + 12))
        var directoryOffset = UInt64(le32(bytes, eocd + 16))
        // ZIP64: the locator sits just before the record and points at the ZIP64 record.
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            let locator = eocd - 20
            guard locator >= 0, le32(bytes, locator) == 0x0706_4b50 else { return nil }
            let recordOffset = le64(bytes, locator + 8)
            guard recordOffset < size, (try? handle.seek(toOffset: recordOffset)) != nil,
                let record = try? handle.read(upToCount: 56), record.count == 56
            else { return nil }
            let r = [UInt8](record)
            guard le32(r, 0) == 0x0606_4b50 else { return nil }
            count = le64(r, 32)
            directorySize = le64(r, 40)
            directoryOffset = le64(r, 48)
        }
        guard count <= UInt64(maxEntries), directoryOffset < size, directorySize <= size - directoryOffset,
            directorySize <= 64 * 1024 * 1024,
            (try? handle.seek(toOffset: directoryOffset)) != nil,
            let directory = try? handle.read(upToCount: Int(directorySize))
        else { return nil }
        return parse(directory: [UInt8](directory), count: Int(count))
    }

    /// Parses `count` central-directory records.
    static func parse(directory d: [UInt8], count: Int) -> OfficeZip? {
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        var index = 0
        for _ in 0..<count {
            guard index + 46 <= d.count, le32(d, index) == 0x0201_4b50 else { return nil }
            let flags = le16(d, index + 8)
            let method = le16(d, index + 10)
            var compressed = UInt64(le32(d, index + 20))
            var uncompressed = UInt64(le32(d, index + 24))
            let nameLength = Int(le16(d, index + 28))
            let extraLength = Int(le16(d, index + 30))
            let commentLength = Int(le16(d, index + 32))
            var offset = UInt64(le32(d, index + 42))
            let nameStart = index + 46
            let extraStart = nameStart + nameLength
            let next = extraStart + extraLength + commentLength
            guard next <= d.count else { return nil }
            let name = String(decoding: d[nameStart..<extraStart], as: UTF8.self)
            // The ZIP64 extra field holds, in order, whichever of the three were 0xFFFFFFFF.
            var extra = extraStart
            while extra + 4 <= extraStart + extraLength {
                let id = le16(d, extra)
                let length = Int(le16(d, extra + 2))
                if id == 0x0001 {
                    var field = extra + 4
                    if uncompressed == 0xFFFF_FFFF, field + 8 <= d.count {
                        uncompressed = le64(d, field)
                        field += 8
                    }
                    if compressed == 0xFFFF_FFFF, field + 8 <= d.count {
                        compressed = le64(d, field)
                        field += 8
                    }
                    if offset == 0xFFFF_FFFF, field + 8 <= d.count { offset = le64(d, field) }
                }
                extra += 4 + length
            }
            entries.append(
                Entry(
                    name: name, method: method, flags: flags, compressedSize: compressed, uncompressedSize: uncompressed,
                    localHeaderOffset: offset))
            index = next
        }
        return OfficeZip(entries: entries)
    }

    /// The bytes of a stored (uncompressed) entry, such as OpenDocument's `mimetype`; nil when the
    /// entry is compressed, larger than `limit`, or cannot be read.
    public static func storedContent(of entry: Entry, in url: URL, limit: Int = 256) -> Data? {
        guard entry.method == 0, entry.uncompressedSize <= UInt64(limit),
            let handle = try? FileHandle(forReadingFrom: url)
        else { return nil }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: entry.localHeaderOffset)) != nil,
            let header = try? handle.read(upToCount: 30), header.count == 30
        else { return nil }
        let h = [UInt8](header)
        guard le32(h, 0) == 0x0403_4b50 else { return nil }
        let skip = UInt64(le16(h, 26)) + UInt64(le16(h, 28))
        guard (try? handle.seek(toOffset: entry.localHeaderOffset + 30 + skip)) != nil,
            let data = try? handle.read(upToCount: Int(entry.uncompressedSize))
        else { return nil }
        return data
    }

    private static func lastIndex(of pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        var index = bytes.count - pattern.count
        while index >= 0 {
            if bytes[index] == pattern[0], bytes[index..<(index + pattern.count)].elementsEqual(pattern) { return index }
            index -= 1
        }
        return nil
    }

    static func le16(_ b: [UInt8], _ i: Int) -> UInt16 {
        guard i >= 0, i + 2 <= b.count else { return 0 }
        return UInt16(b[i]) | UInt16(b[i + 1]) << 8
    }

    static func le32(_ b: [UInt8], _ i: Int) -> UInt32 {
        guard i >= 0, i + 4 <= b.count else { return 0 }
        return UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }

    static func le64(_ b: [UInt8], _ i: Int) -> UInt64 {
        UInt64(le32(b, i)) | UInt64(le32(b, i + 4)) << 32
    }
}
