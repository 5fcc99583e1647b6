import Foundation

/// One page of an ingested PDF: its size, its text and its three renderings.
public struct IngestedPage: Sendable {
    /// The page number, from 1.
    public var number: Int
    /// The width of the page as displayed (crop box with `/Rotate` applied), in PDF points.
    public var width: Double
    /// The height of the page as displayed, in PDF points.
    public var height: Double
    /// The page's text as `pdftotext -layout` extracts it; empty when there is none.
    public var text: String
    /// A JPEG whose long side is ``IngestLimits/pageImageSize`` (1920 px by default).
    public var large: URL
    /// A JPEG half as large (960 px by default).
    public var medium: URL
    /// A JPEG a sixth as large (320 px by default).
    public var thumbnail: URL

    /// Creates a page.
    public init(
        number: Int, width: Double, height: Double, text: String, large: URL, medium: URL, thumbnail: URL
    ) {
        self.number = number
        self.width = width
        self.height = height
        self.text = text
        self.large = large
        self.medium = medium
        self.thumbnail = thumbnail
    }
}
