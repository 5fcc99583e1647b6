import Foundation

/// One REST operation of `Public/openapi.yaml`: its method and path template.
///
/// Every call of the SDK names the endpoint it uses; ``Endpoint/all`` lists them, and a test
/// compares that list with the document in both directions, so the SDK cannot drift from it.
public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    public let method: String
    /// The path as the document writes it, `{name}` for a parameter.
    public let path: String

    public init(_ method: String, _ path: String) {
        self.method = method
        self.path = path
    }

    public var description: String { "\(method) \(path)" }

    /// The path with its parameters filled in (each percent-encoded as one segment).
    func resolve(_ parameters: [String: String]) throws -> String {
        var result = ""
        var rest = Substring(path)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            result += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            guard let value = parameters[name] else {
                throw PodiumTransportError(.badResponse, "\(self): no value for {\(name)}")
            }
            result += value.addingPercentEncoding(withAllowedCharacters: Self.segment) ?? value
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    static let segment: CharacterSet = {
        var set = CharacterSet.urlPathAllowed
        set.remove(charactersIn: "/?#")
        return set
    }()
}
