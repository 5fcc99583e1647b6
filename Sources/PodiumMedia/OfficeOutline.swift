import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// What a slide deck says besides its pictures: each slide's title (the deck's outline) and its
/// speaker notes, read from the XML inside a PPTX or ODP. Slides are in presentation order, which
/// is the order of the PDF pages LibreOffice makes (hidden slides aside: see ``OfficeConverter``).
public struct SlideOutline: Sendable, Equatable {
    public struct Slide: Sendable, Equatable {
        /// The text of the slide's title placeholder, if it has one.
        public var title: String?
        /// The speaker notes, paragraphs separated by newlines; empty when there are none.
        public var notes: String

        public init(title: String?, notes: String) {
            self.title = title
            self.notes = notes
        }
    }

    public var slides: [Slide]

    public init(slides: [Slide]) { self.slides = slides }

    /// The longest note kept per slide, and the longest title.
    public static let maxNotes = 10_000
    public static let maxTitle = 200

    /// Reads a PPTX from its parts, named as in the ZIP (`ppt/presentation.xml`, ...): the slide
    /// order from the presentation's slide list and its relationships, each slide's title
    /// placeholder (`title` or `ctrTitle`), and the body placeholder of the notes slide its own
    /// relationships name.
    public static func pptx(parts: [String: Data]) -> SlideOutline {
        guard let presentation = parts["ppt/presentation.xml"] else { return SlideOutline(slides: []) }
        let order = XMLScan.attributes(of: "p:sldId", in: presentation).compactMap { $0["r:id"] }
        let relationships = parts["ppt/_rels/presentation.xml.rels"].map(Self.relationships) ?? [:]
        var slides: [Slide] = []
        for id in order {
            guard let target = relationships[id] else { continue }
            let path = resolve(target, from: "ppt/")
            guard let xml = parts[path] else {
                slides.append(Slide(title: nil, notes: ""))
                continue
            }
            // A hidden slide is not exported to the PDF, so it has no page.
            if XMLScan.attributes(of: "p:sld", in: xml).first?["show"] == "0" { continue }
            let title = PPTXShapes.text(in: xml, placeholders: ["title", "ctrTitle"]).first
            let slideRelsPath =
                (path as NSString).deletingLastPathComponent + "/_rels/"
                + (path as NSString).lastPathComponent + ".rels"
            let slideRels = parts[slideRelsPath].map(Self.relationshipsByType) ?? []
            var notes = ""
            if let notesTarget = slideRels.first(where: { $0.type.hasSuffix("/notesSlide") })?.target {
                let notesPath = resolve(notesTarget, from: (path as NSString).deletingLastPathComponent + "/")
                if let notesXML = parts[notesPath] {
                    notes = PPTXShapes.text(in: notesXML, placeholders: ["body"]).joined(separator: "\n")
                }
            }
            slides.append(Slide(title: clean(title, limit: maxTitle), notes: clean(notes, limit: maxNotes) ?? ""))
        }
        return SlideOutline(slides: slides)
    }

    /// Reads an ODP's `content.xml`: each `draw:page`'s `title` frame and its `presentation:notes`.
    public static func odp(content: Data) -> SlideOutline {
        let reader = ODPReader()
        let parser = XMLParser(data: content)
        parser.shouldProcessNamespaces = false
        parser.delegate = reader
        _ = parser.parse()
        return SlideOutline(
            slides: reader.slides.map {
                Slide(title: clean($0.title, limit: maxTitle), notes: clean($0.notes, limit: maxNotes) ?? "")
            })
    }

    /// The parts ``pptx(parts:)`` reads, as `unzip` patterns.
    public static let pptxParts = [
        "ppt/presentation.xml", "ppt/_rels/presentation.xml.rels", "ppt/slides/*.xml", "ppt/slides/_rels/*.rels",
        "ppt/notesSlides/*.xml",
    ]

    static func clean(_ text: String?, limit: Int) -> String? {
        guard let text else { return nil }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        let joined = lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        return joined.isEmpty ? nil : String(joined.prefix(limit))
    }

    /// `../notesSlides/notesSlide1.xml` from `ppt/slides/` is `ppt/notesSlides/notesSlide1.xml`.
    static func resolve(_ target: String, from base: String) -> String {
        if target.hasPrefix("/") { return String(target.dropFirst()) }
        var parts = base.split(separator: "/").map(String.init)
        for piece in target.split(separator: "/") {
            if piece == ".." {
                if !parts.isEmpty { parts.removeLast() }
            } else if piece != "." {
                parts.append(String(piece))
            }
        }
        return parts.joined(separator: "/")
    }

    static func relationships(_ xml: Data) -> [String: String] {
        var result: [String: String] = [:]
        for attributes in XMLScan.attributes(of: "Relationship", in: xml) {
            if let id = attributes["Id"], let target = attributes["Target"] { result[id] = target }
        }
        return result
    }

    static func relationshipsByType(_ xml: Data) -> [(type: String, target: String)] {
        XMLScan.attributes(of: "Relationship", in: xml).compactMap { attributes in
            guard let type = attributes["Type"], let target = attributes["Target"] else { return nil }
            return (type, target)
        }
    }
}

/// Collects the attributes of every element with a given (prefixed) name.
private final class XMLScan: NSObject, XMLParserDelegate {
    let name: String
    var found: [[String: String]] = []

    init(name: String) { self.name = name }

    static func attributes(of name: String, in xml: Data) -> [[String: String]] {
        let scan = XMLScan(name: name)
        let parser = XMLParser(data: xml)
        parser.delegate = scan
        _ = parser.parse()
        return scan.found
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if elementName == name { found.append(attributes) }
    }
}

/// The text of the shapes (`p:sp`) of a slide or notes slide whose placeholder (`p:ph`) has one
/// of the given types (a `p:ph` without a type is the body placeholder), paragraphs (`a:p`) on
/// lines of their own, runs (`a:t`) and breaks (`a:br`) as written.
private final class PPTXShapes: NSObject, XMLParserDelegate {
    let placeholders: Set<String>
    var results: [String] = []
    private var depth = 0  // nesting of p:sp
    private var matched = false
    private var paragraphs: [String] = []
    private var paragraph = ""
    private var inText = false

    init(placeholders: Set<String>) { self.placeholders = placeholders }

    static func text(in xml: Data, placeholders: Set<String>) -> [String] {
        let reader = PPTXShapes(placeholders: placeholders)
        let parser = XMLParser(data: xml)
        parser.delegate = reader
        _ = parser.parse()
        return reader.results.filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        switch elementName {
        case "p:sp":
            depth += 1
            if depth == 1 {
                matched = false
                paragraphs = []
            }
        case "p:ph" where depth > 0:
            matched = placeholders.contains(attributes["type"] ?? "body")
        case "a:p" where depth > 0:
            paragraph = ""
        case "a:t" where depth > 0:
            inText = true
        case "a:br" where depth > 0:
            paragraph += "\n"
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if inText { paragraph += string }
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        switch elementName {
        case "a:t": inText = false
        case "a:p" where depth > 0: paragraphs.append(paragraph)
        case "p:sp":
            if depth == 1, matched { results.append(paragraphs.joined(separator: "\n")) }
            depth = max(0, depth - 1)
        default: break
        }
    }
}

/// Walks an ODP's content: pages, their title frames and their notes.
private final class ODPReader: NSObject, XMLParserDelegate {
    struct Page {
        var title: String?
        var notes = ""
    }

    var slides: [Page] = []
    private var inPage = false
    private var inNotes = false
    /// The presentation:class of the frame being read, at its depth.
    private var frameClass: String?
    private var frameDepth = 0
    private var depth = 0
    private var paragraphs: [String] = []
    private var paragraph: String?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        depth += 1
        switch elementName {
        case "draw:page":
            inPage = true
            slides.append(Page())
        case "presentation:notes" where inPage:
            inNotes = true
        case "draw:frame" where inPage && frameClass == nil:
            if let kind = attributes["presentation:class"], kind == "title" || kind == "notes" {
                frameClass = kind
                frameDepth = depth
                paragraphs = []
            }
        case "text:p", "text:h":
            if frameClass != nil { paragraph = "" }
        case "text:line-break":
            paragraph? += "\n"
        case "text:s":
            paragraph? += String(repeating: " ", count: Int(attributes["text:c"] ?? "1") ?? 1)
        case "text:tab":
            paragraph? += "\t"
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        paragraph? += string
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        switch elementName {
        case "text:p", "text:h":
            if let text = paragraph, frameClass != nil { paragraphs.append(text) }
            paragraph = nil
        case "draw:frame" where frameClass != nil && depth == frameDepth:
            let text = paragraphs.joined(separator: "\n")
            if frameClass == "title", !inNotes, slides.last?.title == nil {
                slides[slides.count - 1].title = text
            } else if frameClass == "notes", inNotes, !slides.isEmpty {
                let current = slides[slides.count - 1].notes
                slides[slides.count - 1].notes = current.isEmpty ? text : current + "\n" + text
            }
            frameClass = nil
        case "presentation:notes": inNotes = false
        case "draw:page": inPage = false
        default: break
        }
        depth -= 1
    }
}
