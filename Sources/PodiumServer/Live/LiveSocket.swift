import Foundation
import Logging
import NIOCore
import PodiumCore
import Synchronization

/// One live socket: hello within ``LiveConnection/helloTimeout``, then commands, until the
/// client leaves. Its messages come one at a time, in order, from its ``SocketInbox``; between
/// them the socket has no task, only its NIO handlers and this object. Durable commands go on to
/// the socket's ``CommandQueue`` and its own short task, so the pointer and ink in progress never
/// wait behind a command the store holds; the message budget is charged as messages arrive.
final class LiveSocket: SocketEndpoint {
    private struct State {
        var joined: LiveConnection.Joined?
        /// Pointer moves come at up to ~60/s from a pen; commands far less often.
        var budget: TokenBucket
        /// Until the hello: then it is cancelled and let go.
        var helloDeadline: Scheduled<Void>?
        /// Durable commands waiting for the store, in order.
        var commands = CommandQueue<ClientMessage>()
    }

    let outbox: Outbox
    private let connection: LiveConnection
    private let code: String
    private let requester: LiveConnection.Requester
    private let log: SocketLog
    /// Only the inbox's task changes it, one message at a time; the lock is for the hello
    /// deadline, which reads it from the loop. (Kept in the socket's own allocation: a
    /// `NIOLockedValueBox` would be one more object per idle socket.)
    private let state: Mutex<State>

    init(
        connection: LiveConnection, code: String, requester: LiveConnection.Requester, channel: any Channel, log: SocketLog
    ) {
        self.connection = connection
        self.code = code
        self.requester = requester
        self.log = log
        let outbox = Outbox(limit: connection.outboxLimit, channel: channel, log: log, heartbeat: connection.heartbeat)
        self.outbox = outbox
        self.state = Mutex(
            State(budget: TokenBucket(rate: connection.messageRate, burst: connection.messageRate * 2, now: connection.now())))
        // Cancelled on the loop as the first message arrives (``firstMessageArrived()``), which
        // is also where this runs: if it runs, the client has said nothing.
        let deadline = outbox.scheduleTask(in: connection.helloTimeout) {
            outbox.push(Frames.encode(ErrorMessage(.helloRequired)))
            outbox.close(.finished)
        }
        state.withLock { $0.helloDeadline = deadline }
    }

    private func cancelHelloDeadline() {
        state.withLock { $0.helloDeadline.take() }?.cancel()
    }

    /// Hellos take turns (see ``Admission``); the socket's later messages do not wait.
    var admission: Admission? { connection.hellos }

    /// The client has said something, in time: however long its hello then waits for its turn,
    /// the hello deadline is met (a crowd reconnecting after a restart waits, it is not cut off).
    func firstMessageArrived() {
        cancelHelloDeadline()
    }

    func opened() async {}

    /// Charged on the loop as a message arrives (see ``SocketEndpoint/chargeArrival()``).
    func chargeArrival() -> Bool {
        if CommandPathTrace.enabled { CommandPathTrace.arrived(self) }
        let now = connection.now()
        return state.withLock { $0.budget.take(now: now) }
    }

    func received(_ text: String) async {
        await received(text, withinBudget: true)
    }

    func received(_ text: String, withinBudget: Bool) async {
        // Charged messages (every one after the hello) were noted as they arrived.
        let arrival = CommandPathTrace.enabled && state.withLock({ $0.joined != nil }) ? CommandPathTrace.takeArrival(self) : nil
        let message: ClientMessage
        do {
            // The first message, when it is a plain hello, is read without the general decoder.
            if state.withLock({ $0.joined == nil }), let hello = HelloReader.read(text) {
                message = .hello(hello)
            } else {
                message = try ClientText.decode(ClientMessage.self, from: text, isValidID: ClientMessage.isValidID)
            }
        } catch {
            outbox.push(Frames.encode(ErrorMessage(id: error.id, .badMessage(error.reason))))
            if state.withLock({ $0.joined == nil }) { outbox.close(.finished) }
            return
        }
        if let joined = state.withLock({ $0.joined }) {
            if CommandPathTrace.enabled, LiveConnection.isDurable(message), let id = message.commandID {
                if let arrival { CommandPathTrace.note("read", id, arrival) }
                CommandPathTrace.stamp("inbox", id)
            }
            guard withinBudget else {
                outbox.push(Frames.encode(ErrorMessage(id: message.commandID, .rateLimited)))
                return
            }
            // A ping (or resync) behind waiting commands waits its turn; with none waiting, every
            // command before it was answered already.
            let queued =
                LiveConnection.isDurable(message)
                || (LiveConnection.keepsOrderWithCommands(message) && state.withLock { $0.commands.running })
            guard queued else { return await connection.handle(message, joined: joined, outbox: outbox, log: log) }
            await enqueue(message, joined: joined)
        } else {
            if let joined = await connection.hello(message, code: code, requester: requester, outbox: outbox, log: log) {
                state.withLock { $0.joined = joined }
            }
            // What the hello allocated for a while is freed now (see ``HeapTrim``).
            HeapTrim.shared.noteSocketChange(on: outbox.loop)
        }
    }

    /// Queues a durable command. When ``LiveConnection/commandBacklog`` wait already, waits for
    /// room: the inbox then fills and the socket is no longer read (a bound, not a refusal).
    private func enqueue(_ message: ClientMessage, joined: LiveConnection.Joined) async {
        let limit = connection.commandBacklog
        while true {
            // True: the queue was full, and has room now; try again.
            let again = await withCheckedContinuation { (room: CheckedContinuation<Bool, Never>) in
                let added = state.withLock { state in
                    let added = state.commands.add(message, limit: limit)
                    if added == .full { state.commands.roomWaiter = room }
                    return added
                }
                if added == .full { return }
                if added == .start { Task { await handleCommands(joined: joined) } }
                room.resume(returning: false)
            }
            if !again { return }
        }
    }

    /// The socket's durable commands, one at a time in order, until none waits; then the task ends.
    private func handleCommands(joined: LiveConnection.Joined) async {
        while true {
            let (message, room) = state.withLock { state in
                let message = state.commands.next()
                return (message, message == nil ? nil : state.commands.roomWaiter.take())
            }
            room?.resume(returning: true)
            guard let message else { return }
            // A socket that closed has its waiting commands dropped, as its inbox drops its messages.
            guard !outbox.isClosed else { continue }
            if CommandPathTrace.enabled, let id = message.commandID { CommandPathTrace.stamp("handle", id) }
            await connection.handle(message, joined: joined, outbox: outbox, log: log)
        }
    }

    func receivedBinary() async {
        outbox.push(Frames.encode(ErrorMessage(.badMessage("Send JSON in text frames."))))
    }

    func ended() async {
        cancelHelloDeadline()
        if let joined = state.withLock({ $0.joined }) { await joined.session.leave(joined.memberID) }
    }
}
