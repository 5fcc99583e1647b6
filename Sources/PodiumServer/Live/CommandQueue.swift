/// A socket's durable commands (those the store must keep) waiting for their turn, handled in
/// the order they came by a short task of their own, apart from the socket's other messages.
///
/// A command waits for the store: while the database is slow or away, one command can wait
/// seconds. Behind it in the socket's ``SocketInbox`` the pointer, ink in progress and pings
/// would wait too (a presenter's pointer froze for every viewer), and the inbox, full, would stop
/// reading the socket. So the socket's endpoint queues its durable commands here and goes on;
/// they keep their order among themselves, and so do their answers.
///
/// Bounded: past ``limit`` commands waiting, a new one is refused (the endpoint answers it
/// `rate_limited`) instead of holding ever more memory for a store that does not answer.
/// A value kept inside the endpoint's own locked state (no allocation of its own per socket);
/// the endpoint starts the task when ``add(_:)`` says so and takes items with ``next()``.
struct CommandQueue<Item> {
    /// How many commands of one socket may wait at most (the one being handled not counted).
    static var defaultLimit: Int { 64 }

    private var items: [Item] = []
    private(set) var running = false

    /// What became of an item given to ``add(_:)``.
    enum Added {
        /// Queued; the caller starts the task that handles the queue.
        case start
        /// Queued behind others; the running task takes it.
        case queued
        /// Not queued: `limit` commands wait already.
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
