/// Splits `pdftotext` output into the text of each page.
enum PageText {
    /// Splits on the form feed that `pdftotext` writes after every page.
    ///
    /// Trailing spaces on each line and blank lines around the page are dropped; the layout within the
    /// page (indentation, columns) is kept. Pages with no text, or missing because the output was cut
    /// short, get an empty string, so the result always has `pageCount` elements.
    static func split(_ output: String, pageCount: Int) -> [String] {
        let pages = output.split(separator: "\u{0C}", omittingEmptySubsequences: false)
        return (0..<max(0, pageCount)).map { index in
            index < pages.count ? tidy(pages[index]) : ""
        }
    }

    private static func tidy(_ page: Substring) -> String {
        var lines = page.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            String(line.reversed().drop(while: \.isWhitespace).reversed())
        }
        while lines.first?.isEmpty == true { lines.removeFirst() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}
