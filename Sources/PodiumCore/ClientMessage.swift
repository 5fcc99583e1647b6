/// A message from a client on the live socket, decoded from `{"type": ..., ...}`.
public enum ClientMessage: Sendable, Equatable {
    case hello(Hello)
    /// A command with the client's id for it: everything that changes the session, answers,
    /// questions and votes included, goes through the one pipeline.
    case command(id: String, SessionCommand)
    /// A laser-pointer move; nil hides the pointer.
    case pointer(PagePoint?)
    /// The ink stroke being drawn (ephemeral), or its end.
    case inking(InkingMessage)
    /// Send again every durable event after this seq.
    case resync(afterSeq: Int)
    /// Keeps the socket alive and samples the server's clock: `t` (any number of the client's,
    /// its clock when it sent the ping) comes back in the pong beside the server's time.
    case ping(t: Double?)
    /// A room's projector is buffering the video on stage (true), or can play again (false).
    case buffering(Bool)

    public struct Hello: Sendable, Equatable {
        public var role: Role
        public var name: String?
        public var passcode: String?
        public var token: String?
        public var lastSeq: Int?
        /// A viewer socket that is a room's projector (honoured for its moderator's browser only):
        /// the screen everyone waits for while it buffers a video.
        public var projector: Bool

        public init(
            role: Role, name: String? = nil, passcode: String? = nil, token: String? = nil, lastSeq: Int? = nil,
            projector: Bool = false
        ) {
            self.role = role
            self.name = name
            self.passcode = passcode
            self.token = token
            self.lastSeq = lastSeq
            self.projector = projector
        }
    }

    /// The client's id, for commands that carry one.
    public var commandID: String? {
        switch self {
        case .command(let id, _): id
        default: nil
        }
    }

    public static let maxIDLength = 64

    /// Whether `id` is a command id this socket takes: 1 to ``maxIDLength`` characters.
    public static func isValidID(_ id: String) -> Bool { !id.isEmpty && id.count <= maxIDLength }
    public static let maxNameLength = 60
}

extension ClientMessage: Codable {
    enum CodingKeys: String, CodingKey {
        case type, id, role, name, passcode, token, lastSeq, projector, page, tool, color, width, points, done
        case x, y, visible, afterSeq, t, buffering
    }

    /// The `type`s of the messages that are not commands.
    static let ownTypes: Set<String> = ["hello", "inking", "pointer", "resync", "ping", "buffering"]

    /// Every `type` a client may send on the live socket: its own messages and every feature's
    /// commands (``SessionCommand/wireTypes``).
    public static var wireTypes: Set<String> { ownTypes.union(SessionCommand.wireTypes) }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decode(String.self, forKey: .type)
        switch type {
        case "hello":
            let lastSeq = try c.decodeIfPresent(Int.self, forKey: .lastSeq)
            if let lastSeq, lastSeq < 0 {
                throw DecodingError.dataCorruptedError(forKey: .lastSeq, in: c, debugDescription: "lastSeq must be >= 0")
            }
            self = .hello(
                Hello(
                    role: try c.decode(Role.self, forKey: .role),
                    name: try c.decodeIfPresent(String.self, forKey: .name).map { String($0.prefix(Self.maxNameLength)) },
                    passcode: try c.decodeIfPresent(String.self, forKey: .passcode),
                    token: try c.decodeIfPresent(String.self, forKey: .token),
                    lastSeq: lastSeq, projector: try c.decodeIfPresent(Bool.self, forKey: .projector) ?? false))
        case "inking":
            self = .inking(
                InkingMessage(
                    page: try c.decodeIfPresent(Int.self, forKey: .page),
                    tool: try c.decodeIfPresent(Stroke.Tool.self, forKey: .tool),
                    color: try c.decodeIfPresent(String.self, forKey: .color),
                    width: try c.decodeIfPresent(Double.self, forKey: .width),
                    points: try c.decodeIfPresent([[Double]].self, forKey: .points),
                    done: try c.decodeIfPresent(Bool.self, forKey: .done)))
        case "pointer":
            if try c.decodeIfPresent(Bool.self, forKey: .visible) == false {
                self = .pointer(nil)
            } else {
                self = .pointer(PagePoint(x: try c.decode(Double.self, forKey: .x), y: try c.decode(Double.self, forKey: .y)))
            }
        case "resync":
            self = .resync(afterSeq: max(0, try c.decode(Int.self, forKey: .afterSeq)))
        case "ping":
            self = .ping(t: try c.decodeIfPresent(Double.self, forKey: .t))
        case "buffering":
            self = .buffering(try c.decode(Bool.self, forKey: .buffering))
        default:
            // A command: the feature that sends this type reads the rest (SessionCommand.decoders).
            guard let decode = SessionCommand.decoders[type] else {
                throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown message type \(type)")
            }
            let id = try c.decode(String.self, forKey: .id)
            guard Self.isValidID(id) else {
                throw DecodingError.dataCorruptedError(forKey: .id, in: c, debugDescription: "id must be 1 to 64 characters")
            }
            let command = try decode(type, id, decoder)
            self = .command(id: id, command)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .hello(let hello):
            try c.encode("hello", forKey: .type)
            try c.encode(hello.role, forKey: .role)
            try c.encodeIfPresent(hello.name, forKey: .name)
            try c.encodeIfPresent(hello.passcode, forKey: .passcode)
            try c.encodeIfPresent(hello.token, forKey: .token)
            try c.encodeIfPresent(hello.lastSeq, forKey: .lastSeq)
            if hello.projector { try c.encode(true, forKey: .projector) }
        case .command(let id, let command):
            // The id first, then the feature writes the type and its fields.
            try c.encode(id, forKey: .id)
            try command.encode(to: encoder)
        case .inking(let inking):
            try c.encode("inking", forKey: .type)
            try c.encodeIfPresent(inking.page, forKey: .page)
            try c.encodeIfPresent(inking.tool, forKey: .tool)
            try c.encodeIfPresent(inking.color, forKey: .color)
            try c.encodeIfPresent(inking.width, forKey: .width)
            try c.encodeIfPresent(inking.points, forKey: .points)
            try c.encodeIfPresent(inking.done, forKey: .done)
        case .pointer(let point):
            try c.encode("pointer", forKey: .type)
            if let point {
                try c.encode(point.x, forKey: .x)
                try c.encode(point.y, forKey: .y)
            } else {
                try c.encode(false, forKey: .visible)
            }
        case .resync(let afterSeq):
            try c.encode("resync", forKey: .type)
            try c.encode(afterSeq, forKey: .afterSeq)
        case .ping(let t):
            try c.encode("ping", forKey: .type)
            try c.encodeIfPresent(t, forKey: .t)
        case .buffering(let on):
            try c.encode("buffering", forKey: .type)
            try c.encode(on, forKey: .buffering)
        }
    }
}
