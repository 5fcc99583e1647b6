/// What a client asks a live session to do. Every one is decided by ``SessionState/take(_:id:from:at:)``.
///
/// Commands nest by feature: each feature keeps its commands in its own file, with their wire
/// form (``FeatureCommand``), who may send them and how they are decided, so a new command of a
/// feature is a change in that feature's file (and docs/protocol.md). This enum only says which
/// feature a command is for; the feature files also give the flat shorthands the SDK and the tests
/// use (`.goto(page: 2)` is `.stage(.goto(page: 2))`).
public enum SessionCommand: Sendable, Equatable {
    /// Pages, zoom, blanking and committed ink (StageContent.swift).
    case stage(StageCommand)
    /// Polls and the audience's answers (PollBook.swift).
    case polls(PollCommand)
    /// The audience's questions, their votes and the question mode (QuestionBoard.swift).
    case questions(QuestionCommand)
    /// What the big screens show over the stage: a spotlight, how to join (Spotlight.swift).
    case screen(ScreenCommand)
    /// A video on the stage (Playback.swift).
    case video(VideoCommand)
    /// Rooms: control, decks and the projector (Room.swift).
    case room(RoomCommand)
    /// Viewers follow the presenter (true) or may browse alone.
    case lock(Bool)
    /// The host records the session for its replay (true) or stops.
    case recording(Bool)
    case end
}

/// One feature's commands on the live socket: their `type`s, how each is read from a client's
/// frame and written back. ``ClientMessage`` reads and writes the `type` and the `id`; the feature
/// reads and writes the rest.
public protocol FeatureCommand: Encodable, Sendable, Equatable {
    /// The `type` of every command of the feature that a client may send.
    static var wireTypes: [String] { get }
    /// Decodes the command of `type` (one of ``wireTypes``) sent with the client's (valid) `id`.
    init(wireType type: String, id: String, from decoder: any Decoder) throws
    /// The command as a session takes it.
    var sessionCommand: SessionCommand { get }
}

extension SessionCommand {
    /// A decoder for each command `type` a client may send: the features' ``FeatureCommand/wireTypes``
    /// and the session's own (`lock`, `recording`, `end`). A new feature is one line here.
    static let decoders: [String: @Sendable (String, String, any Decoder) throws -> SessionCommand] = {
        var table: [String: @Sendable (String, String, any Decoder) throws -> SessionCommand] = [:]
        func add<Feature: FeatureCommand>(_: Feature.Type) {
            for type in Feature.wireTypes {
                precondition(table[type] == nil, "two features send \(type)")
                table[type] = { try Feature(wireType: $0, id: $1, from: $2).sessionCommand }
            }
        }
        add(StageCommand.self)
        add(PollCommand.self)
        add(QuestionCommand.self)
        add(ScreenCommand.self)
        add(VideoCommand.self)
        add(RoomCommand.self)
        table["lock"] = { _, _, decoder in
            .lock(try decoder.container(keyedBy: SessionKeys.self).decode(Bool.self, forKey: .locked))
        }
        table["recording"] = { _, _, decoder in
            .recording(try decoder.container(keyedBy: SessionKeys.self).decode(Bool.self, forKey: .on))
        }
        table["end"] = { _, _, _ in .end }
        return table
    }()

    /// Every command `type` a client may send.
    public static var wireTypes: Set<String> { Set(decoders.keys) }

    private enum SessionKeys: String, CodingKey { case type, locked, on }
}

extension SessionCommand: Encodable {
    /// Writes the command's `type` and fields (``ClientMessage`` writes its `id`).
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .stage(let command): try command.encode(to: encoder)
        case .polls(let command): try command.encode(to: encoder)
        case .questions(let command): try command.encode(to: encoder)
        case .screen(let command): try command.encode(to: encoder)
        case .video(let command): try command.encode(to: encoder)
        case .room(let command): try command.encode(to: encoder)
        case .lock(let locked):
            var c = encoder.container(keyedBy: SessionKeys.self)
            try c.encode("lock", forKey: .type)
            try c.encode(locked, forKey: .locked)
        case .recording(let on):
            var c = encoder.container(keyedBy: SessionKeys.self)
            try c.encode("recording", forKey: .type)
            try c.encode(on, forKey: .on)
        case .end:
            var c = encoder.container(keyedBy: SessionKeys.self)
            try c.encode("end", forKey: .type)
        }
    }
}
