import Foundation
import PodiumClient
import PodiumCore
import Testing

/// The SDK cannot drift from the documents: every operation of Public/openapi.yaml has an SDK
/// entry point (`Endpoint.all`) and the SDK calls nothing the document lacks; every message type
/// of docs/protocol.md is one the SDK sends or decodes, and the reverse; every example frame of
/// the server decodes into a typed case of `LiveMessage`, and every client example is a message
/// the SDK can send.
@Suite("Swift SDK: no drift from the documents")
struct SDKDriftTests {
    static let root = TestServer.repositoryRoot

    /// `(METHOD, /path)` of every operation in the OpenAPI document.
    static func openAPIOperations() throws -> Set<String> {
        let text = try String(contentsOf: root.appendingPathComponent("Public/openapi.yaml"), encoding: .utf8)
        var operations: Set<String> = []
        var path: String?
        var inPaths = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("paths:") {
                inPaths = true
                continue
            }
            if inPaths, let first = line.first, first != " ", first != "#" { inPaths = false }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     ") {
                let key = line.trimmingCharacters(in: .whitespaces)
                for method in ["get", "post", "put", "patch", "delete", "head"] where key.hasPrefix("\(method):") {
                    operations.insert("\(method.uppercased()) \(path)")
                }
            }
        }
        return operations
    }

    @Test func everyOperationOfTheOpenAPIDocumentHasAnSDKCall() throws {
        let documented = try Self.openAPIOperations()
        #expect(documented.count > 100, "the parser found \(documented.count) operations")
        let sdk = Set(Endpoint.all.map(\.description))
        #expect(sdk.count == Endpoint.all.count, "an endpoint is listed twice")
        let missing = documented.subtracting(sdk).sorted()
        let undocumented = sdk.subtracting(documented).sorted()
        #expect(missing.isEmpty, "operations without an SDK call: \(missing)")
        #expect(undocumented.isEmpty, "SDK calls the document lacks: \(undocumented)")
    }

    /// The protocol document's lines, split into the storyboard socket's parts and the rest.
    static func protocolTypes() throws -> (live: Set<String>, storyboard: Set<String>) {
        let text = try String(contentsOf: root.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
        let pattern = try Regex(#""type":\s*"([A-Za-z]+)""#)
        var live: Set<String> = []
        var storyboard: Set<String> = []
        var section = ""
        var subsection = ""
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("## ") { (section, subsection) = (line, "") }
            if line.hasPrefix("### ") { subsection = line }
            let isStoryboard = section == "## Storyboards" || subsection == "### Storyboards"
            for match in line.matches(of: pattern) {
                guard let type = match.output[1].substring.map(String.init) else { continue }
                if isStoryboard { storyboard.insert(type) } else { live.insert(type) }
            }
        }
        return (live, storyboard)
    }

    @Test func everyMessageTypeOfTheProtocolDocumentIsOneTheSDKKnows() throws {
        let (live, storyboard) = try Self.protocolTypes()
        #expect(live.count > 50, "the parser found \(live.count) types")
        let sdkLive = LiveMessage.knownTypes.union(LiveCommands.types).union(LobbyUpdate.types)
        #expect(
            live.subtracting(sdkLive).sorted().isEmpty, "documented, unknown to the SDK: \(live.subtracting(sdkLive).sorted())")
        #expect(sdkLive.subtracting(live).sorted().isEmpty, "in the SDK, not documented: \(sdkLive.subtracting(live).sorted())")
        let sdkStoryboard = StoryboardLiveSession.clientTypes.union(StoryboardLiveSession.serverTypes)
        #expect(storyboard.subtracting(sdkStoryboard).sorted().isEmpty, "\(storyboard.subtracting(sdkStoryboard).sorted())")
        #expect(sdkStoryboard.subtracting(storyboard).sorted().isEmpty, "\(sdkStoryboard.subtracting(storyboard).sorted())")
    }

    @Test func everyServerExampleDecodesIntoATypedMessage() throws {
        let examples = try ProtocolDocumentTests.examples()
        let server = examples.filter { $0.side == .server && !$0.name.hasPrefix("storyboard") && $0.name != "sessions" }
        #expect(server.count > 40)
        for example in server {
            let frames = Self.objects(example.text)
            #expect(!frames.isEmpty, "\(example.name): no JSON")
            for frame in frames {
                do {
                    let message = try LiveMessage.decode(frame)
                    if case .other(let type, _) = message { Issue.record("\(example.name): \(type) decoded as .other") }
                } catch {
                    Issue.record("\(example.name) (protocol.md line \(example.line)) does not decode: \(error)")
                }
            }
        }
    }

    @Test func everyClientExampleIsAMessageTheSDKSends() throws {
        let examples = try ProtocolDocumentTests.examples().filter { $0.side == .client }
        #expect(!examples.isEmpty)
        for example in examples {
            for frame in Self.objects(example.text) {
                let message = try JSONDecoder().decode(ClientMessage.self, from: Data(frame.utf8))
                #expect(LiveCommands.types.contains(LiveCommands.type(of: message)), "\(example.name)")
            }
        }
    }

    /// The example as one JSON object, or one per line when it shows several.
    static func objects(_ text: String) -> [String] {
        if (try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil { return [text] }
        return text.components(separatedBy: "\n").filter {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil
        }
    }
}
