/// Everyone who has joined a session as a viewer, in order of first arrival.
public struct ViewerRoster: Sendable, Equatable {
    public private(set) var all: [ViewerEntry] = []
    /// Where each viewer identity is in `all`: joins, questions and the leaderboard look a viewer
    /// up, and a hall has thousands.
    private var positions: [String: Int] = [:]

    public init() {}

    public func entry(_ id: String) -> ViewerEntry? { positions[id].map { all[$0] } }

    public var count: Int { all.count }

    /// The entry ``register(_:name:)`` would make for a newcomer, without registering it (and
    /// without copying the roster, as registering in a copy would).
    public func proposedEntry(_ id: String, name: String?) -> ViewerEntry {
        ViewerEntry(id: id, number: all.count + 1, name: Self.cleaned(name))
    }

    private static func cleaned(_ name: String?) -> String? {
        name.map { String($0.trimmingWhitespace) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Registers a viewer identity on arrival. The first arrival fixes their guest number; a
    /// name given later replaces an earlier one.
    /// - Returns: the entry, and whether it is new or changed (to store it).
    public mutating func register(_ id: String, name: String?) -> (entry: ViewerEntry, changed: Bool) {
        let cleaned = Self.cleaned(name)
        if let index = positions[id] {
            guard let cleaned, all[index].name != cleaned else { return (all[index], false) }
            all[index].name = cleaned
            return (all[index], true)
        }
        let entry = ViewerEntry(id: id, number: all.count + 1, name: cleaned)
        positions[id] = all.count
        all.append(entry)
        return (entry, true)
    }

    /// The viewers a session had before a restart, in any order.
    public mutating func restore(_ entries: [ViewerEntry]) {
        var inOrder = true
        for entry in entries where positions[entry.id] == nil {
            if let last = all.last, last.number > entry.number { inOrder = false }
            positions[entry.id] = all.count
            all.append(entry)
        }
        // A newcomer numbered by the store comes after everyone: appended, in order already. Only
        // entries from before (a restart, another node's arrivals) need the sort, which would
        // otherwise run on every join of a filling hall.
        guard !inOrder else { return }
        all.sort { $0.number < $1.number }
        for (index, entry) in all.enumerated() { positions[entry.id] = index }
    }
}
