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
    private var viewerSockets: [String: Set<Int>] = [:]
    /// Members in the viewer role, big screens left out (they are nobody in the audience).
    private(set) var viewerCount = 0

    var count: Int { all.count }

    mutating func add(_ id: Int, _ member: LiveSession.Member) {
        all[id] = member
        if member.host { hostIDs.insert(id) }
        if member.presenterId != nil { presenterIDs.insert(id) }
        if member.role == .viewer, !member.screen {
            viewerCount += 1
            if let viewerId = member.viewerId { viewerSockets[viewerId, default: []].insert(id) }
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
                if viewerSockets[viewerId]?.isEmpty == true { viewerSockets[viewerId] = nil }
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
        (viewerSockets[viewerId] ?? []).compactMap { all[$0] }
    }

    func isConnected(viewer viewerId: String) -> Bool { viewerSockets[viewerId] != nil }
}
