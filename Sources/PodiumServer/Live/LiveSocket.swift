import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PodiumCore

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
    private let logger: Logger
    /// Only the inbox's task changes it, one message at a time; the lock is for the hello
    /// deadline, which reads it from the loop.
    private let state: NIOLockedValueBox<State>

    init(
        connection: LiveConnection, code: String, requester: LiveConnection.Requester, channel: any Channel, logger: Logger
    ) {
        self.connection = connection
        self.code = code
        self.requester = requester
        self.logger = logger
        let outbox = Outbox(
            limit: connection.outboxLimit, channel: channel, logger: logger, heartbeat: connection.heartbeat)
        self.outbox = outbox
        let state = NIOLockedValueBox(
            State(budget: TokenBucket(rate: connection.messageRate, burst: connection.messageRate * 2, now: connection.now())))
        self.state = state
        // Cancelled on the loop as the first message arrives (``firstMessageArrived()``), which
        // is also where this runs: if it runs, the client has said nothing.
        let deadline = outbox.scheduleTask(in: connection.helloTimeout) {
            outbox.push(Frames.encode(ErrorMessage(.helloRequired)))
            outbox.close(.finished)
        }
        state.withLockedValue { $0.helloDeadline = deadline }
    }

    private func cancelHelloDeadline() {
        state.withLockedValue { $0.helloDeadline.take() }?.cancel()
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
            message = try JSONDecoder().decode(ClientMessage.self, from: Data(text.utf8))
        } catch {
            outbox.push(Frames.encode(ErrorMessage(.badMessage(LiveConnection.describe(error)))))
            if state.withLockedValue({ $0.joined == nil }) { outbox.close(.finished) }
            return
        }
        let now = connection.now()
        let (joined, allowed) = state.withLockedValue { state in
            (state.joined, state.joined == nil || state.budget.take(now: now))
        }
        if let joined {
            guard allowed else {
                outbox.push(Frames.encode(ErrorMessage(id: message.commandID, .rateLimited)))
                return
            }
            await connection.handle(message, joined: joined, outbox: outbox, logger: logger)
        } else if let joined = await connection.hello(
            message, code: code, requester: requester, outbox: outbox, logger: logger)
        {
            state.withLockedValue { $0.joined = joined }
        }
    }

    func receivedBinary() async {
        outbox.push(Frames.encode(ErrorMessage(.badMessage("Send JSON in text frames."))))
    }

    func ended() async {
        cancelHelloDeadline()
        if let joined = state.withLockedValue({ $0.joined }) { await joined.session.leave(joined.memberID) }
    }
}
