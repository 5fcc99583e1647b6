import NIOCore
import PodiumCore

/// A session's sockets and how a frame reaches them: broadcast groups per audience and event
/// loop, and the members' indexes for frames to some of them.
///
/// Every socket's outbox is in a group by audience (hosts, everyone else) and event loop, so a
/// broadcast costs one queue entry per loop instead of a visit to every member. A newcomer is
/// appended; sockets of members who left stay (a closed outbox takes nothing) until enough have
/// left to build the groups again: while a hall fills, every join would otherwise start new
/// groups, and a pass holding broadcasts for the old groups and the new would visit every
/// socket twice.
struct SessionFanOut {
    private(set) var members = SessionMembers()
    private var groups: (hosts: OutboxGroups, others: OutboxGroups)?
    /// Members who left since the groups were built.
    private var departed = 0

    /// How many members may leave before the broadcast groups are built again (or an eighth of
    /// those still there, if more): their closed sockets cost a check each per broadcast.
    static let departuresBeforeRebuild = 64

    mutating func add(_ id: Int, _ member: LiveSession.Member) {
        members.add(id, member)
        if member.host { groups?.hosts.append(member.outbox) } else { groups?.others.append(member.outbox) }
    }

    mutating func remove(_ id: Int) -> LiveSession.Member? {
        guard let member = members.remove(id) else { return nil }
        departed += 1
        if departed > max(Self.departuresBeforeRebuild, members.count / 8) {
            groups = nil
            departed = 0
        }
        return member
    }

    /// Tells every socket to go (with `reason`) and forgets them.
    mutating func closeAll(_ reason: Outbox.CloseReason) {
        for member in members.all.values { member.outbox.close(reason) }
        members.removeAll()
        groups = nil
    }

    private mutating func targets() -> (hosts: OutboxGroups, others: OutboxGroups) {
        if let groups { return groups }
        let built = (
            hosts: OutboxGroups(members.all.values.lazy.filter(\.host).map(\.outbox)),
            others: OutboxGroups(members.all.values.lazy.filter { !$0.host }.map(\.outbox))
        )
        groups = built
        return built
    }

    /// An event, encoded once per audience: hosts may see more (a poll's right answer before it
    /// is revealed). A socket too far behind is cut off by its outbox; it leaves when its
    /// connection ends.
    mutating func broadcast(_ frames: EventFrames) {
        let targets = targets()
        Outbox.broadcast(.push(frames.hosts), to: targets.hosts)
        Outbox.broadcast(.push(frames.others), to: targets.others)
    }

    /// One delivery for every socket of the session, hosts and others alike.
    mutating func toEveryone(_ delivery: Outbox.Delivery) {
        let targets = targets()
        Outbox.broadcast(delivery, to: targets.hosts, targets.others)
    }

    /// Newest-wins frames for the hosts, and (if given) for everyone else.
    mutating func replace(_ key: EphemeralKey, hosts: ByteBuffer, others: ByteBuffer?) {
        let targets = targets()
        Outbox.broadcast(.replace(key, Outbox.Frame(hosts)), to: targets.hosts)
        if let others { Outbox.broadcast(.replace(key, Outbox.Frame(others)), to: targets.others) }
    }

    /// A newest-wins frame for each host socket (a handful).
    func toHosts(_ key: EphemeralKey, _ frame: ByteBuffer) {
        for member in members.hosts { member.outbox.replace(key, with: frame) }
    }

    /// A newest-wins frame for every viewer-role socket.
    func toViewers(_ key: EphemeralKey, _ frame: ByteBuffer) {
        for member in members.all.values where member.role == .viewer { member.outbox.replace(key, with: frame) }
    }

    /// A newest-wins frame for every socket of one viewer (one person, several tabs).
    func toViewer(_ viewerId: String, _ key: EphemeralKey, _ frame: ByteBuffer) {
        for member in members.sockets(ofViewer: viewerId) { member.outbox.replace(key, with: frame) }
    }

    /// A frame for one room presenter's sockets, or (nil) the moderator's.
    func toPresenter(_ presenterId: String?, _ frame: ByteBuffer) {
        for member in members.all.values
        where presenterId.map({ member.presenterId == $0 }) ?? (member.role == .moderator) {
            member.outbox.push(frame)
        }
    }
}

/// An event's frame for hosts and for everyone else (the same buffer when they see the same).
struct EventFrames {
    let hosts: Outbox.Frame
    let others: Outbox.Frame

    /// Encodes an event for both audiences, or says it cannot be sent (so it is not stored).
    init(_ event: SessionEvent) throws(FrameEncodingError) {
        hosts = Outbox.Frame(try Frames.encoded(event))
        let viewerEvent = event.forViewers
        others = viewerEvent == event ? hosts : Outbox.Frame(try Frames.encoded(viewerEvent))
    }
}
