import Foundation

/// What an uploaded deck is, told by its bytes alone (never by its name or the content type the
/// browser claims): a PDF, an Office or Keynote document LibreOffice converts, an image, or a
/// ZIP of images.
public enum DeckFormat: String, Sendable, Codable, CaseIterable {
    case pdf
    case pptx, docx, odp, odt, key
    /// OLE2 compound files: PowerPoint 97-2003 and Word 97-2003.
    case ppt, doc
    /// An Office Open XML file encrypted with a password (OLE2 holding an `EncryptedPackage`).
    case encryptedOffice = "encrypted-office"
    case png, jpeg, webp
    /// A ZIP whose files are images: one page per image.
    case imageSet = "images"

    /// Converted to PDF by LibreOffice before the PDF ingest.
    public var isOffice: Bool { [.pptx, .docx, .odp, .odt, .key, .ppt, .doc, .encryptedOffice].contains(self) }
    /// One image, or a set of them: pages made from images.
    public var isImage: Bool { [.png, .jpeg, .webp, .imageSet].contains(self) }
    /// A slide deck, whose speaker notes and slide titles are read.
    public var hasSlides: Bool { [.pptx, .odp].contains(self) }

    /// The extension LibreOffice and the blob store are given (LibreOffice picks its import
    /// filter by content, but a fitting name spares it the guess).
    public var fileExtension: String {
        switch self {
        case .encryptedOffice: return "docx"
        case .imageSet: return "zip"
        case .jpeg: return "jpg"
        default: return rawValue
        }
    }

    /// The types the upload accepts, for messages and the API description.
    public static let acceptedDescription =
        "PDF, PowerPoint (.pptx, .ppt), Keynote (.key), OpenDocument (.odp, .odt), Word (.docx, .doc), "
        + "PNG, JPEG and WebP images, or a ZIP of images"

    /// Sniffs the file at `url`; nil when it is none of the accepted types.
    public static func sniff(_ url: URL) -> DeckFormat? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        let prefix = (try? handle.read(upToCount: 1024)) ?? Data()
        try? handle.close()
        let bytes = [UInt8](prefix)
        if let simple = sniff(prefix: bytes) { return simple }
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) || bytes.starts(with: [0x50, 0x4B, 0x05, 0x06]) {
            guard let zip = OfficeZip.read(url) else { return nil }
            let mimetype = zip.entry("mimetype").flatMap { OfficeZip.storedContent(of: $0, in: url) }
            return sniff(zip: zip, mimetype: mimetype.map { String(decoding: $0, as: UTF8.self) })
        }
        if bytes.starts(with: oleMagic) { return sniffOLE(url) }
        return nil
    }

    /// The formats told by their first bytes: PDF, PNG, JPEG, WebP.
    public static func sniff(prefix bytes: [UInt8]) -> DeckFormat? {
        if PDFIngester.looksLikePDF(bytes) { return .pdf }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), bytes[8..<12].elementsEqual(Array("WEBP".utf8)) {
            return .webp
        }
        return nil
    }

    /// A ZIP container by what it holds.
    public static func sniff(zip: OfficeZip, mimetype: String?) -> DeckFormat? {
        let names = Set(zip.entries.map(\.name))
        if names.contains("ppt/presentation.xml") { return .pptx }
        if names.contains("word/document.xml") { return .docx }
        if let mimetype = mimetype?.trimmingCharacters(in: .whitespacesAndNewlines) {
            switch mimetype {
            case "application/vnd.oasis.opendocument.presentation": return .odp
            case "application/vnd.oasis.opendocument.text": return .odt
            default: break
            }
        }
        // Keynote 6 and later (iWork '13): protobuf archives in Index.zip or Index/*.iwa;
        // Keynote 5 and earlier: index.apxl.
        if names.contains("Index.zip") || names.contains("Index/Document.iwa")
            || names.contains(where: { $0.hasSuffix(".key/Index.zip") }) || names.contains("index.apxl")
        {
            return .key
        }
        let files = zip.entries.filter { !$0.isDirectory && !isJunk($0.name) }
        if !files.isEmpty, files.allSatisfy({ imageName($0.name) }) { return .imageSet }
        return nil
    }

    /// Files a ZIP made on a Mac or Windows carries besides the images.
    static func isJunk(_ name: String) -> Bool {
        let base = (name as NSString).lastPathComponent
        return name.hasPrefix("__MACOSX/") || base.hasPrefix(".") || base == "Thumbs.db" || base == "desktop.ini"
    }

    /// The names a ZIP of images may hold; each image is then sniffed by content when it is read.
    static func imageName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return [".png", ".jpg", ".jpeg", ".webp"].contains { lower.hasSuffix($0) }
    }

    static let oleMagic: [UInt8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]

    /// An OLE2 compound file by the names of its streams (UTF-16 in its directory sectors):
    /// `PowerPoint Document`, `WordDocument`, or `EncryptedPackage` (a password-protected
    /// PPTX or DOCX). Spreadsheets and anything else are not decks.
    static func sniffOLE(_ url: URL) -> DeckFormat? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        let patterns: [(DeckFormat, [UInt8])] = [
            (.encryptedOffice, utf16("EncryptedPackage")), (.ppt, utf16("PowerPoint Document")),
            (.doc, utf16("WordDocument")),
        ]
        var found: Set<DeckFormat> = []
        var carry: [UInt8] = []
        // Read in chunks; a name split across two chunks is caught by the carried tail.
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            let bytes = carry + [UInt8](chunk)
            for (format, pattern) in patterns where !found.contains(format) && contains(bytes, pattern) {
                found.insert(format)
            }
            carry = Array(bytes.suffix(64))
        }
        for format in [DeckFormat.encryptedOffice, .ppt, .doc] where found.contains(format) { return format }
        return nil
    }

    static func utf16(_ string: String) -> [UInt8] { string.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }

    static func contains(_ bytes: [UInt8], _ pattern: [UInt8]) -> Bool {
        guard bytes.count >= pattern.count, let first = pattern.first else { return false }
        var index = 0
        let last = bytes.count - pattern.count
        while index <= last {
            if bytes[index] == first, bytes[index..<(index + pattern.count)].elementsEqual(pattern) { return true }
            index += 1
        }
        return false
    }
}
