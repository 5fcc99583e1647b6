import Foundation
import PodiumCore
import PodiumWire

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
    /// Back after a dropped connection with a fresh welcome: the server could not replay what
    /// was missed, so start again from its content (your editor number is new too).
    case welcome(StoryboardWelcome)
    /// Back after a dropped connection: the `replayed` edits missed came just before this as
    /// `edited`, in order; the welcome says who you are now and who edits.
    case resumed(StoryboardWelcome, replayed: Int)
    /// The connection dropped; the session tries again after `retryIn`, resuming with `lastSeq`
    /// and sending again every edit not yet acknowledged (same id).
    case disconnected(reason: String, retryIn: Duration)

    static func decode(_ data: Data) throws -> StoryboardMessage {
        let decoder = PodiumClient.makeDecoder()
        struct Header: Decodable { let type: String }
        switch try decoder.decode(Header.self, from: data).type {
        case "ack":
            let ack = try decoder.decode(StoryboardAck.self, from: data)
            return .ack(id: ack.id, seq: ack.seq)
        case "edited":
            let edited = try decoder.decode(StoryboardEdited.self, from: data)
            return .edited(seq: edited.seq, author: edited.author, by: edited.by, edit: edited.edit)
        case "editors":
            return .editors(try decoder.decode(StoryboardEditors.self, from: data).editors)
        case "drawing":
            let drawing = try decoder.decode(StoryboardDrawing.self, from: data)
            return .drawing(editor: drawing.editor, shot: drawing.shot, layer: drawing.layer, stroke: drawing.stroke)
        case "cursor":
            let cursor = try decoder.decode(StoryboardCursor.self, from: data)
            return .cursor(editor: cursor.editor, shot: cursor.shot, x: cursor.x, y: cursor.y)
        case "error":
            let failure = try decoder.decode(StoryboardErrorMessage.self, from: data)
            return .error(id: failure.id, code: failure.code, message: failure.message)
        case let type:
            return .other(type: type, try decoder.decode(JSONValue.self, from: data))
        }
    }
}

/// The storyboard editing socket (docs/protocol.md, "The storyboard socket"): edits
/// (`PodiumCore.StoryboardEdit`) go out with ids and come back as ``StoryboardMessage/ack(id:seq:)``
/// and ``StoryboardMessage/edited(seq:author:by:edit:)``.
///
/// It rides on the SDK's one live stream, as ``PodiumLiveSession`` does: a dropped connection
/// comes back by the ``ReconnectPolicy`` with `lastSeq` (the edits missed come as `edited`, then
/// ``StoryboardMessage/resumed(_:replayed:)``), every edit, undo or redo not yet acknowledged is
/// sent again with its id (the server stores it once), and one the server answers `retry` is sent
/// again at once, same id.
public actor StoryboardLiveSession {
    /// Every message the server sends after the welcome, in order (one that does not decode is skipped).
    public nonisolated let messages: AsyncStream<StoryboardMessage>
    /// The first welcome (a rejoin's comes as ``StoryboardMessage/resumed(_:replayed:)`` or
    /// ``StoryboardMessage/welcome(_:)``).
    public nonisolated let welcome: StoryboardWelcome
    nonisolated let stream: LiveStream<StoryboardSocketKind>

    /// The message types of this socket, for the drift test against docs/protocol.md.
    public static let clientTypes: Set<String> = ["hello", "edit", "undo", "redo", "drawing", "cursor", "ping"]
    public static let serverTypes: Set<String> = ["welcome", "ack", "edited", "editors", "drawing", "cursor", "error"]

    /// The last edit handed on as `edited` (or the welcome's `seq`).
    public nonisolated var lastSeq: Int? { get async { await stream.lastSeq } }
    /// Sockets opened so far (1 + reconnections).
    public nonisolated var connections: Int { get async { await stream.connections } }

    init(stream: LiveStream<StoryboardSocketKind>, welcome: StoryboardWelcome, messages: AsyncStream<StoryboardMessage>) {
        self.stream = stream
        self.welcome = welcome
        self.messages = messages
    }

    /// Sends one edit with its id; the `ack` and `edited` come on ``messages``. Kept until
    /// answered: sent again, same id, after a reconnect.
    public nonisolated func edit(_ edit: StoryboardEdit, id: String = UUID().uuidString) async throws {
        try await stream.post(
            id: id, text: Self.encode(["type": "edit", "id": .string(id), "edit": try JSONValue(encoding: edit)]))
    }

    /// Sends one edit and returns the `seq` it was stored as; a refusal throws ``PodiumError``
    /// (status 0). The `ack` and `edited` come on ``messages`` too.
    @discardableResult
    public nonisolated func commit(_ edit: StoryboardEdit, id: String = UUID().uuidString) async throws -> Int {
        try await stream.command(
            id: id, text: Self.encode(["type": "edit", "id": .string(id), "edit": try JSONValue(encoding: edit)]))
    }

    public nonisolated func undo(id: String = UUID().uuidString) async throws {
        try await stream.post(id: id, text: Self.encode(["type": "undo", "id": .string(id)]))
    }

    public nonisolated func redo(id: String = UUID().uuidString) async throws {
        try await stream.post(id: id, text: Self.encode(["type": "redo", "id": .string(id)]))
    }

    /// The stroke being drawn (nil: it ended); dropped while disconnected.
    public nonisolated func drawing(shot: String, layer: String, stroke: StoryboardDrawingStroke?) async throws {
        try await send([
            "type": "drawing", "shot": .string(shot), "layer": .string(layer),
            "stroke": try stroke.map { try JSONValue(encoding: $0) } ?? .null,
        ])
    }

    /// Where this editor points; dropped while disconnected.
    public nonisolated func cursor(shot: String, x: Double, y: Double) async throws {
        try await send(["type": "cursor", "shot": .string(shot), "x": .number(x), "y": .number(y)])
    }

    public nonisolated func ping(t: Double? = nil) async throws {
        try await send(t.map { ["type": "ping", "t": .number($0)] } ?? ["type": "ping"])
    }

    /// Sends any message as it is (the raw form, for a message this SDK does not model): once,
    /// on the socket open now (dropped while disconnected).
    public nonisolated func send(_ message: JSONValue) async throws {
        try await stream.sendEphemeral(try Self.encode(message))
    }

    /// Leaves: closes the socket and ends ``messages``.
    public nonisolated func close() async { await stream.close() }

    /// Cuts the connection without a close frame, as a lost network does (for tests and demos of
    /// the reconnection).
    public nonisolated func dropConnection() async { await stream.dropConnection() }

    /// Connects and returns once welcomed (``PodiumClient/editStoryboard(id:reconnect:)``;
    /// tests give their own `connect`).
    static func open(
        url: URL, token: String?, reconnect: ReconnectPolicy,
        connect: @escaping LiveStream<StoryboardSocketKind>.Connect = { url, headers in
            try await WebSocket.connect(url: url, headers: headers)
        }
    ) async throws -> StoryboardLiveSession {
        let (messages, continuation) = AsyncStream.makeStream(of: StoryboardMessage.self)
        let stream = LiveStream(
            url: url, kind: StoryboardSocketKind(token: token), policy: reconnect, connect: connect,
            deliver: { update in
                switch update {
                case .welcome(_, first: true): break  // the session's own welcome
                case .welcome(let welcome, first: false): continuation.yield(.welcome(welcome))
                case .event(let edited): continuation.yield(edited.message)
                case .resumed(let welcome, let replayed): continuation.yield(.resumed(welcome, replayed: replayed))
                case .message(let message): continuation.yield(message)
                case .disconnected(let reason, let retryIn): continuation.yield(.disconnected(reason: reason, retryIn: retryIn))
                }
            },
            end: { error in
                if let error = error as? PodiumError {
                    continuation.yield(.error(id: nil, code: error.code, message: error.message))
                }
                continuation.finish()
            })
        do {
            try await stream.start()
        } catch {
            continuation.finish()
            throw error
        }
        guard let welcome = await stream.welcome else { throw PodiumTransportError(.socketClosed, "no welcome") }
        return StoryboardLiveSession(stream: stream, welcome: welcome, messages: messages)
    }

    static func encode(_ message: JSONValue) throws -> String {
        String(decoding: try JSONEncoder().encode(message), as: UTF8.self)
    }
}

/// An `edited` frame: the durable event of the storyboard socket.
typealias StoryboardEditedEvent = StoryboardEdited

extension StoryboardEdited {
    var message: StoryboardMessage { .edited(seq: seq, author: author, by: by, edit: edit) }
}

/// The storyboard socket, as ``LiveStream`` speaks it (docs/protocol.md, "The storyboard socket").
struct StoryboardSocketKind: LiveDocumentKind {
    typealias Welcome = StoryboardWelcome
    typealias Event = StoryboardEditedEvent
    typealias Message = StoryboardMessage

    let token: String?

    var headers: [(String, String)] { [] }

    func hello(lastSeq: Int?) throws -> String {
        var hello: [String: JSONValue] = ["type": "hello"]
        if let token { hello["token"] = .string(token) }
        if let lastSeq { hello["lastSeq"] = .number(Double(lastSeq)) }
        return try StoryboardLiveSession.encode(.object(hello))
    }

    static func frame(_ text: String) throws -> LiveFrame<Self> {
        let data = Data(text.utf8)
        let decoder = PodiumClient.makeDecoder()
        struct Header: Decodable { let type: String }
        switch try decoder.decode(Header.self, from: data).type {
        case "welcome":
            // `missed`: the edits after the hello's `lastSeq`, when the server could replay them.
            let welcome = try decoder.decode(StoryboardWelcome.self, from: data)
            return .welcome(welcome, seq: welcome.seq, missed: welcome.missed)
        case "edited":
            return .event(try decoder.decode(StoryboardEditedEvent.self, from: data))
        default:
            let message = try StoryboardMessage.decode(data)
            return switch message {
            case .ack(let id, let seq): .ack(id: id, seq: seq, message)
            case .error(let id, let code, let text): .error(id: id, code: code, message: text, retryAfter: nil, message)
            default: .message(message)
            }
        }
    }

    static func seq(of event: StoryboardEditedEvent) -> Int { event.seq }

    /// The storyboard socket has no resync: a gap is mended by coming back with `lastSeq`.
    static func resync(afterSeq seq: Int) -> String? { nil }

    static func isFinal(_ code: String) -> Bool {
        ["not_found", "unauthorized", "forbidden", "bad_message", "hello_required"].contains(code)
    }

    static func isRetry(_ code: String) -> Bool { code == "retry" }

    static var passesAnswersOn: Bool { true }
}

// LobbySession and its frame, LobbyMessage, are PodiumWire's (re-exported).

/// The lobby: the listed live sessions, pushed whenever they change.
public struct LobbyUpdate: Sendable, Equatable {
    public var sessions: [LobbySession]
    public static let types: Set<String> = ["sessions", "reconnect"]
}

extension PodiumClient {
    /// Opens a storyboard for editing; throws ``PodiumError`` when the hello is refused. A
    /// dropped connection comes back by `reconnect`, resuming after the last edit seen.
    public func editStoryboard(id: String, reconnect: ReconnectPolicy = .standard) async throws -> StoryboardLiveSession {
        try await StoryboardLiveSession.open(url: try socketURL(.storyboardLive, ["id": id]), token: token, reconnect: reconnect)
    }

    /// Follows the lobby: each update is the whole list of listed live sessions. Ends when the
    /// socket closes (the server says `reconnect` first when it shuts down).
    public func lobby() async throws -> AsyncStream<LobbyUpdate> {
        let socket = try await WebSocket.connect(url: try socketURL(.lobby, [:]), headers: [])
        return AsyncStream { continuation in
            let task = Task {
                for await text in socket.messages {
                    // Another type (`reconnect`) is not a list.
                    guard let message = try? Self.makeDecoder().decode(LobbyMessage.self, from: Data(text.utf8)) else {
                        continue
                    }
                    continuation.yield(LobbyUpdate(sessions: message.sessions))
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
