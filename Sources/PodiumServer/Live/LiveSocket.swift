import Foundation
import Logging
import NIOCore
import PodiumCore
import Synchronization

/// One live socket: hello within ``LiveConnection/helloTimeout``, then commands, until the
/// client leaves. Its messages come one at a time, in order, from its ``SocketInbox``; between
/// them the socket has no task, only its NIO handlers and this object.
final class LiveSocket: SocketEndpoint {
    private struct State {
        var joined: LiveConnection.Joined?
        /// Pointer moves come at up to ~60/s from a pen; commands far less often.
        var budget: TokenBucket
        /// Until the hello: then it is cancelled and let go.
        var helloDeadline: Scheduled<Void>?
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

    func received(_ text: String) async {
        let message: ClientMessage
        do {
            message = try ClientText.decode(ClientMessage.self, from: text, isValidID: ClientMessage.isValidID)
        } catch {
            outbox.push(Frames.encode(ErrorMessage(id: error.id, .badMessage(error.reason))))
            if state.withLock({ $0.joined == nil }) { outbox.close(.finished) }
            return
        }
        let now = connection.now()
        let (joined, allowed) = state.withLock { state in
            (state.joined, state.joined == nil || state.budget.take(now: now))
        }
        if let joined {
            guard allowed else {
                outbox.push(Frames.encode(ErrorMessage(id: message.commandID, .rateLimited)))
                return
            }
            await connection.handle(message, joined: joined, outbox: outbox, log: log)
        } else if let joined = await connection.hello(
            message, code: code, requester: requester, outbox: outbox, log: log)
        {
            state.withLock { $0.joined = joined }
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
