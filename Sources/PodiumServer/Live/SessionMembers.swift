import PodiumCore

/// A session's sockets, with the questions asked on every join, leave and answer kept as
/// indexes: how many viewers are connected, which sockets are the hosts', which belong to one
/// viewer. A hall of 10,000 would otherwise cost a walk over every member each time, and a
/// hall fills up (or answers a poll) ten thousand times.
struct SessionMembers {
    private(set) var all: [Int: LiveSession.Member] = [:]
    /// Members in the host role (a handful).
    private var hostIDs: Set<Int> = []
    /// Members with a room presenter id (a handful).
    private var presenterIDs: Set<Int> = []
    /// Viewer-role members by viewer identity: one person may have several tabs open.
    private var viewerSockets: [String: SocketIDs] = [:]
    /// Members in the viewer role, big screens left out (they are nobody in the audience).
    private(set) var viewerCount = 0

    var count: Int { all.count }

    mutating func add(_ id: Int, _ member: LiveSession.Member) {
        all[id] = member
        if member.host { hostIDs.insert(id) }
        if member.presenterId != nil { presenterIDs.insert(id) }
        if member.role == .viewer, !member.screen {
            viewerCount += 1
            if let viewerId = member.viewerId { viewerSockets[viewerId, default: .none].insert(id) }
        }
    }

    mutating func remove(_ id: Int) -> LiveSession.Member? {
        guard let member = all.removeValue(forKey: id) else { return nil }
        hostIDs.remove(id)
        presenterIDs.remove(id)
        if member.role == .viewer, !member.screen {
            viewerCount -= 1
            if let viewerId = member.viewerId {
                viewerSockets[viewerId]?.remove(id)
                if viewerSockets[viewerId] == SocketIDs.none { viewerSockets[viewerId] = nil }
            }
        }
        return member
    }

    mutating func removeAll() {
        self = SessionMembers()
    }

    var hasHost: Bool { !hostIDs.isEmpty }

    var hosts: [LiveSession.Member] { hostIDs.compactMap { all[$0] } }

    /// The room presenters with a socket open now.
    var connectedPresenters: [String] { Set(presenterIDs.compactMap { all[$0]?.presenterId }).sorted() }

    /// The viewer's own sockets (viewer role).
    func sockets(ofViewer viewerId: String) -> [LiveSession.Member] {
        (viewerSockets[viewerId] ?? .none).ids.compactMap { all[$0] }
    }

    func isConnected(viewer viewerId: String) -> Bool { viewerSockets[viewerId] != nil }
}

/// One viewer's sockets. Nearly every viewer has one: kept in the table's own entry, not in a
/// `Set` of its own (an allocation of about 80 bytes for each viewer of a hall).
enum SocketIDs: Equatable {
    case none
    case one(Int)
    case several(Set<Int>)

    mutating func insert(_ id: Int) {
        switch self {
        case .none: self = .one(id)
        case .one(let other): self = other == id ? .one(id) : .several([other, id])
        case .several(var ids):
            self = .none  // the set is not shared while it grows
            ids.insert(id)
            self = .several(ids)
        }
    }

    mutating func remove(_ id: Int) {
        switch self {
        case .none: break
        case .one(let other): if other == id { self = .none }
        case .several(var ids):
            self = .none
            ids.remove(id)
            if ids.count == 1, let last = ids.first {
                self = .one(last)
            } else if !ids.isEmpty {
                self = .several(ids)
            }
        }
    }

    var ids: [Int] {
        switch self {
        case .none: []
        case .one(let id): [id]
        case .several(let ids): Array(ids)
        }
    }
}
