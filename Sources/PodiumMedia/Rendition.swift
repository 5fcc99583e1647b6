/// The three image sizes made of every page.
enum Rendition: String, CaseIterable, Sendable {
    /// For projectors and large screens.
    case large
    /// For phones and tablets.
    case medium
    /// For page strips and the library.
    case thumbnail

    /// The long side of the image in pixels (`pdftoppm -scale-to`), for a large image whose long
    /// side is `large` (``IngestLimits/pageImageSize``, 1920 by default: 1920, 960 and 320).
    func longSide(large: Int) -> Int {
        switch self {
        case .large: large
        case .medium: max(1, large / 2)
        case .thumbnail: max(1, large / 6)
        }
    }

    /// The final file name of a page's image, e.g. `large-0001.jpg`: fixed-width numbers sort correctly.
    func fileName(page: Int) -> String {
        let digits = String(page)
        return "\(rawValue)-\(String(repeating: "0", count: max(0, 4 - digits.count)))\(digits).jpg"
    }
}
