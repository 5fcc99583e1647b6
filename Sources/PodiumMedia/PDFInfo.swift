/// What `pdfinfo -f 1 -l N` says about a document: its title, page count and displayed page sizes.
struct PDFInfo: Sendable, Equatable {
    /// A page's size as displayed, in PDF points.
    struct PageSize: Sendable, Equatable {
        var width: Double
        var height: Double
    }

    var title: String?
    var pageCount: Int
    /// Displayed sizes by page number (crop box, rotated by the page's `/Rotate`).
    var pageSizes: [Int: PageSize]

    /// Parses `pdfinfo` output; returns `nil` when there is no `Pages:` line, i.e. nothing usable.
    ///
    /// Per-page lines look like `Page    1 size:  595.276 x 841.89 pts (A4)` and `Page    1 rot:   90`.
    /// Viewers show a page rotated by 90 or 270 degrees on its side, so those sizes are swapped here:
    /// positions on the page are normalised to what people see.
    static func parse(_ output: String) -> PDFInfo? {
        var title: String?
        var pageCount: Int?
        var raw: [Int: PageSize] = [:]
        var rotation: [Int: Int] = [:]
        for line in output.split(whereSeparator: \.isNewline) {
            if title == nil, line.hasPrefix("Title:") {
                let value = line.dropFirst("Title:".count).trimmingWhitespace()
                title = value.isEmpty ? nil : value
            } else if line.hasPrefix("Pages:") {
                pageCount = Int(line.dropFirst("Pages:".count).trimmingWhitespace())
            } else if line.hasPrefix("Page ") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count >= 4, let number = Int(fields[1]) else { continue }
                if fields[2] == "size:", fields.count >= 6, fields[4] == "x",
                    let width = Double(fields[3]), let height = Double(fields[5]), width > 0, height > 0
                {
                    raw[number] = PageSize(width: width, height: height)
                } else if fields[2] == "rot:", let degrees = Int(fields[3]) {
                    rotation[number] = degrees
                }
            }
        }
        guard let pageCount else { return nil }
        var sizes: [Int: PageSize] = [:]
        for (number, size) in raw {
            let degrees = ((rotation[number] ?? 0) % 360 + 360) % 360
            sizes[number] = degrees == 90 || degrees == 270 ? PageSize(width: size.height, height: size.width) : size
        }
        return PDFInfo(title: title, pageCount: pageCount, pageSizes: sizes)
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
