import Foundation

/// The storyboard editing socket (docs/protocol.md, "The storyboard socket"): edits go out with
/// ids and come back as `ack` and `edited`; messages come in as ``JSONValue`` (the content's model
/// is `PodiumCore.Storyboard`).
public actor StoryboardLiveSession {
    /// Every message the server sends after the welcome, in order.
    public nonisolated let messages: AsyncStream<JSONValue>
    /// The welcome: `seq`, `storyboard`, `you`, `editors`.
    public nonisolated let welcome: JSONValue
    private let socket: WebSocket

    /// The message types of this socket, for the drift test against docs/protocol.md.
    public static let clientTypes: Set<String> = ["hello", "edit", "undo", "redo", "drawing", "cursor", "ping"]
    public static let serverTypes: Set<String> = ["welcome", "ack", "edited", "editors", "drawing", "cursor", "error"]

    init(socket: WebSocket, welcome: JSONValue, rest: AsyncStream<String>) {
        self.socket = socket
        self.welcome = welcome
        messages = AsyncStream { continuation in
            let task = Task {
                for await text in rest {
                    if let value = try? PodiumClient.makeDecoder().decode(JSONValue.self, from: Data(text.utf8)) {
                        continuation.yield(value)
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Sends one edit (`{"op", …}`) with its id; the `ack` and `edited` come on ``messages``.
    public func edit(_ edit: JSONValue, id: String = UUID().uuidString) async throws {
        try await send(["type": "edit", "id": .string(id), "edit": edit])
    }

    public func undo(id: String = UUID().uuidString) async throws { try await send(["type": "undo", "id": .string(id)]) }
    public func redo(id: String = UUID().uuidString) async throws { try await send(["type": "redo", "id": .string(id)]) }

    /// The stroke being drawn (nil: it ended).
    public func drawing(shot: String, layer: String, stroke: JSONValue?) async throws {
        try await send(["type": "drawing", "shot": .string(shot), "layer": .string(layer), "stroke": stroke ?? .null])
    }

    public func cursor(shot: String, x: Double, y: Double) async throws {
        try await send(["type": "cursor", "shot": .string(shot), "x": .number(x), "y": .number(y)])
    }

    public func ping(t: Double? = nil) async throws {
        try await send(t.map { ["type": "ping", "t": .number($0)] } ?? ["type": "ping"])
    }

    public func send(_ message: JSONValue) async throws {
        try await socket.send(String(decoding: try JSONEncoder().encode(message), as: UTF8.self))
    }

    public func close() async { await socket.close() }
}

/// The lobby: the listed live sessions, pushed whenever they change.
public struct LobbyUpdate: Sendable, Equatable {
    public var sessions: [JSONValue]
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
        return StoryboardLiveSession(socket: socket, welcome: first, rest: socket.messages)
    }

    /// Follows the lobby: each update is the whole list of listed live sessions. Ends when the
    /// socket closes (the server says `reconnect` first when it shuts down).
    public func lobby() async throws -> AsyncStream<LobbyUpdate> {
        let socket = try await WebSocket.connect(url: try socketURL(.lobby, [:]), headers: [])
        return AsyncStream { continuation in
            let task = Task {
                for await text in socket.messages {
                    guard let value = try? Self.makeDecoder().decode(JSONValue.self, from: Data(text.utf8)),
                        value["type"]?.string == "sessions"
                    else { continue }
                    continuation.yield(LobbyUpdate(sessions: value["sessions"]?.array ?? []))
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
