import Synchronization

/// A newest-wins slot of a socket: what a slow client gets only the latest of (the pointer, a
/// tally, the viewer list). The transport knows nothing of product features: each feature names
/// its own keys where it lives (`static let pointer = EphemeralKey("pointer")`), and a new
/// feature adds a key without touching the outbox.
///
/// A key is a small index so an outbox keeps its slots in an array, not a dictionary: this is on
/// the path of every pointer move to every socket.
struct EphemeralKey: Hashable, Sendable, CustomStringConvertible {
    let index: Int
    let name: String

    private static let names = Mutex<[String]>([])

    /// The key named `name`: the same name always gives the same key.
    init(_ name: String) {
        index = Self.names.withLock { names in
            if let existing = names.firstIndex(of: name) { return existing }
            names.append(name)
            return names.count - 1
        }
        self.name = name
    }

    /// How many keys exist so far: slot arrays grow to fit a key registered later.
    static var count: Int { names.withLock { $0.count } }

    var description: String { name }
}

extension Array {
    /// Grows the array with `filler` until `index` is valid.
    mutating func growing(toInclude index: Int, with filler: Element) {
        if index >= count { append(contentsOf: repeatElement(filler, count: Swift.max(index + 1, EphemeralKey.count) - count)) }
    }
}
