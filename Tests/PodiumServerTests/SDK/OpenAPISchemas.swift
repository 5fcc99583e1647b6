import Foundation
import PodiumClient
import Testing

/// `Public/openapi.yaml` as a JSON value (converted once by Debian's python3-yaml: Foundation
/// reads no YAML), and a check of an encoded value against one of its schemas.
struct OpenAPISchemas: Sendable {
    let document: JSONValue

    static let shared: Result<OpenAPISchemas, any Error> = Result { try OpenAPISchemas.load() }

    static func load() throws -> OpenAPISchemas {
        let path = TestServer.repositoryRoot.appendingPathComponent("Public/openapi.yaml").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c", "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout, default=str)", path,
        ]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SchemaError("python3 could not read openapi.yaml (is python3-yaml installed?): \(message)")
        }
        return OpenAPISchemas(document: try JSONDecoder().decode(JSONValue.self, from: data))
    }

    struct SchemaError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// `#/components/schemas/<name>`.
    func schema(_ name: String) throws -> JSONValue {
        guard let schema = document["components"]?["schemas"]?[name] else { throw SchemaError("no schema \(name)") }
        return schema
    }

    /// The JSON schema of an operation's answer (`status`), or of its request body (`status` nil).
    func body(_ method: String, _ path: String, status: String? = nil) throws -> JSONValue {
        guard let operation = document["paths"]?[path]?[method.lowercased()] else {
            throw SchemaError("no operation \(method) \(path)")
        }
        let container = status.map { operation["responses"]?[$0] } ?? operation["requestBody"]
        guard let schema = container?["content"]?["application/json"]?["schema"] else {
            throw SchemaError("\(method) \(path) \(status ?? "request"): no JSON schema")
        }
        return schema
    }

    /// Follows a `$ref` (only local ones, `#/…`).
    func resolve(_ schema: JSONValue) -> JSONValue {
        guard case .string(let reference)? = schema["$ref"], reference.hasPrefix("#/") else { return schema }
        var value = document
        for part in reference.dropFirst(2).split(separator: "/") { value = value[String(part)] ?? .null }
        return resolve(value)
    }

    /// How `value` (as encoded) differs from `schema`: a field the schema lacks, a required field
    /// missing, a JSON type the schema does not allow (`null` included), a string outside an `enum`.
    func problems(_ value: JSONValue, _ schema: JSONValue, at path: String = "$") -> [String] {
        if case .string(let reference)? = schema["$ref"], resolve(schema) == .null {
            return ["\(path): \(reference) is not in the document"]
        }
        let schema = resolve(schema)
        if case .array(let parts)? = schema["allOf"] {
            return problems(value, merged(parts), at: path)
        }
        for key in ["oneOf", "anyOf"] {
            if case .array(let options)? = schema[key] {
                let all = options.map { problems(value, $0, at: path) }
                return all.contains(where: \.isEmpty) ? [] : all.min { $0.count < $1.count } ?? []
            }
        }
        var types: [String] = []
        switch schema["type"] {
        case .string(let type)?: types = [type]
        case .array(let list)?: types = list.compactMap { if case .string(let type) = $0 { type } else { nil } }
        default: break
        }
        if !types.isEmpty, !types.contains(where: { Self.kind(of: value, is: $0) }) {
            return ["\(path): \(Self.kind(value)) where the document says \(types.joined(separator: " or "))"]
        }
        switch value {
        case .object(let fields):
            var problems: [String] = []
            if case .object(let properties)? = schema["properties"] {
                for key in fields.keys.sorted() {
                    if let property = properties[key] {
                        problems += self.problems(fields[key]!, property, at: "\(path).\(key)")
                    } else if schema["additionalProperties"] == nil {
                        problems.append("\(path).\(key): not in the document")
                    }
                }
            }
            if case .array(let required)? = schema["required"] {
                for case .string(let key) in required where fields[key] == nil { problems.append("\(path).\(key): missing") }
            }
            return problems
        case .array(let items):
            guard let itemSchema = schema["items"] else { return [] }
            return items.enumerated().flatMap { index, item in problems(item, itemSchema, at: "\(path)[\(index)]") }
        case .string(let text):
            if case .array(let allowed)? = schema["enum"], !allowed.contains(.string(text)) {
                return ["\(path): \"\(text)\" is not one of \(allowed)"]
            }
            return []
        default:
            return []
        }
    }

    /// The parts of an `allOf` as one object schema.
    func merged(_ parts: [JSONValue]) -> JSONValue {
        var properties: [String: JSONValue] = [:]
        var required: [JSONValue] = []
        for part in parts.map(resolve) {
            if case .object(let more)? = part["properties"] { properties.merge(more) { first, _ in first } }
            if case .array(let more)? = part["required"] { required += more }
        }
        return .object(["type": .string("object"), "properties": .object(properties), "required": .array(required)])
    }

    static func kind(of value: JSONValue, is type: String) -> Bool {
        switch (type, value) {
        case ("integer", .number(let number)): number == number.rounded()
        default: kind(value) == type || (type == "number" && kind(value) == "integer")
        }
    }

    static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .number(let number): number == number.rounded() ? "integer" : "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
