import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PodiumCore
import PodiumStore
import PodiumWire

/// The storyboard editor's socket (`/api/v1/storyboards/{id}/live`): hello with an API token of
/// someone who may edit the project, then edits, undo and redo (answered with `ack` or `error`,
/// broadcast as `edited`), and the ephemeral stroke in progress and cursor.
final class StoryboardSocket: SocketEndpoint {
    /// A stroke of 4,000 points (clients send 4 decimals), sent whole while drawn, with room to spare.
    static let maxMessageBytes = 256 * 1024

    struct Context: Sendable {
        let hub: StoryboardHub
        let store: any StoryboardStore
        let accounts: Accounts
        let outboxLimit: Int
        let heartbeat: Outbox.Heartbeat
        let helloTimeout: TimeAmount
        /// Messages per second an editor may send (strokes in progress and cursors included).
        let messageRate: Double
        let now: @Sendable () -> Date
        /// The server's logger, which every socket shares (see ``SocketLog``).
        let logger: Logger
    }

    private struct Joined {
        let desk: StoryboardDesk
        let editor: Int
        let user: UserRecord
    }

    private struct State {
        var joined: Joined?
        var budget: TokenBucket
        var helloDeadline: Scheduled<Void>?
        /// Edits, undo and redo waiting for the store, in order (see ``CommandQueue``): the stroke
        /// in progress and the cursor never wait behind them.
        var commands = CommandQueue<StoryboardClientMessage>()
    }

    let outbox: Outbox
    private let storyboardID: String
    private let context: Context
    private let log: SocketLog
    private let state: NIOLockedValueBox<State>
    /// The user the upgrade request was signed in as, for a hello without a token.
    private let signedIn: UserRecord?

    static func accept(storyboard id: String, context: Context, request: AppRequestContext) -> SocketUpgrade.Install {
        let log = SocketLog(shared: context.logger, request: request.logger)
        // Who the upgrade's cookie (or bearer token) says is signed in: a browser's hello has no
        // token to give (see ``StoryboardClientMessage/hello(token:)``). The origin was checked.
        let signedIn = request.user
        return { channel in
            let socket = StoryboardSocket(id: id, context: context, channel: channel, log: log, signedIn: signedIn)
            try SocketHandler.install(on: channel, endpoint: socket, maxMessageBytes: maxMessageBytes)
        }
    }

    private init(id: String, context: Context, channel: any Channel, log: SocketLog, signedIn: UserRecord?) {
        self.storyboardID = id
        self.signedIn = signedIn
        self.context = context
        self.log = log
        let outbox = Outbox(limit: context.outboxLimit, channel: channel, log: log, heartbeat: context.heartbeat)
        self.outbox = outbox
        let state = NIOLockedValueBox(
            State(budget: TokenBucket(rate: context.messageRate, burst: context.messageRate * 2, now: context.now())))
        self.state = state
        let deadline = outbox.scheduleTask(in: context.helloTimeout) {
            outbox.push(Frames.encode(StoryboardErrorMessage(.helloRequired)))
            outbox.close(.finished)
        }
        state.withLockedValue { $0.helloDeadline = deadline }
    }

    func firstMessageArrived() {
        state.withLockedValue { $0.helloDeadline.take() }?.cancel()
    }

    func opened() async {}

    /// Charged on the loop as a message arrives (see ``SocketEndpoint/chargeArrival()``).
    func chargeArrival() -> Bool {
        let now = context.now()
        return state.withLockedValue { $0.budget.take(now: now) }
    }

    func received(_ text: String) async {
        await received(text, withinBudget: true)
    }

    func received(_ text: String, withinBudget: Bool) async {
        let message: StoryboardClientMessage
        do {
            message = try ClientText.decode(
                StoryboardClientMessage.self, from: text, isValidID: StoryboardClientMessage.isValidID)
        } catch {
            outbox.push(Frames.encode(StoryboardErrorMessage(id: error.id, .badMessage(error.reason))))
            if state.withLockedValue({ $0.joined == nil }) { outbox.close(.finished) }
            return
        }
        guard let joined = state.withLockedValue({ $0.joined }) else { return await hello(message) }
        guard withinBudget else {
            outbox.push(Frames.encode(StoryboardErrorMessage(id: message.commandID, .rateLimited)))
            return
        }
        switch message {
        case .ping where !state.withLockedValue({ $0.commands.running }):
            // No edit waits: every one before this ping was answered.
            await handle(message, joined)
        case .edit, .undo, .redo, .ping:
            // A ping behind waiting edits waits its turn: its pong still says they were answered.
            // Past the limit, waits for room: the inbox then fills and the socket is not read.
            while true {
                let again = await withCheckedContinuation { (room: CheckedContinuation<Bool, Never>) in
                    let added = state.withLockedValue { state in
                        let added = state.commands.add(message, limit: CommandQueue<StoryboardClientMessage>.defaultLimit)
                        if added == .full { state.commands.roomWaiter = room }
                        return added
                    }
                    if added == .full { return }
                    if added == .start { Task { await performCommands(joined) } }
                    room.resume(returning: false)
                }
                if !again { break }
            }
        default:
            await handle(message, joined)
        }
    }

    /// The socket's edits, one at a time in order, until none waits; then the task ends.
    private func performCommands(_ joined: Joined) async {
        while true {
            let (message, room) = state.withLockedValue { state in
                let message = state.commands.next()
                return (message, message == nil ? nil : state.commands.roomWaiter.take())
            }
            room?.resume(returning: true)
            guard let message else { return }
            guard !outbox.isClosed else { continue }
            await handle(message, joined)
        }
    }

    private func handle(_ message: StoryboardClientMessage, _ joined: Joined) async {
        switch message {
        case .hello:
            outbox.push(Frames.encode(StoryboardErrorMessage(.badMessage("You said hello already."))))
        case .edit(let id, let edit):
            guard StoryboardClientMessage.isValidID(id) else { return badID() }
            await joined.desk.perform(.edit(edit), id: id, user: joined.user, outbox: outbox)
        case .undo(let id):
            guard StoryboardClientMessage.isValidID(id) else { return badID() }
            await joined.desk.perform(.undo, id: id, user: joined.user, outbox: outbox)
        case .redo(let id):
            guard StoryboardClientMessage.isValidID(id) else { return badID() }
            await joined.desk.perform(.redo, id: id, user: joined.user, outbox: outbox)
        case .drawing(_, _, let stroke):
            guard stroke?.isValid ?? true else {
                outbox.push(Frames.encode(StoryboardErrorMessage(.badMessage("That stroke cannot be drawn."))))
                return
            }
            await joined.desk.relay(from: joined.editor, message)
        case .cursor(_, let x, let y):
            guard x.isFinite, y.isFinite, (-1...2).contains(x), (-1...2).contains(y) else {
                outbox.push(Frames.encode(StoryboardErrorMessage(.badMessage("The cursor must lie near the shot."))))
                return
            }
            await joined.desk.relay(from: joined.editor, message)
        case .ping(let t):
            outbox.push(Frames.encode(Pong(t: t, server: context.now().timeIntervalSince1970)))
        }
    }

    private func badID() {
        outbox.push(Frames.encode(StoryboardErrorMessage(.badMessage("A command id has 1 to 64 characters."))))
    }

    private func hello(_ message: StoryboardClientMessage) async {
        guard case .hello(let token, let lastSeq) = message else {
            outbox.push(Frames.encode(StoryboardErrorMessage(.helloRequired)))
            outbox.close(.finished)
            return
        }
        do {
            let user: UserRecord?
            if let token { user = try await context.accounts.user(token: token) } else { user = signedIn }
            guard let user else {
                return refuse(StoryboardErrorMessage(code: "unauthorized", message: "Sign in to edit this storyboard."))
            }
            guard let record = try await context.store.storyboard(id: storyboardID) else {
                return refuse(StoryboardErrorMessage(code: "not_found", message: "There is no such storyboard."))
            }
            guard try await StoryboardAccess.mayEdit(record, user: user, store: context.store) else {
                return refuse(StoryboardErrorMessage(code: "forbidden", message: "You are not an editor of this storyboard."))
            }
            let (desk, editor) = try await context.hub.join(storyboardID, user: user, outbox: outbox, lastSeq: lastSeq)
            guard let editor else {
                return refuse(
                    StoryboardErrorMessage(code: "full", message: "This storyboard has as many editors as it takes."))
            }
            state.withLockedValue { $0.joined = Joined(desk: desk, editor: editor, user: user) }
        } catch {
            log.logger.error("storyboard \(storyboardID): hello failed: \(error)")
            refuse(StoryboardErrorMessage(StoryboardError.unavailable))
        }
    }

    private func refuse(_ error: StoryboardErrorMessage) {
        outbox.push(Frames.encode(error))
        outbox.close(.finished)
    }

    func receivedBinary() async {
        outbox.push(Frames.encode(StoryboardErrorMessage(.badMessage("Send JSON in text frames."))))
    }

    func ended() async {
        state.withLockedValue { $0.helloDeadline.take() }?.cancel()
        guard let joined = state.withLockedValue({ $0.joined }) else { return }
        await context.hub.leave(storyboardID, desk: joined.desk, editor: joined.editor)
    }
}

/// Who may open and edit a storyboard: its owner, the editors the owner invited, and admins.
enum StoryboardAccess {
    static func mayEdit(_ storyboard: StoryboardRecord, user: UserRecord, store: any StoryboardStore) async throws -> Bool {
        if storyboard.ownerId == user.id || user.role == .admin { return true }
        return try await store.storyboardEditors(storyboardId: storyboard.id).contains { $0.id == user.id }
    }
}
