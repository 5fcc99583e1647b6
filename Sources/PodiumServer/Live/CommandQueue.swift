/// A socket's durable commands (those the store must keep) waiting for their turn, handled in
/// the order they came by a short task of their own, apart from the socket's other messages.
///
/// A command waits for the store: while the database is slow or away, one command can wait
/// seconds. Behind it in the socket's ``SocketInbox`` the pointer, ink in progress and pings
/// would wait too (a presenter's pointer froze for every viewer), and the inbox, full, would stop
/// reading the socket. So the socket's endpoint queues its durable commands here and goes on;
/// they keep their order among themselves, and so do their answers.
///
/// Bounded: past ``limit`` commands waiting, the socket's inbox waits for room (``roomWaiter``),
/// so its own bound then stops the socket being read, instead of holding ever more memory for a
/// store that does not answer; every command is still answered, in order. While the store is known
/// to be unreachable commands fail at once, so the queue does not fill in an outage.
/// A value kept inside the endpoint's own locked state (no allocation of its own per socket);
/// the endpoint starts the task when ``add(_:)`` says so and takes items with ``next()``.
struct CommandQueue<Item> {
    /// How many commands of one socket may wait at most (the one being handled not counted).
    static var defaultLimit: Int { 64 }

    private var items: [Item] = []
    private(set) var running = false
    /// The inbox's task, waiting for room after ``add(_:limit:)`` said ``Added/full``: resumed
    /// (with true: try again) when the running task takes the next item.
    var roomWaiter: CheckedContinuation<Bool, Never>?

    /// What became of an item given to ``add(_:)``.
    enum Added {
        /// Queued; the caller starts the task that handles the queue.
        case start
        /// Queued behind others; the running task takes it.
        case queued
        /// Not queued: `limit` commands wait already (wait in ``roomWaiter``, then add again).
        case full
    }

    mutating func add(_ item: Item, limit: Int) -> Added {
        guard items.count < limit else { return .full }
        items.append(item)
        if running { return .queued }
        running = true
        return .start
    }

    /// The next item for the running task; nil when none is left, and the task ends.
    mutating func next() -> Item? {
        guard !items.isEmpty else {
            running = false
            items = []  // an idle socket keeps no buffer
            return nil
        }
        return items.removeFirst()
    }

    /// How many wait (the one being handled not counted).
    var waiting: Int { items.count }
}

extension CommandQueue: Sendable where Item: Sendable {}
