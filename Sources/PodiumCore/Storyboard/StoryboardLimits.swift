/// The rules a storyboard's content follows; the same numbers are in `Public/app/storyboard/model.js`.
///
/// Counts of things (scenes, shots, layers, strokes, points, characters) over a limit are
/// `too_large`; a value out of range or malformed is `invalid_edit`. Characters are counted as
/// Unicode scalars (JavaScript: code points).
public enum StoryboardLimits {
    public static let scenes = 200
    /// Shots in the whole project.
    public static let shots = 2000
    public static let layersPerShot = 50
    public static let strokesPerLayer = 10_000
    public static let pointsPerStroke = 4000
    /// Dialogue, action and notes.
    public static let textLength = 5000
    /// Scene titles and layer names.
    public static let titleLength = 200
    public static let numberLength = 16
    public static let authorLength = 128
    /// Ids: 1...64 characters of `[A-Za-z0-9_-]`.
    public static let idLength = 64
    /// A copy's id (duplicateShot's newShot) leaves room for the ids derived from it.
    public static let copyIDLength = 48
    public static let durations = 0.1...600.0
    public static let widths = 0.0005...0.2
    public static let coordinates = -1.0...2.0
    public static let pressures = 0.0...1.0
    public static let opacities = 0.0...1.0
    public static let scales = 0.05...20.0
    /// Layer offsets, in shot units.
    public static let offsets = -10.0...10.0
    /// Layer rotations, radians (about 16 turns either way).
    public static let rotations = -100.0...100.0
    /// A reference image's width and height in pixels, at most.
    public static let imageSide = 16384
}

extension StoryboardLimits {
    static func isID(_ text: String) -> Bool {
        let scalars = text.unicodeScalars
        return (1...idLength).contains(scalars.count)
            && scalars.allSatisfy(isIDScalar)
    }

    private static func isIDScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
        default: false
        }
    }

    static func checkID(_ id: String, _ what: String) throws(StoryboardError) {
        guard isID(id) else { throw .invalid("\(what) id must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -.") }
    }

    static func checkLength(_ text: String, _ limit: Int, _ what: String) throws(StoryboardError) {
        guard text.unicodeScalars.count <= limit else { throw .tooLarge("\(what) has at most \(limit) characters.") }
    }

    static func checkColor(_ text: String, _ what: String) throws(StoryboardError) {
        guard Stroke.isColor(text), text.unicodeScalars.allSatisfy(\.isASCII) else {
            throw .invalid("\(what) must be a colour as #RRGGBB.")
        }
    }

    static func check(_ value: Double, in range: ClosedRange<Double>, _ what: String) throws(StoryboardError) {
        guard value.isFinite, range.contains(value) else {
            throw .invalid("\(what) must lie within \(range.lowerBound)...\(range.upperBound).")
        }
    }
}

// MARK: - Validation of whole things a client sends (also used by the server)

extension SketchStroke {
    /// Throws when the stroke breaks a rule (its id, colour, width or points).
    public func validate() throws(StoryboardError) {
        try StoryboardLimits.checkID(id, "A stroke")
        try StoryboardLimits.checkLength(author, StoryboardLimits.authorLength, "A stroke's author")
        try StoryboardLimits.checkColor(color, "A stroke's colour")
        try StoryboardLimits.check(width, in: StoryboardLimits.widths, "A stroke's width")
        guard !points.isEmpty else { throw .invalid("A stroke has at least one point.") }
        guard points.count <= StoryboardLimits.pointsPerStroke else {
            throw .tooLarge("A stroke has at most \(StoryboardLimits.pointsPerStroke) points.")
        }
        for point in points {
            guard point.count == 3, point.allSatisfy(\.isFinite), StoryboardLimits.coordinates.contains(point[0]),
                StoryboardLimits.coordinates.contains(point[1]), StoryboardLimits.pressures.contains(point[2])
            else { throw .invalid("A point is [x, y, pressure]: x and y within -1...2, pressure within 0...1.") }
        }
    }
}

extension LayerTransform {
    public func validate() throws(StoryboardError) {
        try StoryboardLimits.check(x, in: StoryboardLimits.offsets, "A layer's x offset")
        try StoryboardLimits.check(y, in: StoryboardLimits.offsets, "A layer's y offset")
        try StoryboardLimits.check(scale, in: StoryboardLimits.scales, "A layer's scale")
        try StoryboardLimits.check(rotation, in: StoryboardLimits.rotations, "A layer's rotation")
    }
}

extension LayerImage {
    /// Whether `name` is a picture blob's name: 64 lowercase hex digits and `.jpg`, `.png` or `.webp`.
    public static func isBlobName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, ["jpg", "png", "webp"].contains(parts[1]) else { return false }
        let hex = parts[0].unicodeScalars
        return hex.count == 64 && hex.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }

    public func validate() throws(StoryboardError) {
        guard Self.isBlobName(blob) else {
            throw .invalid("A reference image is a blob named by its SHA-256 and .jpg, .png or .webp.")
        }
        let sides = 1...StoryboardLimits.imageSide
        guard sides.contains(width), sides.contains(height) else {
            throw .invalid("A reference image's width and height are 1 to \(StoryboardLimits.imageSide) pixels.")
        }
    }
}

extension SketchLayer {
    /// Throws when the layer or one of its strokes breaks a rule, or two of its strokes share an id.
    public func validate() throws(StoryboardError) {
        try StoryboardLimits.checkID(id, "A layer")
        try StoryboardLimits.checkLength(name, StoryboardLimits.titleLength, "A layer's name")
        try StoryboardLimits.check(opacity, in: StoryboardLimits.opacities, "A layer's opacity")
        if let group { try StoryboardLimits.checkID(group, "A group") }
        try transform.validate()
        try image?.validate()
        guard strokes.count <= StoryboardLimits.strokesPerLayer else {
            throw .tooLarge("A layer has at most \(StoryboardLimits.strokesPerLayer) strokes.")
        }
        for stroke in strokes { try stroke.validate() }
    }
}

extension Shot {
    /// Throws when the shot, a layer or a stroke breaks a rule, or ids repeat within the shot
    /// (layer ids among its layers, stroke ids among all its strokes).
    public func validate() throws(StoryboardError) {
        try StoryboardLimits.checkID(id, "A shot")
        try StoryboardLimits.checkLength(number, StoryboardLimits.numberLength, "A shot's number")
        try StoryboardLimits.check(duration, in: StoryboardLimits.durations, "A shot's duration")
        try StoryboardLimits.checkLength(dialogue, StoryboardLimits.textLength, "Dialogue")
        try StoryboardLimits.checkLength(action, StoryboardLimits.textLength, "Action")
        try StoryboardLimits.checkLength(notes, StoryboardLimits.textLength, "Notes")
        try StoryboardLimits.checkColor(background, "A shot's background")
        guard !layers.isEmpty else { throw .invalid("A shot has at least one layer.") }
        guard layers.count <= StoryboardLimits.layersPerShot else {
            throw .tooLarge("A shot has at most \(StoryboardLimits.layersPerShot) layers.")
        }
        var layerIDs = Set<String>()
        var strokeIDs = Set<String>()
        for layer in layers {
            try layer.validate()
            guard layerIDs.insert(layer.id).inserted else { throw .duplicateID }
            for stroke in layer.strokes {
                guard strokeIDs.insert(stroke.id).inserted else { throw .duplicateID }
            }
        }
    }

    /// The ids of all its strokes.
    var strokeIDs: Set<String> { Set(layers.flatMap { $0.strokes.map(\.id) }) }
}
