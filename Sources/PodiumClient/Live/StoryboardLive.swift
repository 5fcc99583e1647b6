import Foundation
import PodiumCore

/// Someone editing a storyboard: one connection (a person in two tabs is two editors).
public struct StoryboardEditorInfo: Codable, Sendable, Equatable {
    /// This connection's number in the project.
    public var editor: Int
    public var userId: String
    public var name: String
    /// Their cursor's and name tag's colour.
    public var color: String
}

/// The storyboard socket's welcome: the project's content as of `seq`, who you are, who edits.
public struct StoryboardWelcome: Codable, Sendable, Equatable {
    public var seq: Int
    public var storyboard: Storyboard
    public var you: StoryboardEditorInfo
    public var editors: [StoryboardEditorInfo]
}

/// A stroke being drawn, shown live to the other editors (not stored; the edit that ends it is).
public struct StoryboardDrawingStroke: Codable, Sendable, Equatable {
    public var tool: SketchStroke.Tool
    public var color: String
    public var width: Double
    /// `[x, y, pressure]` each, 0...1.
    public var points: [[Double]]

    public init(tool: SketchStroke.Tool, color: String, width: Double, points: [[Double]]) {
        self.tool = tool
        self.color = color
        self.width = width
        self.points = points
    }
}

/// A message of the storyboard socket after the welcome (docs/protocol.md, "The storyboard socket").
public enum StoryboardMessage: Sendable, Equatable {
    /// Your edit `id` is stored as `seq`.
    case ack(id: String, seq: Int)
    /// An edit stored as `seq` (yours too): `author` the user, `by` the id their editor gave it.
    case edited(seq: Int, author: String, by: String?, edit: StoryboardEdit)
    case editors([StoryboardEditorInfo])
    /// Another editor's stroke in progress (nil: it ended).
    case drawing(editor: Int, shot: String, layer: String, stroke: StoryboardDrawingStroke?)
    case cursor(editor: Int, shot: String, x: Double, y: Double)
    /// About a command (`id`) or the socket itself (`id` nil).
    case error(id: String?, code: String, message: String)
    /// A type this SDK does not know (a newer server); kept open as ``JSONValue``.
    case other(type: String, JSONValue)

    static func decode(_ data: Data) throws -> StoryboardMessage {
        let decoder = PodiumClient.makeDecoder()
        struct Header: Decodable { let type: String }
        switch try decoder.decode(Header.self, from: data).type {
        case "ack":
            struct Ack: Decodable { let id: String, seq: Int }
            let ack = try decoder.decode(Ack.self, from: data)
            return .ack(id: ack.id, seq: ack.seq)
        case "edited":
            struct Edited: Decodable { let seq: Int, author: String, by: String?, edit: StoryboardEdit }
            let edited = try decoder.decode(Edited.self, from: data)
            return .edited(seq: edited.seq, author: edited.author, by: edited.by, edit: edited.edit)
        case "editors":
            struct Editors: Decodable { let editors: [StoryboardEditorInfo] }
            return .editors(try decoder.decode(Editors.self, from: data).editors)
        case "drawing":
            struct Drawing: Decodable { let editor: Int, shot: String, layer: String, stroke: StoryboardDrawingStroke? }
            let drawing = try decoder.decode(Drawing.self, from: data)
            return .drawing(editor: drawing.editor, shot: drawing.shot, layer: drawing.layer, stroke: drawing.stroke)
        case "cursor":
            struct Cursor: Decodable { let editor: Int, shot: String, x: Double, y: Double }
            let cursor = try decoder.decode(Cursor.self, from: data)
            return .cursor(editor: cursor.editor, shot: cursor.shot, x: cursor.x, y: cursor.y)
        case "error":
            struct Failure: Decodable { let id: String?, code: String, message: String }
            let failure = try decoder.decode(Failure.self, from: data)
            return .error(id: failure.id, code: failure.code, message: failure.message)
        case let type:
            return .other(type: type, try decoder.decode(JSONValue.self, from: data))
        }
    }
}

/// The storyboard editing socket (docs/protocol.md, "The storyboard socket"): edits
/// (`PodiumCore.StoryboardEdit`) go out with ids and come back as ``StoryboardMessage/ack(id:seq:)``
/// and ``StoryboardMessage/edited(seq:author:by:edit:)``.
public actor StoryboardLiveSession {
    /// Every message the server sends after the welcome, in order (one that does not decode is skipped).
    public nonisolated let messages: AsyncStream<StoryboardMessage>
    public nonisolated let welcome: StoryboardWelcome
    private let socket: WebSocket

    /// The message types of this socket, for the drift test against docs/protocol.md.
    public static let clientTypes: Set<String> = ["hello", "edit", "undo", "redo", "drawing", "cursor", "ping"]
    public static let serverTypes: Set<String> = ["welcome", "ack", "edited", "editors", "drawing", "cursor", "error"]

    init(socket: WebSocket, welcome: StoryboardWelcome, rest: AsyncStream<String>) {
        self.socket = socket
        self.welcome = welcome
        messages = AsyncStream { continuation in
            let task = Task {
                for await text in rest {
                    if let message = try? StoryboardMessage.decode(Data(text.utf8)) { continuation.yield(message) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Sends one edit with its id; the `ack` and `edited` come on ``messages``.
    public func edit(_ edit: StoryboardEdit, id: String = UUID().uuidString) async throws {
        try await send(["type": "edit", "id": .string(id), "edit": try JSONValue(encoding: edit)])
    }

    public func undo(id: String = UUID().uuidString) async throws { try await send(["type": "undo", "id": .string(id)]) }
    public func redo(id: String = UUID().uuidString) async throws { try await send(["type": "redo", "id": .string(id)]) }

    /// The stroke being drawn (nil: it ended).
    public func drawing(shot: String, layer: String, stroke: StoryboardDrawingStroke?) async throws {
        try await send([
            "type": "drawing", "shot": .string(shot), "layer": .string(layer),
            "stroke": try stroke.map { try JSONValue(encoding: $0) } ?? .null,
        ])
    }

    public func cursor(shot: String, x: Double, y: Double) async throws {
        try await send(["type": "cursor", "shot": .string(shot), "x": .number(x), "y": .number(y)])
    }

    public func ping(t: Double? = nil) async throws {
        try await send(t.map { ["type": "ping", "t": .number($0)] } ?? ["type": "ping"])
    }

    /// Sends any message as it is (the raw form, for a message this SDK does not model).
    public func send(_ message: JSONValue) async throws {
        try await socket.send(String(decoding: try JSONEncoder().encode(message), as: UTF8.self))
    }

    public func close() async { await socket.close() }
}

/// A live session as the lobby lists it (never an unlisted one; never its passcode).
public struct LobbySession: Codable, Sendable, Equatable {
    public var code: String
    public var title: String
    public var presenter: String
    public var viewers: Int
    /// Whether joining takes a passcode.
    public var hasPasscode: Bool
    public var startedAt: Date
    public var kind: SessionKind
}

/// The lobby: the listed live sessions, pushed whenever they change.
public struct LobbyUpdate: Sendable, Equatable {
    public var sessions: [LobbySession]
    public static let types: Set<String> = ["sessions", "reconnect"]
}

extension PodiumClient {
    /// Opens a storyboard for editing; throws ``PodiumError`` when the hello is refused.
    public func editStoryboard(id: String) async throws -> StoryboardLiveSession {
        let socket = try await WebSocket.connect(url: try socketURL(.storyboardLive, ["id": id]), headers: [])
        var hello: [String: JSONValue] = ["type": "hello"]
        if let token { hello["token"] = .string(token) }
        try await socket.send(String(decoding: try JSONEncoder().encode(JSONValue.object(hello)), as: UTF8.self))
        // The welcome by a first iterator; the rest by the session's own (one reader at a time).
        var iterator = socket.messages.makeAsyncIterator()
        guard let text = await iterator.next() else {
            throw PodiumTransportError(.socketClosed, socket.closeReason)
        }
        let first = try Self.decode(JSONValue.self, from: Data(text.utf8), "storyboard welcome")
        if first["type"]?.string == "error" {
            await socket.close()
            throw PodiumError(code: first["code"]?.string ?? "error", message: first["message"]?.string ?? "", status: 0)
        }
        let welcome = try Self.decode(StoryboardWelcome.self, from: Data(text.utf8), "storyboard welcome")
        return StoryboardLiveSession(socket: socket, welcome: welcome, rest: socket.messages)
    }

    /// Follows the lobby: each update is the whole list of listed live sessions. Ends when the
    /// socket closes (the server says `reconnect` first when it shuts down).
    public func lobby() async throws -> AsyncStream<LobbyUpdate> {
        let socket = try await WebSocket.connect(url: try socketURL(.lobby, [:]), headers: [])
        return AsyncStream { continuation in
            let task = Task {
                for await text in socket.messages {
                    struct Message: Decodable {
                        let type: String
                        let sessions: [LobbySession]?
                    }
                    guard let message = try? Self.makeDecoder().decode(Message.self, from: Data(text.utf8)),
                        message.type == "sessions", let sessions = message.sessions
                    else { continue }
                    continuation.yield(LobbyUpdate(sessions: sessions))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in
                task.cancel()
                Task { await socket.close() }
            }
        }
    }
}
