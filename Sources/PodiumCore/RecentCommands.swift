/// The ids of recently handled commands and the `seq` each was acknowledged with, so a command
/// retried after a reconnect takes effect once.
///
/// Bounded: a client retries within seconds, so remembering the last few thousand ids per session
/// is enough and keeps memory flat however long a session runs.
public struct RecentCommands: Sendable, Equatable {
    public let capacity: Int
    private var seqByID: [String: Int] = [:]
    private var order: [String] = []
    private var head = 0

    public init(capacity: Int = 4096) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    public func seq(for id: String) -> Int? { seqByID[id] }

    public mutating func remember(_ id: String, seq: Int) {
        guard seqByID.updateValue(seq, forKey: id) == nil else { return }
        if order.count < capacity {
            order.append(id)
        } else {
            // A ring buffer: overwrite the oldest id.
            seqByID[order[head]] = nil
            order[head] = id
            head = (head + 1) % capacity
        }
    }

    public var count: Int { seqByID.count }
}
