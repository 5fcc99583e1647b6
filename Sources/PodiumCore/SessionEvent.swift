/// A durable change to a live session. Stored before it is sent; applied by every client in
/// `seq` order exactly once.
public enum SessionChange: Sendable, Equatable {
    /// The presenter shows this page (from 1); the viewport is the whole page again.
    case page(Int)
    /// The presenter shows this rectangle of the current page.
    case zoom(Viewport)
    case blank(BlankMode)
    /// Viewers follow the presenter (true) or may browse alone (false).
    case lock(Bool)
    /// The session is over; viewers may keep reading.
    case ended
}

/// A ``SessionChange`` with its place in the session's history.
///
/// On the wire it is one flat object: `{"type":"page","seq":4,"page":2}`.
public struct SessionEvent: Sendable, Equatable, Codable {
    public let seq: Int
    public let change: SessionChange

    public init(seq: Int, change: SessionChange) {
        self.seq = seq
        self.change = change
    }

    enum CodingKeys: String, CodingKey {
        case type, seq, page, viewport, mode, locked
    }

    public var type: String {
        switch change {
        case .page: "page"
        case .zoom: "zoom"
        case .blank: "blank"
        case .lock: "lock"
        case .ended: "ended"
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(seq, forKey: .seq)
        switch change {
        case .page(let page): try container.encode(page, forKey: .page)
        case .zoom(let viewport): try container.encode(viewport, forKey: .viewport)
        case .blank(let mode): try container.encode(mode, forKey: .mode)
        case .lock(let locked): try container.encode(locked, forKey: .locked)
        case .ended: break
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decode(Int.self, forKey: .seq)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "page": change = .page(try container.decode(Int.self, forKey: .page))
        case "zoom": change = .zoom(try container.decode(Viewport.self, forKey: .viewport))
        case "blank": change = .blank(try container.decode(BlankMode.self, forKey: .mode))
        case "lock": change = .lock(try container.decode(Bool.self, forKey: .locked))
        case "ended": change = .ended
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "unknown event type \(type)")
        }
    }
}

/// Everything a client needs to show the session as it is after `seq`.
public struct SessionSnapshot: Codable, Sendable, Equatable {
    public var page: Int
    public var viewport: Viewport
    public var blank: BlankMode
    public var locked: Bool
    public var ended: Bool

    public init(page: Int = 1, viewport: Viewport = .fullPage, blank: BlankMode = .none, locked: Bool = true, ended: Bool = false) {
        self.page = page
        self.viewport = viewport
        self.blank = blank
        self.locked = locked
        self.ended = ended
    }

    /// The one place where an event changes the state: the server and every client agree on it.
    public mutating func apply(_ change: SessionChange) {
        switch change {
        case .page(let page):
            self.page = page
            viewport = .fullPage
        case .zoom(let viewport):
            self.viewport = viewport
        case .blank(let mode):
            blank = mode
        case .lock(let locked):
            self.locked = locked
        case .ended:
            ended = true
            // Ending unlocks so viewers can finish reading at their own pace.
            locked = false
            blank = .none
        }
    }
}
