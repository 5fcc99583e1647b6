import Foundation

/// A point on the Earth in degrees (WGS 84, as maps and browsers' geolocation give them).
public struct GeoPoint: Sendable, Equatable, Codable {
    public var latitude: Double
    public var longitude: Double

    /// Throws ``GeoPointError`` for a latitude outside −90…90 or a longitude outside −180…180 (or
    /// anything not a finite number).
    public init(latitude: Double, longitude: Double) throws(GeoPointError) {
        guard latitude.isFinite, (-90...90).contains(latitude) else { throw GeoPointError("latitude", latitude) }
        guard longitude.isFinite, (-180...180).contains(longitude) else { throw GeoPointError("longitude", longitude) }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Reads `"lat,lon"` (the `?near=` parameter; spaces allowed after the comma).
    public init(parsing text: String) throws(GeoPointError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]) else {
            throw GeoPointError(text: text)
        }
        try self.init(latitude: latitude, longitude: longitude)
    }

    /// The mean radius of the Earth (IUGG), in metres.
    public static let earthRadius = 6_371_008.8

    /// The great-circle distance to `other` in metres (haversine: exact on a sphere, within
    /// about 0.5 % of the ellipsoid; plenty for sorting places by how near they are).
    public func distance(to other: GeoPoint) -> Double {
        let φ1 = latitude * .pi / 180
        let φ2 = other.latitude * .pi / 180
        let Δφ = (other.latitude - latitude) * .pi / 180
        let Δλ = (other.longitude - longitude) * .pi / 180
        let a = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * Self.earthRadius * asin(min(1, sqrt(a)))
    }
}

/// Coordinates that are not coordinates, with a message a person can act on.
public struct GeoPointError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    init(_ field: String, _ value: Double) {
        let range = field == "latitude" ? "-90 to 90" : "-180 to 180"
        description = "A \(field) is a number from \(range); \(value) is not."
    }

    init(text: String) {
        description = "Coordinates are written as latitude,longitude in degrees (50.0875,14.4213); '\(text.prefix(40))' is not."
    }
}

/// How a device's maps app is asked for directions to a place: a `geo:` URI (RFC 5870, which
/// Android and most desktop maps apps open) and an OpenStreetMap link (any browser).
public struct Directions: Sendable, Equatable, Codable {
    public let geo: String
    public let osm: String

    public init(to point: GeoPoint, name: String) {
        let lat = Self.degrees(point.latitude)
        let lon = Self.degrees(point.longitude)
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let label = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        // The `q` form puts a labelled pin at the point (the label in parentheses).
        geo = "geo:\(lat),\(lon)?q=\(lat),\(lon)(\(label))"
        osm = "https://www.openstreetmap.org/directions?route=%3B\(lat)%2C\(lon)#map=16/\(lat)/\(lon)"
    }

    /// Seven decimals: about a centimetre, and no float noise in the link.
    static func degrees(_ value: Double) -> String {
        var text = String(format: "%.7f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

/// Search across a place's (or a quiz's) words, as people type: case, accents and extra spaces
/// do not matter ("prazsky hrad" finds "Pražský hrad").
public struct TextSearch: Sendable {
    let words: [String]

    /// Nil for a query with no words: everything matches.
    public init?(_ query: String) {
        let words = Self.fold(query).split(whereSeparator: { $0.isWhitespace }).map(String.init)
        guard !words.isEmpty else { return nil }
        self.words = words
    }

    /// Whether every word of the query is in one of `fields`.
    public func matches(_ fields: [String]) -> Bool {
        let haystack = Self.fold(fields.joined(separator: "\n"))
        return words.allSatisfy { haystack.contains($0) }
    }

    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }
}
