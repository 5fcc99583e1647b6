/// The result of ingesting one PDF.
public struct IngestedDocument: Sendable {
    /// The title from the PDF's metadata, if it has one.
    public var title: String?
    /// The number of pages; equals `pages.count`.
    public var pageCount: Int
    /// The pages in order.
    public var pages: [IngestedPage]

    /// Creates a document.
    public init(title: String?, pageCount: Int, pages: [IngestedPage]) {
        self.title = title
        self.pageCount = pageCount
        self.pages = pages
    }
}
