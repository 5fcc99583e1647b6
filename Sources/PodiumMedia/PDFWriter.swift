import Foundation

/// Writes a hand-written PDF: numbered objects and the cross-reference table that finds them. The
/// exports' own pages (ink overlays, clip pages) are a few objects each, so no PDF library is needed.
struct PDFWriter {
    /// Object n is `objects[n - 1]`.
    private var objects: [Data] = []

    /// The number the next object added gets: pages name objects added after them.
    var nextNumber: Int { objects.count + 1 }

    /// Adds an object (a dictionary, an array) and returns its number.
    @discardableResult
    mutating func add(_ object: String) -> Int {
        objects.append(Data(object.utf8))
        return objects.count
    }

    /// Keeps a number for an object that names others added after it (a page tree and its
    /// pages); ``set(_:_:)`` fills it in.
    mutating func reserve() -> Int {
        objects.append(Data())
        return objects.count
    }

    mutating func set(_ number: Int, _ object: String) {
        objects[number - 1] = Data(object.utf8)
    }

    /// Adds a stream: `dictionary` holds its entries but `/Length`; `bytes` may be binary (a JPEG).
    @discardableResult
    mutating func add(stream bytes: Data, dictionary: String = "") -> Int {
        var object = Data("<< \(dictionary)\(dictionary.isEmpty ? "" : " ")/Length \(bytes.count) >>\nstream\n".utf8)
        object.append(bytes)
        object.append(Data("\nendstream".utf8))
        objects.append(object)
        return objects.count
    }

    /// The file, with `root` as its catalog.
    func data(root: Int) -> Data {
        var output = Data("%PDF-1.7\n".utf8)
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(output.count)
            output.append(Data("\(index + 1) 0 obj\n".utf8))
            output.append(object)
            output.append(Data("\nendobj\n".utf8))
        }
        let xref = output.count
        var table = "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { table += String(format: "%010d 00000 n \n", offset) }
        table += "trailer\n<< /Size \(objects.count + 1) /Root \(root) 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        output.append(Data(table.utf8))
        return output
    }

    /// A number as PDF content writes it.
    static func number(_ value: Double) -> String { String(format: "%.3f", value) }
}
