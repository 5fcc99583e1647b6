/// The three image sizes made of every page.
enum Rendition: String, CaseIterable, Sendable {
    /// For projectors and large screens.
    case large
    /// For phones and tablets.
    case medium
    /// For page strips and the library.
    case thumbnail

    /// The long side of the image in pixels (`pdftoppm -scale-to`).
    var longSide: Int {
        switch self {
        case .large: 1920
        case .medium: 960
        case .thumbnail: 320
        }
    }

    /// The final file name of a page's image, e.g. `large-0001.jpg`: fixed-width numbers sort correctly.
    func fileName(page: Int) -> String {
        let digits = String(page)
        return "\(rawValue)-\(String(repeating: "0", count: max(0, 4 - digits.count)))\(digits).jpg"
    }
}
