import Foundation

extension Endpoint {
    public static let storyboards = Endpoint("GET", "/api/v1/storyboards")
    public static let createStoryboard = Endpoint("POST", "/api/v1/storyboards")
    public static let storyboard = Endpoint("GET", "/api/v1/storyboards/{id}")
    public static let updateStoryboard = Endpoint("PATCH", "/api/v1/storyboards/{id}")
    public static let deleteStoryboard = Endpoint("DELETE", "/api/v1/storyboards/{id}")
    public static let storyboardEditors = Endpoint("GET", "/api/v1/storyboards/{id}/editors")
    public static let inviteStoryboardEditor = Endpoint("POST", "/api/v1/storyboards/{id}/editors")
    public static let removeStoryboardEditor = Endpoint("DELETE", "/api/v1/storyboards/{id}/editors/{userId}")
    public static let storyboardExports = Endpoint("GET", "/api/v1/storyboards/{id}/exports")
    public static let createStoryboardExport = Endpoint("POST", "/api/v1/storyboards/{id}/exports")
    public static let storyboardExport = Endpoint("GET", "/api/v1/storyboards/{id}/exports/{export}")
    public static let storyboardExportFile = Endpoint("GET", "/api/v1/storyboards/{id}/exports/{export}/file")
    public static let presentStoryboard = Endpoint("POST", "/api/v1/storyboards/{id}/present")
    public static let shotVersions = Endpoint("GET", "/api/v1/storyboards/{id}/shots/{shot}/versions")
    public static let shotVersion = Endpoint("GET", "/api/v1/storyboards/{id}/shots/{shot}/versions/{seq}")
    /// The storyboard editing socket (docs/protocol.md, "The storyboard socket").
    public static let storyboardLive = Endpoint("GET", "/api/v1/storyboards/{id}/live")
}

/// Storyboards: the project and its content pass through as ``JSONValue`` (the content's model is
/// `PodiumCore.Storyboard`; decode it with `JSONValue.decode(as:)`).
extension PodiumClient {
    public func storyboards(folderId: String? = nil) async throws -> JSONValue {
        try await callJSON(.storyboards, query: ["folderId": folderId])
    }

    public func createStoryboard(title: String, aspectRatio: String? = nil, folderId: String? = nil) async throws -> JSONValue {
        var fields: [String: JSONValue] = ["title": .string(title)]
        if let aspectRatio { fields["aspectRatio"] = .string(aspectRatio) }
        if let folderId { fields["folderId"] = .string(folderId) }
        return try await callJSON(.createStoryboard, body: .object(fields))
    }

    public func storyboard(id: String) async throws -> JSONValue { try await callJSON(.storyboard, ["id": id]) }

    public func updateStoryboard(id: String, _ fields: JSONValue) async throws -> JSONValue {
        try await callJSON(.updateStoryboard, ["id": id], body: fields)
    }

    public func deleteStoryboard(id: String) async throws { _ = try await callJSON(.deleteStoryboard, ["id": id]) }

    public func storyboardEditors(id: String) async throws -> JSONValue { try await callJSON(.storyboardEditors, ["id": id]) }

    public func inviteStoryboardEditor(id: String, email: String) async throws -> JSONValue {
        try await callJSON(.inviteStoryboardEditor, ["id": id], body: ["email": .string(email)])
    }

    public func removeStoryboardEditor(id: String, userId: String) async throws {
        _ = try await callJSON(.removeStoryboardEditor, ["id": id, "userId": userId])
    }

    public func storyboardExports(id: String) async throws -> JSONValue { try await callJSON(.storyboardExports, ["id": id]) }

    /// Starts an export: `format` `sheet`, `pdf`, `png` or `animatic`; poll it until ready.
    public func exportStoryboard(id: String, format: String, layout: Int? = nil) async throws -> JSONValue {
        var fields: [String: JSONValue] = ["format": .string(format)]
        if let layout { fields["layout"] = .number(Double(layout)) }
        return try await callJSON(.createStoryboardExport, ["id": id], body: .object(fields))
    }

    public func storyboardExport(id: String, export: String) async throws -> JSONValue {
        try await callJSON(.storyboardExport, ["id": id, "export": export])
    }

    /// Polls an export until it is `ready` (returned) or `failed` (thrown as ``PodiumError``).
    public func waitForStoryboardExport(id: String, export: String, pollEvery interval: Duration = .milliseconds(250))
        async throws -> JSONValue
    {
        while true {
            let current = try await storyboardExport(id: id, export: export)
            switch current["status"]?.string {
            case "ready": return current
            case "failed":
                throw PodiumError(
                    code: current["error"]?["code"]?.string ?? "failed", message: current["error"]?["message"]?.string ?? "",
                    status: 200)
            default: try await Task.sleep(for: interval)
            }
        }
    }

    public func downloadStoryboardExport(id: String, export: String, to destination: URL, progress: ProgressHandler? = nil)
        async throws
    {
        try await download(try request(.storyboardExportFile, ["id": id, "export": export]), to: destination, progress: progress)
    }

    /// Turns the storyboard into a deck of your library (processed like an upload).
    public func presentStoryboard(id: String) async throws -> JSONValue { try await callJSON(.presentStoryboard, ["id": id]) }

    public func shotVersions(id: String, shot: String) async throws -> JSONValue {
        try await callJSON(.shotVersions, ["id": id, "shot": shot])
    }

    public func shotVersion(id: String, shot: String, seq: Int) async throws -> JSONValue {
        try await callJSON(.shotVersion, ["id": id, "shot": shot, "seq": String(seq)])
    }
}
